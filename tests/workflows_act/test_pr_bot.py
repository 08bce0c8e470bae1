"""Scenario 2: after validate, pr-bot.yml (through reusable-pr-bot.yml) downloads the report artifact from the API
stand-in and posts its comment and labels there."""

from __future__ import annotations

from tests.workflows_act.harness import BOT_LOGIN
from tests.workflows_act.test_validate import NEW_SKILL


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
