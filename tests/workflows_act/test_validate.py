"""Scenario 1: a new skill's PR runs validate.yml (and through it reusable-validate.yml) for real."""

from __future__ import annotations

import pytest

# A scenario runs act once or twice (pip, npm-built actions); the suite's 300 s default is too tight on a busy
# 2-core machine.
pytestmark = pytest.mark.timeout(900)

GOOD = """---
name: greeting-card
description: Writes a short greeting card for an occasion the user names. Use when asked for a card text.
license: MIT
---

# Greeting card

Ask for the occasion and the recipient, then write four warm lines.
"""
META = 'schema_version: "1.0"\nversion: "1.0.0"\nauthor: carol\nmaintainers: [carol]\ntags: [writing, cards]\n'
NEW_SKILL = {"skills/greeting-card/SKILL.md": GOOD, "skills/greeting-card/skill.yaml": META}


# A valid new skill passing validate (its report artifact, its check run) is asserted in the chain scenario
# test_automerge_publish.py::test_a_new_skill_approved_and_labelled_is_automerged_and_published.


BAD = """---
name: Greeting_Card
description: Writes a short greeting card for an occasion the user names.
---

# Greeting card
"""


def test_an_invalid_new_skill_fails_the_run_after_its_report_is_uploaded(sandbox):
    head = sandbox.commit_files("add-bad-card", {**NEW_SKILL, "skills/greeting-card/SKILL.md": BAD}, "Add a broken skill")
    event = sandbox.open_pull("add-bad-card", head)
    result = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    assert result.returncode != 0
    # The report is still written and uploaded (the bot comments from it); the registry compile is the first step
    # to fail, and the steps after it do not run.
    assert result.step("Upload the report").outcome == "success"
    assert result.step("Compile the registry with the changed skills").outcome == "failure"
    assert "error: 1 invalid skill(s); nothing was written." in result.log
    assert not [s for s in result.steps if "Fail when a changed skill is invalid" in s.name]
    assert list(sandbox.artifacts.rglob("*.zip"))
    assert "[name-folder-mismatch] `name` is 'Greeting_Card' but the folder is named 'greeting-card'." in result.log
    assert "1 skill(s): 0 valid, 1 invalid" in result.log
