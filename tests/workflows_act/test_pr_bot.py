"""pr-bot.yml as committed. Its comment and labels after a real validate run are asserted in the chain scenarios
(test_automerge_publish.py for a new skill, test_must_not_merge.py for a security error, someone else's skill and a
forged verification block), where GitHub's event rules start it; here: what job.workflow_sha does for it."""

from __future__ import annotations

import pytest
from tests.workflows_act.test_validate import NEW_SKILL

# A scenario runs act once or twice (pip, npm-built actions); the suite's 300 s default is too tight on a busy
# 2-core machine.
pytestmark = pytest.mark.timeout(900)


def _validate_completed(sandbox) -> dict:
    sandbox.repo.runs[7001] = {"event": "pull_request", "head_sha": "0" * 40, "pull_requests": []}
    return {"action": "completed", "workflow": {"name": "validate"},
            "workflow_run": {"id": 7001, "name": "validate", "event": "pull_request", "conclusion": "success",
                             "head_sha": "0" * 40, "head_branch": "x", "pull_requests": []}}


def test_pr_bot_without_job_workflow_sha_stops_before_it_reads_or_posts(sandbox):
    """With the session's table of the contexts act lacks switched off, act gives job.workflow_sha as an empty
    string: the reusable workflow cannot tell which Skillyard commit to install and stops at the install step with
    its own explanation, before it downloads or posts anything. (Why contexts.py exists.)"""
    sandbox.contexts.enabled = False
    result = sandbox.act("workflow_run", "pr-bot.yml", _validate_completed(sandbox), checkout="main")
    assert result.returncode != 0
    assert result.step("Install skillyard with the bot extra").outcome == "failure"
    assert any("does not say which commit the reusable workflow came from (job.workflow_sha)" in e
               for e in result.errors())
    assert not sandbox.standin.writes() and not sandbox.standin.calls("GET", r"/artifacts")


def test_pr_bot_as_committed_installs_skillyard_at_job_workflow_sha(sandbox):
    """A PR's chain, pr-bot.yml exactly as committed: its reusable job installs Skillyard from this repository at
    the commit the caller was loaded from (job.workflow_sha, supplied by contexts.py as GitHub gives it: main's head
    for a workflow_run), fetched from the origin over git, and comments and labels. The clone's workflow files are
    byte for byte as committed afterwards."""
    main = sandbox.origin_head()
    number, chain = sandbox.open_pr("add-greeting-card", NEW_SKILL, author="carol", title="Add greeting-card")
    bot = chain.run("pr-bot.yml")
    assert bot.conclusion == "success", bot.result.log[-6000:]
    assert f"installing skillyard[bot] @ git+{sandbox.server_url}/skillyard/skillyard@{main}" in bot.result.log
    assert [c for c in sandbox.repo.comments.values() if c["issue"] == number]
    assert sandbox.git("status", "--porcelain", "--untracked-files=all", "--", ".github") == ""
