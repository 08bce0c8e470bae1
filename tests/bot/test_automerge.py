"""`skillyard bot automerge` against the GitHub stand-in: merges only what the rules allow."""

from __future__ import annotations

import json

import pytest
from botkit import REGISTRY_SLUG, artifact_zip, make_report
from ghstub import Pull

from skillyard.cli.main import skillyard_main

pytestmark = pytest.mark.usefixtures("bot_env")

LABEL_AT = "2026-02-01T12:00:00Z"
BEFORE = "2026-02-01T11:00:00Z"
AFTER = "2026-02-01T13:00:00Z"
UPDATE = [("skills/pdf-tools/SKILL.md", "modified"), ("skills/pdf-tools/scripts/run.py", "modified")]


APPROVED = [{"state": "APPROVED", "submitted_at": LABEL_AT, "user": "maintainer"}]


RUN = 700       # the validate workflow run of a ready PR's head
SUITE = 71      # ...and its check suite


def clean_report(head: str, findings=()) -> dict:
    """The validate report of a ready PR: pdf-tools checked at `head`, with `findings`."""
    doc = make_report([{"name": "pdf-tools", "findings": list(findings)}],
                      changed_paths=[path for path, _ in UPDATE])
    doc["commit"] = head
    return doc


def ready_pr(stub, repo, *, author="alice", files=UPDATE, committed=BEFORE, checks=None, labels=("automerge",),
             reviews=APPROVED, number=30, labeller="maintainer", report=None, run=True) -> Pull:
    """A PR the rules allow: the owner's update, its validate run green with a clean report of its head, other
    checks green, labelled and approved on its head by a maintainer."""
    head = stub.add_commit(repo, date=committed)
    pr = Pull(number, author, head, files=list(files), labels=list(labels),
              events=[{"event": "labeled", "label": name, "created_at": LABEL_AT, "actor": labeller}
                      for name in labels])
    pr.reviews = [dict(r, commit_id=r.get("commit_id", head)) for r in (reviews or [])]
    repo.checks[head] = checks if checks is not None else [
        {"name": "validate / validate changed skills", "status": "completed", "conclusion": "success",
         "suite": SUITE},
        {"name": "tests", "status": "completed", "conclusion": "skipped", "suite": 72}]
    if run:
        repo.runs[RUN] = {"name": "validate", "head_sha": head, "pull_requests": [number], "suite": SUITE}
        repo.artifacts[RUN + 1] = {"run": RUN, "data": artifact_zip(clean_report(head) if report is None else report)}
    repo.pulls[number] = pr
    return pr


def automerge(stub, capsys, *extra) -> dict:
    capsys.readouterr()
    code = skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--pr", "30", "--api-url", stub.base_url,
                           "--json", *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)


def test_green_owner_update_is_merged_at_the_checked_head(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo)
    out = automerge(stub, capsys)
    assert out["merged"] is True and out["reasons"] == []
    [merge] = stub.calls("PUT", r"/pulls/30/merge$")
    assert merge.body["sha"] == pr.head_sha and merge.body["merge_method"] == "squash"
    assert pr.merged
    assert out["merge_commit"] == pr.merge_commit_sha  # the publish workflow the caller then dispatches names it


def test_dry_run_changes_nothing(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo)
    out = automerge(stub, capsys, "--dry-run")
    assert out["merge"] is True and out["merged"] is False
    assert stub.writes() == []


@pytest.mark.parametrize("checks, reason, waiting", [
    ([{"name": "validate", "status": "completed", "conclusion": "failure", "suite": SUITE}],
     "check `validate` concluded failure", False),
    ([{"name": "validate", "status": "in_progress", "conclusion": None, "suite": SUITE}],
     "check `validate` is in_progress", True),
    ([{"name": "tests", "status": "completed", "conclusion": "failure"}], "check `tests` concluded failure", False),
    ([], "workflow run 700 reported no `validate` check run", False),
])
def test_refuses_when_checks_are_not_green_and_says_so(stub, registry_repo, capsys, checks, reason, waiting):
    ready_pr(stub, registry_repo, checks=checks)
    out = automerge(stub, capsys)
    assert out["merged"] is False and any(reason in r for r in out["reasons"])
    assert out["waiting"] is waiting and out["comment"] == "created"
    assert not stub.calls("PUT")
    [comment] = [c for c in registry_repo.comments.values() if c["issue"] == 30]
    assert comment["body"].startswith("<!-- skillyard-bot:automerge -->") and reason in comment["body"]
    assert ("tries again" in comment["body"]) is waiting


def test_refuses_failing_commit_status(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo)
    registry_repo.statuses[pr.head_sha] = [{"context": "ci/legacy", "state": "failure"}]
    out = automerge(stub, capsys)
    assert "the combined commit status is failure" in out["reasons"] and not stub.calls("PUT")


def test_refuses_non_owner(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo, author="carol")
    out = automerge(stub, capsys)
    assert any("does not own skills/pdf-tools" in r for r in out["reasons"]) and not stub.calls("PUT")


