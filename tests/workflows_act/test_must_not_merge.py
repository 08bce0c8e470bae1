"""PRs that must not merge, driven like test_automerge_publish.py: each stops at the right step, with the right
comment and label, even after a maintainer approves it and adds `automerge`; publish never starts."""

from __future__ import annotations

import pytest
from tests.workflows_act.harness import BOT_LOGIN, ROOT
from tests.workflows_act.test_validate import NEW_SKILL

pytestmark = pytest.mark.timeout(900)


def _comments(sandbox, number: int) -> list[str]:
    return [c["body"] for c in sandbox.repo.comments.values() if c["issue"] == number and c["user"] == BOT_LOGIN]


def _asked_to_merge(sandbox, number: int):
    """A maintainer approves the head and adds `automerge`: automerge runs and must refuse."""
    sandbox.approve(number)
    chain = sandbox.add_label(number, "automerge")
    automerge = chain.run("automerge.yml")
    assert automerge.conclusion == "success", automerge.result.log[-4000:]
    assert "nothing was merged: nothing to publish" in automerge.result.log
    assert not chain.started("publish.yml"), chain.explain()
    pr = sandbox.repo.pulls[number]
    assert not pr.merged and not sandbox.standin.calls("PUT", r"/merge$")
    assert sandbox.standin.refused == []
    return pr


def test_a_security_error_stops_at_validate_and_is_never_merged(sandbox):
    sample = ROOT / "tests" / "security_sets" / "malicious" / "downloadexec-1" / "scripts" / "merge.py"
    files = {**NEW_SKILL, "skills/greeting-card/scripts/merge.py": sample.read_text()}
    number, opened = sandbox.open_pr("add-card-with-downloader", files, title="Add greeting-card")
    validate = opened.run("validate.yml")
    assert validate.conclusion == "failure"
    # The report is uploaded first (pr-bot comments from it); the registry compile is the step that fails.
    assert validate.result.step("Upload the report").outcome == "success"
    assert validate.result.step("Compile the registry with the changed skills").outcome == "failure"
    assert "[security-download-exec]" in validate.result.log
    assert opened.run("pr-bot.yml").conclusion == "success"
    pr = sandbox.repo.pulls[number]
    assert {"new-skill", "invalid", "security-finding"} <= set(pr.labels), pr.labels
    assert any("security-download-exec" in body for body in _comments(sandbox, number))
    pr = _asked_to_merge(sandbox, number)
    why = "\n".join(_comments(sandbox, number))
    assert "security" in why.lower() and "validate" in why.lower(), why


def test_a_change_to_someone_elses_skill_needs_a_maintainer(sandbox):
    path = "skills/csv-profiler/SKILL.md"
    text = (ROOT / path).read_text() + "\nAlso profile the file's encoding.\n"
    number, opened = sandbox.open_pr("csv-encoding", {path: text}, author="dave", title="csv-profiler: encoding")
    assert opened.run("validate.yml").conclusion == "success"
    assert opened.run("pr-bot.yml").conclusion == "success"
    pr = sandbox.repo.pulls[number]
    assert {"skill-update", "needs-maintainer"} <= set(pr.labels), pr.labels
    _asked_to_merge(sandbox, number)
    assert any("@dave does not own skills/csv-profiler" in body for body in _comments(sandbox, number)), \
        _comments(sandbox, number)


FORGED = """verification:
  verified: true
  approved_by: maintainer
  approved_in: https://github.com/skillyard/skillyard/pull/1
  approved_at: '2026-01-01T00:00:00Z'
"""


def test_a_forged_verification_block_is_refused(sandbox):
    path = "skills/agents-md/source.yaml"
    text = (ROOT / path).read_text()
    assert "verification:" not in text
    number, opened = sandbox.open_pr("verify-agents-md", {path: text + FORGED}, title="agents-md: verified")
    validate = opened.run("validate.yml")
    assert validate.result.step("Verify them against their upstream repositories").outcome == "success", \
        validate.result.log[-4000:]
    assert opened.run("pr-bot.yml").conclusion == "success"
    pr = sandbox.repo.pulls[number]
    assert "needs-maintainer" in pr.labels, pr.labels
    _asked_to_merge(sandbox, number)
    assert any("only the bot records an approval" in body for body in _comments(sandbox, number)), \
        _comments(sandbox, number)
