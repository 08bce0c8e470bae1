"""Scenario: the scheduled bump. external-bump.yml (through reusable-external-bump.yml) runs on `schedule` on a
registry whose pointer `commit` (getsentry/skills, skills/commit) is pinned one upstream commit behind, its owners
opted in (`registry: {auto_bump: true}`) and the bump PRs opened with a GitHub App token (SKILLYARD_BUMP_TOKEN,
`bump_author` in [tool.skillyard]) so that, under GitHub's rules, validate and then automerge start by themselves.

What GitHub would show: one PR `bump/commit` by the app, its body the change summary, its branch one commit on main
changing only skills/commit/source.yaml to the new pin; validate passes on it; automerge merges it under the bump
rules (no label, no maintainer) and starts publish with the merge commit."""

from __future__ import annotations

import json
import zipfile

import pytest
from tests.workflows_act.sched_support import (
    BUMP_APP_LOGIN,
    BUMP_APP_TOKEN,
    Upstream,
    back_with_git,
    dispatched,
    gh_path,
    push_main,
    readd_at,
    upstream_absent_reason,
)

pytestmark = [pytest.mark.timeout(900),
              pytest.mark.skipif(upstream_absent_reason() is not None, reason=str(upstream_absent_reason()))]

SLUG, FOLDER, NAME = "getsentry/skills", "skills/commit", "commit"
SCHEDULE = "17 4 * * *"


@pytest.fixture
def upstream(tmp_path):
    up = Upstream(tmp_path)
    yield up
    up.stop()


def _behind_registry(sandbox, upstream, *, opted_in: bool) -> str:
    """Main of the origin with skills/commit pinned at the older upstream commit; returns main's commit."""
    readd_at(sandbox, upstream, NAME, SLUG, FOLDER, "older",
             "registry:\n  auto_bump: true\n" if opted_in else "")
    settings = sandbox.work / "pyproject.toml"
    text = settings.read_text()
    anchor = 'skills_dir = "skills"\n'
    assert text.count(anchor) == 1
    settings.write_text(text.replace(anchor, anchor + f'bump_author = "{BUMP_APP_LOGIN}"\n'))
    main = push_main(sandbox, f"pin {NAME} at upstream older; bump PRs come from the app")
    sandbox.standin.tokens[BUMP_APP_TOKEN] = BUMP_APP_LOGIN
    back_with_git(sandbox.standin, sandbox.repo, sandbox.origin)
    return main


def _schedule_payload(sandbox) -> dict:
    return {"schedule": SCHEDULE, "repository": sandbox._repository_json(), "sender": {"login": "github"}}


def _pull_event(sandbox, number: int) -> dict:
    """The `pull_request` (opened) payload GitHub sends for PR `number` of the stand-in."""
    pr = sandbox.repo.pulls[number]
    repo = sandbox._repository_json()
    base = sandbox.repo.refs["heads/main"]
    pull = {"number": number, "title": pr.title, "state": "open", "user": {"login": pr.user}, "body": pr.body,
            "head": {"sha": pr.head_sha, "ref": pr.head_ref, "repo": repo},
            "base": {"sha": base, "ref": "main", "repo": repo},
            "html_url": f"{sandbox.standin.root}/{repo['full_name']}/pull/{number}"}
    return {"action": "opened", "number": number, "pull_request": pull, "repository": repo,
            "sender": {"login": pr.user}}


