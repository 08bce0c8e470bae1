"""A skill's whole way, driven by GitHub's event rules (events.py): the PR opens -> validate -> pr-bot's comment
and labels (and automerge, which waits for its label) -> a maintainer approves and adds `automerge` -> automerge
merges with the Actions token (which starts no push workflow) and dispatches publish -> publish records
verification, rebuilds registry.json and index.json, builds the site artifact and deploys it.

Issue 36's scenario is a new skill: the labelling maintainer's approval of its head is the review a new skill
needs, so automerge merges it and its author, as its skill.yaml names them, owns it in the published registry. The
second scenario runs the same chain for an update of a skill its author owns."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile

import pytest
from tests.workflows_act.harness import BOT_LOGIN
from tests.workflows_act.test_validate import GOOD, META, NEW_SKILL

from skillyard.bot.decide import owners_from_registry

pytestmark = pytest.mark.timeout(900)


def _comments(sandbox, number: int) -> list[dict]:
    return [c for c in sandbox.repo.comments.values() if c["issue"] == number]


def site_members(sandbox, publish) -> list[str]:
    """The files of the site artifact a publish run uploaded (upload-pages-artifact: a tar inside the zip)."""
    (site_zip,) = sorted((sandbox.artifacts / str(publish.id)).glob("github-pages/*.zip"))
    with zipfile.ZipFile(site_zip) as archive:
        tar_bytes = archive.read("artifact.tar")
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        return tar.getnames()


def _assert_published(sandbox, publish, skill: str, version: str) -> None:
    """What publish leaves: registry.json / index.json on main (its own push), the site artifact it deployed."""
    assert publish.conclusion == "success", publish.result.log[-6000:]
    assert publish.result.step("Record maintainer approvals").outcome == "success"
    assert publish.result.step("Rebuild registry.json").outcome == "success"
    registry = json.loads(sandbox.origin_file("registry.json"))
    entry = {s["name"]: s for s in registry["skills"]}.get(skill)
    assert entry is not None and entry.get("version") == version, entry
    assert skill in sandbox.origin_file("index.json").decode()
    assert sandbox.git("log", "-1", "--format=%s", sandbox.origin_head()).startswith("registry: rebuild")
    members = site_members(sandbox, publish)
    assert any(skill in m for m in members), members[:40]
    (deployment,) = sandbox.repo.deployments
    assert deployment["build_version"] == publish.head_sha
    assert sandbox.standin.refused == []


def _automerged_and_dispatched(sandbox, chain, pr, before: str):
    """automerge merged `pr` (Actions token: no push run follows) and its dispatch started publish for the merge
    commit; the publish run."""
    automerge = chain.run("automerge.yml")
    assert automerge.conclusion == "success", automerge.result.log[-4000:]
    assert pr.merged and pr.merge_commit_sha != before, _comments(sandbox, pr.number)
    assert f"started publish.yml for the merge commit {pr.merge_commit_sha}" in automerge.result.log
    assert "push on refs/heads/main by github-actions[bot] (GITHUB_TOKEN): publish.yml not started" in chain.explain()
    publish = chain.run("publish.yml")
    assert publish.event.name == "workflow_dispatch" and publish.event.by_token, chain.explain()
    assert publish.event.payload["inputs"] == {"merged-commit": pr.merge_commit_sha}
    return publish


def test_a_new_skill_approved_and_labelled_is_automerged_and_published(sandbox):
    number, opened = sandbox.open_pr("add-greeting-card", NEW_SKILL, title="Add greeting-card")
    validate = opened.run("validate.yml")
    assert validate.conclusion == "success", validate.result.log[-4000:]
    assert validate.result.step("Fail when a changed skill is invalid").outcome == "success"
    pr = sandbox.repo.pulls[number]
    # The report artifact validate uploaded records the PR's head and the one skill it changed.
    (report_zip,) = sorted((sandbox.artifacts / str(validate.id)).glob("validate-report/*.zip"))
    with zipfile.ZipFile(report_zip) as archive:
        report = json.loads(archive.read("report.json"))
    assert report["commit"] == pr.head_sha and report["ok"] is True
    assert [s["name"] for s in report["skills"]] == ["greeting-card"]
    # validate's check run is on the head commit, named as GitHub names a reusable workflow's job.
    assert {"name": "validate / validate changed skills", "status": "completed", "conclusion": "success",
            "suite": validate.id} in sandbox.repo.checks[pr.head_sha]
    bot = opened.run("pr-bot.yml")
    assert bot.conclusion == "success", bot.result.log[-4000:]
    assert bot.event.payload["workflow_run"]["id"] == validate.id
    # pr-bot downloaded that run's artifact through the API (the download redirect followed, no token sent there).
    assert sandbox.standin.calls("GET", rf"/actions/runs/{validate.id}/artifacts")
    assert sandbox.standin.blob_requests and not any(b["authorization"] for b in sandbox.standin.blob_requests)
    assert "new-skill" in pr.labels and not {"invalid", "security-finding", "needs-maintainer"} & set(pr.labels)
    (comment,) = _comments(sandbox, number)
    assert comment["user"] == BOT_LOGIN and "greeting-card" in comment["body"]
    # automerge ran on validate's completion too, and merged nothing: nobody asked for it yet.
    assert opened.run("automerge.yml").conclusion == "success" and not pr.merged
    # The bot's labels were added with the Actions token: GitHub starts nothing for them.
    assert "pull_request_target.labeled on refs/heads/main by github-actions[bot] (GITHUB_TOKEN): starts nothing" \
        in opened.explain()

    # A maintainer approves the head and adds `automerge`: automerge merges with the Actions token, so GitHub
    # starts no push workflow for the merge, and automerge dispatches publish for the merge commit itself.
    before = sandbox.origin_head()
    sandbox.approve(number)
    chain = sandbox.add_label(number, "automerge")
    publish = _automerged_and_dispatched(sandbox, chain, pr, before)
    _assert_published(sandbox, publish, "greeting-card", "1.0.0")
    # The new skill's author (its skill.yaml: carol) owns it as the published registry records it, so the PR bot
    # and automerge treat carol's next update as an owner's.
    registry = json.loads(sandbox.origin_file("registry.json"))
    entry = {s["name"]: s for s in registry["skills"]}["greeting-card"]
    assert (entry.get("author"), entry.get("maintainers")) == ("carol", ["carol"]), entry
    assert "carol" in owners_from_registry(registry)["skills/greeting-card"]
    # publish's own push (the rebuilt registry, Actions token) started nothing: no publish loop.
    assert [r.workflow for r in chain.runs].count("publish.yml") == 1, chain.explain()


UPDATED = GOOD.replace("write four warm lines.", "write four warm lines, and offer a shorter one.")


def test_an_owners_update_is_automerged_and_automerge_starts_publish(sandbox):
    """The chain a static test missed: automerge merges with the Actions token (no push run follows), so it must
    dispatch publish itself; publish then runs for the merge commit."""
    sandbox.seed_main(NEW_SKILL, "Add greeting-card")
    files = {"skills/greeting-card/SKILL.md": UPDATED,
             "skills/greeting-card/skill.yaml": META.replace('version: "1.0.0"', 'version: "1.1.0"')}
    number, opened = sandbox.open_pr("greeting-card-shorter", files, title="greeting-card: a shorter card")
    assert opened.run("validate.yml").conclusion == "success"
    assert opened.run("pr-bot.yml").conclusion == "success"
    pr = sandbox.repo.pulls[number]
    assert "skill-update" in pr.labels and "needs-maintainer" not in pr.labels, pr.labels

    before = sandbox.origin_head()
    sandbox.approve(number)
    chain = sandbox.add_label(number, "automerge")
    publish = _automerged_and_dispatched(sandbox, chain, pr, before)
    _assert_published(sandbox, publish, "greeting-card", "1.1.0")
    assert [r.workflow for r in chain.runs].count("publish.yml") == 1, chain.explain()


def test_a_pr_merged_by_hand_is_published_by_the_maintainers_push(sandbox):
    """A maintainer merges a new skill's PR with the merge button (their own token, not the Actions token). GitHub
    ran the PR's workflows when it opened: validate passed, pr-bot commented and labelled it, automerge (nobody
    asked) merged nothing. The merge is a person's push to main, which GitHub delivers to `push` workflows, so
    publish.yml starts for it by itself (no dispatch), rebuilds and deploys; its own push of the rebuilt registry
    (Actions token) starts nothing."""
    number, opened = sandbox.open_pr("add-greeting-card", NEW_SKILL, author="carol", title="Add greeting-card")
    pr = sandbox.repo.pulls[number]
    validate = opened.run("validate.yml")
    assert validate.conclusion == "success", validate.result.log[-4000:]
    assert validate.event.name == "pull_request" and validate.head_sha == pr.head_sha
    assert {"name": "validate / validate changed skills", "status": "completed", "conclusion": "success",
            "suite": validate.id} in sandbox.repo.checks[pr.head_sha]
    bot = opened.run("pr-bot.yml")
    assert bot.conclusion == "success" and bot.event.payload["workflow_run"]["id"] == validate.id, \
        bot.result.log[-4000:]
    assert "new-skill" in pr.labels and not {"invalid", "security-finding", "needs-maintainer"} & set(pr.labels)
    (comment,) = _comments(sandbox, number)
    assert comment["user"] == BOT_LOGIN and "greeting-card" in comment["body"]
    assert opened.run("automerge.yml").conclusion == "success" and not pr.merged
    assert not opened.started("publish.yml"), opened.explain()

    sandbox.approve(number)
    before = sandbox.origin_head()
    chain = sandbox.merge_by_hand(number)
    assert pr.merged and pr.merge_commit_sha != before
    # the merge (a person's push to main) starts ci.yml (recorded, not executed) and publish.yml
    assert sorted(r.workflow for r in chain.runs if r.event.name == "push") == ["ci.yml", "publish.yml"], \
        chain.explain()
    publish = chain.run("publish.yml")
    assert publish.event.name == "push" and not publish.event.by_token, chain.explain()
    assert publish.event.actor == "maintainer" and publish.head_sha == pr.merge_commit_sha
    assert not sandbox.standin.calls("POST", r"/actions/workflows/.*/dispatches")
    _assert_published(sandbox, publish, "greeting-card", "1.0.0")
    assert "push on refs/heads/main by github-actions[bot] (GITHUB_TOKEN): publish.yml not started" in chain.explain()
    assert [r.workflow for r in chain.runs].count("publish.yml") == 1, chain.explain()
    # every run of the scenario, in order: the PR's, then the merge's
    assert [r.workflow for r in sandbox.runs].index("publish.yml") > [r.workflow for r in sandbox.runs].index(
        "pr-bot.yml")
