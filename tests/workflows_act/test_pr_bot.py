"""Scenario 2: after validate, pr-bot.yml (through reusable-pr-bot.yml) downloads the report artifact from the API
stand-in and posts its comment and labels there."""

from __future__ import annotations

import pytest
from tests.workflows_act.harness import BOT_LOGIN, ROOT
from tests.workflows_act.test_validate import NEW_SKILL

# A scenario runs act once or twice (pip, npm-built actions); the suite's 300 s default is too tight on a busy
# 2-core machine.
pytestmark = pytest.mark.timeout(900)


def _validated_pull(sandbox, files: dict[str, str], branch: str):
    head = sandbox.commit_files(branch, files, f"PR {branch}")
    event = sandbox.open_pull(branch, head)
    validate = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    return head, event, validate


def test_pr_bot_comments_and_labels_a_new_skill(sandbox):
    head, event, validate = _validated_pull(sandbox, NEW_SKILL, "add-greeting-card")
    assert validate.returncode == 0, validate.log[-4000:]
    run_event = sandbox.record_validate_run(event, "success")
    workflow = sandbox.caller_with_toolchain("pr-bot.yml")
    result = sandbox.act("workflow_run", workflow, run_event, checkout="main")
    assert result.returncode == 0, result.log[-6000:]
    number = event["number"]
    pr = sandbox.repo.pulls[number]
    assert "new-skill" in pr.labels and not {"invalid", "security-finding", "needs-maintainer"} & set(pr.labels)
    comments = [c for c in sandbox.repo.comments.values() if c["issue"] == number]
    assert len(comments) == 1 and comments[0]["user"] == BOT_LOGIN
    assert "greeting-card" in comments[0]["body"]
    # The artifact came through the API with the run id of the validate run (the download redirect followed).
    assert sandbox.standin.calls("GET", r"/actions/runs/7001/artifacts")
    assert sandbox.standin.blob_requests


def test_a_pr_with_a_security_error_is_labelled_and_never_merged(sandbox):
    """The validate run fails, yet its report is uploaded: pr-bot (which runs on every completed validate) labels
    the PR security-finding and invalid, names the finding in its comment, and merges nothing."""
    sample = ROOT / "tests" / "security_sets" / "malicious" / "downloadexec-1" / "scripts" / "merge.py"
    files = {**NEW_SKILL, "skills/greeting-card/scripts/merge.py": sample.read_text()}
    head, event, validate = _validated_pull(sandbox, files, "add-card-with-downloader")
    assert validate.returncode != 0
    assert "[security-download-exec]" in validate.log
    run_event = sandbox.record_validate_run(event, "failure")
    result = sandbox.act("workflow_run", sandbox.caller_with_toolchain("pr-bot.yml"), run_event, checkout="main")
    assert result.returncode == 0, result.log[-6000:]
    pr = sandbox.repo.pulls[event["number"]]
    assert {"new-skill", "invalid", "security-finding"} <= set(pr.labels), pr.labels
    (comment,) = [c for c in sandbox.repo.comments.values() if c["issue"] == event["number"]]
    assert "security-download-exec" in comment["body"]
    assert not sandbox.standin.calls("PUT", r"/merge$") and not pr.merged


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