NEW_SKILL = [("skills/brand-new/SKILL.md", "added")]


def new_skill_report(head: str) -> dict:
    doc = make_report([{"name": "brand-new", "findings": []}], changed_paths=[path for path, _ in NEW_SKILL])
    doc["commit"] = head
    return doc


def new_skill_pr(stub, repo, **kwargs) -> Pull:
    pr = ready_pr(stub, repo, author="newcomer", files=NEW_SKILL, report={}, **kwargs)
    repo.artifacts[RUN + 1]["data"] = artifact_zip(new_skill_report(pr.head_sha))
    return pr


def test_new_skill_approved_on_its_head_by_the_labelling_maintainer_is_merged(stub, registry_repo, capsys):
    pr = new_skill_pr(stub, registry_repo)
    out = automerge(stub, capsys)
    assert out["merged"] is True and out["reasons"] == []
    [merge] = stub.calls("PUT", r"/pulls/30/merge$")
    assert merge.body["sha"] == pr.head_sha and pr.merged


@pytest.mark.parametrize("reviews, reason", [
    ([], "has not approved the PR"),
    ([{"state": "APPROVED", "submitted_at": LABEL_AT, "user": "maintainer", "commit_id": "0" * 40}],
     "a commit landed after @maintainer's approval"),
    ([{"state": "APPROVED", "submitted_at": LABEL_AT, "user": "bob"}], "has not approved the PR"),
])
def test_new_skill_without_the_labelling_maintainers_approval_of_its_head_is_refused(
        stub, registry_repo, capsys, reviews, reason):
    new_skill_pr(stub, registry_repo, reviews=reviews)
    out = automerge(stub, capsys)
    assert out["merged"] is False and any(reason in r for r in out["reasons"]) and not stub.calls("PUT")


def test_removal_still_needs_a_hand_merge(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo, files=[("skills/pdf-tools/SKILL.md", "removed"),
                                         ("skills/pdf-tools/scripts/run.py", "removed")])
    out = automerge(stub, capsys)
    assert any("removing a skill needs a maintainer" in r for r in out["reasons"]) and not stub.calls("PUT")


def test_refuses_files_outside_skills(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo, files=UPDATE + [(".github/workflows/publish.yml", "modified")])
    out = automerge(stub, capsys)
    assert any("outside skills/" in r for r in out["reasons"]) and not stub.calls("PUT")


def test_commit_after_the_approval_removes_the_label_whatever_its_date(stub, registry_repo, capsys):
    """The new head is back-dated (committer date before the label): the approval's SHA still tells."""
    pr = ready_pr(stub, registry_repo, committed=BEFORE,
                  reviews=[dict(APPROVED[0], commit_id="b" * 40)])
    out = automerge(stub, capsys)
    assert any("a commit landed after @maintainer's approval" in r for r in out["reasons"])
    assert out["label_removed"] is True and "automerge" not in pr.labels
    assert stub.calls("DELETE", r"/issues/30/labels/automerge$") and not stub.calls("PUT")


def test_a_late_committer_date_alone_does_not_block(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo, committed=AFTER)
    out = automerge(stub, capsys)
    assert out["merged"] is True and pr.merged


def test_refuses_without_the_label_and_with_blocking_labels(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo, labels=("needs-maintainer",))
    out = automerge(stub, capsys)
    assert "the `automerge` label is not set" in out["reasons"]
    assert "blocking label(s): needs-maintainer" in out["reasons"]
    assert stub.writes() == []


def test_human_output(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo, author="carol")
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--pr", "30", "--api-url", stub.base_url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PR #30: not merged") and "does not own" in out


def test_pr_found_by_head_sha(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo)
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--head-sha", pr.head_sha,
                           "--api-url", stub.base_url, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pr"] == 30 and out["merged"] is True


def test_skills_dir_decides_what_is_outside(stub, registry_repo, capsys):
    """With `--skills-dir catalog`, an update under skills/ is outside the registry's skill folder: never merged."""
    ready_pr(stub, registry_repo)
    out = automerge(stub, capsys, "--skills-dir", "catalog", "--dry-run")
    assert out["merge"] is False and any("outside catalog/" in r for r in out["reasons"])
    assert automerge(stub, capsys, "--dry-run")["merge"] is True  # the default is skills/


def test_human_output_keeps_a_hostile_file_name_on_its_line(stub, registry_repo, capsys):
    """git allows a line feed in a file name, and GitHub's files API returns it: printed raw in the automerge job's
    log, the rest of the name would start a line of its own, where Actions reads `::command::` lines."""
    ready_pr(stub, registry_repo, files=UPDATE + [("docs/x\n::error title=pwned::owned\x1b[2J.md", "added")])
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--pr", "30", "--api-url", stub.base_url]) == 0
    out = capsys.readouterr().out
    assert out.startswith("PR #30: not merged") and "outside skills/" in out
    assert not any(line.startswith("::") for line in out.splitlines()) and "\x1b" not in out
