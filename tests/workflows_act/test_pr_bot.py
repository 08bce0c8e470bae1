"""pr-bot.yml as committed, without the harness's stand-in for job.workflow_sha. Its comment and labels after a real
validate run are asserted in the chain scenarios (test_automerge_publish.py for a new skill, test_must_not_merge.py
for a security error, someone else's skill and a forged verification block), where GitHub's event rules start it."""

from __future__ import annotations

import pytest

# A scenario runs act once or twice (pip, npm-built actions); the suite's 300 s default is too tight on a busy
# 2-core machine.
pytestmark = pytest.mark.timeout(900)


def test_pr_bot_as_committed_stops_where_act_lacks_job_workflow_sha(sandbox):
    """pr-bot.yml passes no `toolchain`, so the reusable workflow installs Skillyard at job.workflow_sha, which act
    does not provide (its `job` context has status, container and services only). The run must stop at the
    install step with the workflow's own explanation, before it downloads or posts anything."""
    sandbox.repo.runs[7001] = {"event": "pull_request", "head_sha": "0" * 40, "pull_requests": []}
    payload = {"action": "completed", "workflow": {"name": "validate"},
               "workflow_run": {"id": 7001, "name": "validate", "event": "pull_request", "conclusion": "success",
                                "head_sha": "0" * 40, "head_branch": "x", "pull_requests": []}}
    result = sandbox.act("workflow_run", "pr-bot.yml", payload, checkout="main")
    assert result.returncode != 0
    assert result.step("Install skillyard with the bot extra").outcome == "failure"
    assert any("does not say which commit the reusable workflow came from (job.workflow_sha)" in e
               for e in result.errors())
    assert not sandbox.standin.writes() and not sandbox.standin.calls("GET", r"/artifacts")
