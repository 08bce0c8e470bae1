"""The harness must see a broken workflow: the same scenarios, with one thing broken on purpose in the throwaway
clone's workflow files, fail where GitHub would."""

from __future__ import annotations

import pytest
from tests.workflows_act.test_validate import NEW_SKILL

# A scenario runs act once or twice (pip, npm-built actions); the suite's 300 s default is too tight on a busy
# 2-core machine.
pytestmark = pytest.mark.timeout(900)


def test_a_renamed_artifact_breaks_the_bot_run_that_downloads_it(sandbox):
    # The edit is in the clone's working tree; act()'s checkouts keep it (the PR does not touch that file).
    head = sandbox.commit_files("add-greeting-card", NEW_SKILL, "Add greeting-card")
    event = sandbox.open_pull("add-greeting-card", head)
    sandbox.git("checkout", "-q", "--detach", head)
    sandbox.break_workflow("reusable-validate.yml", "name: validate-report\n", "name: validate-reports\n")
    validate = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    assert validate.returncode == 0, validate.log[-4000:]
    (zipped,) = sandbox.artifacts.rglob("*.zip")
    assert zipped.parent.name == "validate-reports"
    sandbox.repo.runs[7001] = {"event": "pull_request", "head_sha": head, "pull_requests": [event["number"]]}
    sandbox.repo.artifacts[70010] = {"run": 7001, "name": "validate-reports", "data": zipped.read_bytes()}
    sandbox.repo.contents[("main", "registry.json")] = (sandbox.work / "registry.json").read_bytes()
    payload = {"action": "completed", "workflow": {"name": "validate"}, "repository": sandbox._repository_json(),
               "workflow_run": {"id": 7001, "name": "validate", "event": "pull_request", "conclusion": "success",
                                "head_sha": head, "head_branch": "add-greeting-card",
                                "pull_requests": [{"number": event["number"]}]}}
    result = sandbox.act("workflow_run", sandbox.caller_with_toolchain("pr-bot.yml"), payload, checkout="main")
    assert result.returncode != 0
    assert result.step("Download the report artifact").outcome == "failure"
    assert not sandbox.standin.writes()   # no comment, no label


def test_a_failing_step_fails_the_validate_scenario(sandbox):
    head = sandbox.commit_files("add-greeting-card", NEW_SKILL, "Add greeting-card")
    event = sandbox.open_pull("add-greeting-card", head)
    sandbox.break_workflow("reusable-validate.yml", 'echo "files in skill folders: $skills; elsewhere: $others"\n',
                           'echo "files in skill folders: $skills; elsewhere: $others"; exit 3\n')
    result = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    assert result.returncode != 0
    assert result.step("Check the PR's scope").outcome == "failure"
    assert not list(sandbox.artifacts.rglob("*.zip"))   # the report is never uploaded