def test_scheduled_bump_opens_a_validated_pr_that_automerges(sandbox, upstream):
    main = _behind_registry(sandbox, upstream, opted_in=True)
    older, pin = upstream.sha(SLUG, "older"), upstream.sha(SLUG, "pin")
    caller = "external-bump.yml"
    bump = sandbox.act("schedule", caller, _schedule_payload(sandbox), checkout="main",
                       extra=(*upstream.act_flags(), "-s", f"SKILLYARD_BUMP_TOKEN={BUMP_APP_TOKEN}"))
    assert bump.returncode == 0, bump.log[-6000:]
    assert bump.step("Bump every pointer, then open one PR per bumped skill").outcome == "success"

    # GitHub shows one PR, by the app, from bump/commit, its body the change summary.
    (number,) = sandbox.repo.pulls
    pr = sandbox.repo.pulls[number]
    assert (pr.head_ref, pr.user, pr.base_ref) == (f"bump/{NAME}", BUMP_APP_LOGIN, "main")
    assert pr.title == f"Bump {NAME} to {SLUG}@{pin[:12]}"
    assert f"https://github.com/{SLUG}/compare/{older}...{pin}" in pr.body
    assert "- changed `SKILL.md`" in pr.body or "- added `" in pr.body, pr.body
    # ...a real branch in the origin: one commit on main, changing only the pointer, to the new pin.
    head = sandbox.git("ls-remote", "origin", f"refs/heads/bump/{NAME}").split()[0]
    assert head == pr.head_sha
    sandbox.git("fetch", "-q", "origin", f"+refs/heads/bump/{NAME}:refs/remotes/origin/bump/{NAME}")
    assert sandbox.git("rev-parse", f"{head}^") == main
    assert sandbox.git("diff", "--name-only", main, head).splitlines() == [f"skills/{NAME}/source.yaml"]
    assert f"commit: {pin}" in sandbox.git("show", f"{head}:skills/{NAME}/source.yaml")
    assert sandbox.git("ls-remote", "origin", "refs/heads/main").split()[0] == main   # main itself is untouched
    assert pr.files == [(f"skills/{NAME}/source.yaml", "modified")]

    # Opened with the app's token, so GitHub starts validate on it: it passes.
    event = _pull_event(sandbox, number)
    validate = sandbox.act("pull_request", "validate.yml", event, checkout=head, extra=upstream.act_flags())
    assert validate.returncode == 0, validate.log[-6000:]
    (zipped,) = sorted(sandbox.artifacts.rglob("validate-report/*.zip"))
    with zipfile.ZipFile(zipped) as archive:
        report = json.loads(archive.read("report.json"))
    assert report["commit"] == head and report["ok"] is True

    # validate's completion starts automerge (workflow_run): the bump rules hold, so it merges with no label and
    # no maintainer, and starts publish for the merge commit.
    run_event = sandbox.record_validate_run(event, "success")
    sandbox.repo.checks[head] = [{"name": "validate / validate", "status": "completed", "conclusion": "success"}]
    automerge = sandbox.act("workflow_run", "automerge.yml", run_event,
                            checkout="main", extra=gh_path(sandbox.tmp))
    assert automerge.step("Merge if every rule allows it (a check run finished)").outcome == "success", \
        automerge.log[-6000:]
    assert pr.merged and pr.state == "closed", automerge.log[-6000:]
    assert not pr.labels
    assert sandbox.standin.calls("PUT", rf"/pulls/{number}/merge$")
    assert automerge.returncode == 0, automerge.log[-6000:]
    (started,) = dispatched(sandbox.standin, sandbox.repo)
    assert started["workflow"] == "publish.yml" and started["inputs"] == {"merged-commit": pr.merge_commit_sha}


def test_a_bump_whose_owners_did_not_opt_in_waits_for_a_maintainer(sandbox, upstream):
    """The same bump PR without `auto_bump`: validate passes, automerge merges nothing and says why on the PR."""
    _behind_registry(sandbox, upstream, opted_in=False)
    bump = sandbox.act("schedule", "external-bump.yml", _schedule_payload(sandbox),
                       checkout="main",
                       extra=(*upstream.act_flags(), "-s", f"SKILLYARD_BUMP_TOKEN={BUMP_APP_TOKEN}"))
    assert bump.returncode == 0, bump.log[-6000:]
    (number,) = sandbox.repo.pulls
    pr = sandbox.repo.pulls[number]
    sandbox.git("fetch", "-q", "origin", f"+refs/heads/bump/{NAME}:refs/remotes/origin/bump/{NAME}")
    event = _pull_event(sandbox, number)
    validate = sandbox.act("pull_request", "validate.yml", event, checkout=pr.head_sha,
                          extra=upstream.act_flags())
    assert validate.returncode == 0, validate.log[-6000:]
    run_event = sandbox.record_validate_run(event, "success")
    sandbox.repo.checks[pr.head_sha] = [{"name": "validate / validate", "status": "completed",
                                         "conclusion": "success"}]
    automerge = sandbox.act("workflow_run", "automerge.yml", run_event,
                            checkout="main", extra=gh_path(sandbox.tmp))
    assert automerge.returncode == 0, automerge.log[-6000:]
    assert not pr.merged and pr.state == "open"
    (comment,) = [c for c in sandbox.repo.comments.values() if c["issue"] == number]
    assert "have not opted in" in comment["body"]
    assert not dispatched(sandbox.standin, sandbox.repo)
