"""GitHub's rules for what starts what (events.py) and the token scopes per job (permissions.py), against our own
workflow files. Runs without act or ../shared: the chains the scenarios drive rest on these answers."""

from __future__ import annotations

from pathlib import Path

from tests.bot.ghstub import GitHubStandIn
from tests.workflows_act import events as ev
from tests.workflows_act.permissions import job_permissions, match_job

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
ALL = ev.load_workflows(WORKFLOWS)


def started(event: ev.Event) -> list[str]:
    return [w.file for w in ev.started_by(ALL, event) if not w.reusable_only]


def push(ref="refs/heads/main", *, by_token=False, message="Add a skill") -> ev.Event:
    actor = ev.ACTIONS_BOT if by_token else "maintainer"
    return ev.Event("push", {"ref": ref, "head_commit": {"message": message}}, actor, by_token, ref=ref)


def pull(action: str, *, label=None, by_token=False, name="pull_request") -> ev.Event:
    payload = {"action": action, "pull_request": {"base": {"ref": "main"}, "_head_message": "x"}}
    if label:
        payload["label"] = {"name": label}
    return ev.Event(name, payload, "carol", by_token)


def completed(workflow: str, depth: int = 1) -> ev.Event:
    payload = {"action": "completed", "workflow": {"name": workflow},
               "workflow_run": {"name": workflow, "head_branch": "feature"}}
    return ev.Event("workflow_run", payload, "carol", depth=depth)


def test_a_persons_push_to_main_starts_publish_and_ci_but_the_actions_token_starts_nothing():
    assert started(push()) == ["ci.yml", "publish.yml"]
    assert started(push(by_token=True)) == []
    reason = ev.why_not(next(w for w in ALL if w.file == "publish.yml"), push(by_token=True))
    assert "GITHUB_TOKEN" in reason and "workflow_dispatch" in reason


def test_skip_ci_in_the_head_commit_starts_no_push_run():
    assert started(push(message="registry: rebuild registry.json and index.json [skip ci]")) == []


def test_a_release_tag_starts_release_only():
    assert started(push("refs/tags/v1.2.0")) == ["release.yml"]
    assert started(push("refs/tags/nightly")) == []


def test_pull_request_events():
    assert started(pull("opened")) == ["ci.yml", "validate.yml"]
    assert started(pull("opened", name="pull_request_target")) == []
    assert started(pull("labeled", label="automerge")) == []
    assert started(pull("labeled", label="automerge", name="pull_request_target")) == ["automerge.yml"]
    assert started(pull("labeled", label="automerge", name="pull_request_target", by_token=True)) == []


def test_workflow_run_chains_and_their_depth_limit():
    assert started(completed("validate")) == ["automerge.yml", "pr-bot.yml"]
    assert started(completed("ci")) == ["automerge.yml"]
    assert started(completed("pr-bot")) == []
    assert started(completed("validate", depth=ev.MAX_WORKFLOW_RUN_DEPTH + 1)) == []


def test_a_dispatch_starts_the_named_file_even_from_the_actions_token():
    def dispatch(file):
        return ev.Event("workflow_dispatch", {"inputs": {}}, ev.ACTIONS_BOT, True, workflow_file=file)
    assert started(dispatch("publish.yml")) == ["publish.yml"]
    assert started(dispatch("ci.yml")) == []   # ci.yml has no workflow_dispatch trigger


def test_each_job_gets_the_lower_of_its_callers_and_its_own_permissions():
    scopes = job_permissions(WORKFLOWS, "publish.yml")
    deploy = match_job(scopes, "publish/reusable publish/deploy to GitHub Pages")
    assert deploy["pages"] == "write" and deploy["id-token"] == "write" and deploy["contents"] == "none"
    site = match_job(scopes, "publish/reusable publish/build the site")
    assert site["contents"] == "read" and site["pages"] == "none"
    bot = match_job(job_permissions(WORKFLOWS, "pr-bot.yml"), "pr-bot/reusable pr-bot/report on the PR")
    assert bot["actions"] == "read" and bot["contents"] == "read" and bot["checks"] == "none"


def test_the_stand_in_refuses_a_token_what_its_job_was_not_granted():
    stub = GitHubStandIn(tokens={"t": ev.ACTIONS_BOT})
    stub.scopes["t"] = {"actions": "read", "pull-requests": "write"}
    assert stub._allowed("t", "GET", "/repos/o/r/actions/runs/1/artifacts")
    assert not stub._allowed("t", "POST", "/repos/o/r/actions/workflows/publish.yml/dispatches")
    assert not stub._allowed("t", "PUT", "/repos/o/r/pulls/1/merge")            # contents: write
    assert stub._allowed("t", "POST", "/repos/o/r/issues/1/labels")             # pull-requests: write will do
    assert stub._allowed("t", "GET", "/repos/o/r")                              # metadata
    assert stub._allowed("other", "PUT", "/repos/o/r/pulls/1/merge")            # a token not scoped: unchecked
    stub.server.server_close()


def test_a_matrix_shard_as_act_names_it_gets_its_jobs_permissions():
    """act shows a matrix job rendered and numbered (`verify pointers c-d-2`); it gets the scopes declared for
    `verify pointers ${{ matrix.prefix }}` (contents: read), not none -- its checkout fetches with the token."""
    from tests.workflows_act.harness import ROOT
    from tests.workflows_act.permissions import job_permissions, match_job

    scopes = job_permissions(ROOT / ".github" / "workflows", "external-verify.yml")
    shard = match_job(scopes, "external verify/reusable external verify/verify pointers c-d-2")
    assert shard["contents"] == "read" and shard["actions"] == "none"
    record = match_job(scopes, "external verify/reusable external verify/record checked_at (one commit)")
    assert record["contents"] == "write"
    assert match_job(scopes, "external verify/reusable external verify/check the shard list")["contents"] == "none"
    assert match_job(scopes, "something else")["contents"] == "none"
