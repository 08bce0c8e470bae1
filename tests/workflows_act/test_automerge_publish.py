"""A new skill's whole way, driven by GitHub's event rules (events.py): the PR opens -> validate -> pr-bot's comment
and labels (and automerge, which waits for its label) -> a maintainer approves and adds `automerge` -> automerge
merges with the Actions token (which starts no push workflow) and dispatches publish -> publish records
verification, rebuilds registry.json and index.json, builds the site artifact and deploys it."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile

import pytest
from tests.workflows_act.harness import BOT_LOGIN
from tests.workflows_act.test_validate import NEW_SKILL

pytestmark = pytest.mark.timeout(900)


def _comments(sandbox, number: int) -> list[dict]:
    return [c for c in sandbox.repo.comments.values() if c["issue"] == number]


def test_a_new_skill_is_merged_by_automerge_and_published(sandbox):
    number, opened = sandbox.open_pr("add-greeting-card", NEW_SKILL, title="Add greeting-card")
    validate = opened.run("validate.yml")
    assert validate.conclusion == "success", validate.result.log[-4000:]
    bot = opened.run("pr-bot.yml")
    assert bot.conclusion == "success", bot.result.log[-4000:]
    assert bot.event.payload["workflow_run"]["id"] == validate.id
    pr = sandbox.repo.pulls[number]
    assert "new-skill" in pr.labels and not {"invalid", "security-finding", "needs-maintainer"} & set(pr.labels)
    (comment,) = _comments(sandbox, number)
    assert comment["user"] == BOT_LOGIN and "greeting-card" in comment["body"]
    # automerge ran on validate's completion too, and merged nothing: nobody asked for it yet.
    assert opened.run("automerge.yml").conclusion == "success" and not pr.merged
    # The bot's labels were added with the Actions token: GitHub starts nothing for them.
    assert "pull_request_target.labeled on refs/heads/main by github-actions[bot] (GITHUB_TOKEN): starts nothing" \
        in opened.explain()

    before = sandbox.origin_head()
    sandbox.approve(number)
    chain = sandbox.add_label(number, "automerge")
    automerge = chain.run("automerge.yml")
    assert automerge.conclusion == "success", automerge.result.log[-4000:]
    assert pr.merged and sandbox.origin_head() == pr.merge_commit_sha != before
    assert f"started publish.yml for the merge commit {pr.merge_commit_sha}" in automerge.result.log
    # The merge (Actions token) started no push run; the dispatch did start publish, for the merge commit.
    assert "push on refs/heads/main by github-actions[bot] (GITHUB_TOKEN): publish.yml not started" in chain.explain()
    publish = chain.run("publish.yml")
    assert publish.event.name == "workflow_dispatch" and publish.event.by_token
    assert publish.event.payload["inputs"] == {"merged-commit": pr.merge_commit_sha}
    assert publish.conclusion == "success", publish.result.log[-6000:]
    assert publish.result.step("Record maintainer approvals").outcome == "success"
    assert publish.result.step("Rebuild registry.json").outcome == "success"
    assert sandbox.standin.refused == []

    # What is published: the registry on main (the publish job's push), and the site artifact it deployed.
    registry = json.loads(sandbox.origin_file("registry.json"))
    names = [s["name"] for s in registry["skills"]]
    assert "greeting-card" in names
    assert "greeting-card" in sandbox.origin_file("index.json").decode()
    assert sandbox.git("log", "-1", "--format=%s", sandbox.origin_head()).startswith("registry: rebuild")
    (site_zip,) = sorted((sandbox.artifacts / str(publish.id)).glob("github-pages/*.zip"))
    with zipfile.ZipFile(site_zip) as archive:
        tar_bytes = archive.read("artifact.tar")
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        members = tar.getnames()
    assert any("greeting-card" in m for m in members), members[:40]
    (deployment,) = sandbox.repo.deployments
    assert deployment["build_version"] == publish.head_sha
    # The publish job's own push is by the Actions token too: it started nothing (no publish loop).
    assert [r.workflow for r in chain.runs].count("publish.yml") == 1, chain.explain()
