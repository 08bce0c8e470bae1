"""Bump PRs against the GitHub stand-in through PyGithub: `skillyard bot open-bump-prs` opens one PR per bumped
skill (and refreshes it), and `skillyard bot automerge` decides a bump PR by the bump rules."""

from __future__ import annotations

import copy
import json

import pytest
from botkit import REGISTRY_SLUG, artifact_zip, make_report
from ghstub import Pull, git_blob_sha
from tests.support.cli_schemas import check_output

from skillyard.cli.main import skillyard_main
from skillyard.format.pointer import dump_pointer
from skillyard.format.pointer_change import summarise_change

pytestmark = pytest.mark.usefixtures("bot_env")

PATH = "skills/alpha/source.yaml"
RUN, SUITE = 900, 91


def pointer(commit: str, version: str, *, auto_bump: bool = True, verified: bool = True) -> dict:
    return {"schema_version": 1, "name": "alpha",
            "upstream": {"host": "github", "repository": "up/skills", "path": "skills/alpha", "commit": commit,
                         "tracks": "main"},
            "license": "MIT",
            "skill": {"name": "alpha", "description": "Does alpha things.", "version": version, "license": "MIT"},
            "files": [{"path": "SKILL.md", "size": 100 + len(version), "sha256": commit[0] * 64}],
            "registry": {"auto_bump": auto_bump},
            "verification": {"verified": verified}}


OLD = pointer("1" * 40, "1.0.0")
NEW = dict(pointer("2" * 40, "1.1.0", verified=False))


def cli(stub, capsys, *argv) -> dict:
    capsys.readouterr()
    code = skillyard_main(["bot", *argv, "--repo", REGISTRY_SLUG, "--api-url", stub.base_url, "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return check_output(f"skillyard bot {argv[0]}", code, out)  # schemas/cli/skillyard-bot-<command>.schema.json


def checkout(tmp_path, data: dict):
    """A registry checkout after `external bump` wrote `data`, and its --json results."""
    root = tmp_path / "checkout"
    (root / "skills/alpha").mkdir(parents=True)
    (root / PATH).write_text(dump_pointer(data), encoding="utf-8")
    results = {"ok": True, "dry_run": False, "results": [
        {"name": "alpha", "status": "bumped", "new_commit": data["upstream"]["commit"],
         "summary": summarise_change(OLD, data)},
        {"name": "beta", "status": "current"}]}
    (tmp_path / "bump.json").write_text(json.dumps(results), encoding="utf-8")
    return root


def test_open_bump_prs_opens_one_pr_per_bumped_skill_and_refreshes_it(stub, registry_repo, capsys, tmp_path):
    root = checkout(tmp_path, NEW)
    out = cli(stub, capsys, "open-bump-prs", "--results", str(tmp_path / "bump.json"), "--root", str(root))
    [opened] = out["prs"]
    assert opened["created"] is True and opened["branch"] == "bump/alpha"
    [pr] = registry_repo.pulls.values()
    assert pr.head_ref == "bump/alpha" and pr.base_ref == "main" and "2222222222" in pr.title
    assert "- version `1.0.0` → `1.1.0`" in pr.body and "- changed `SKILL.md` (105 B → 105 B)" in pr.body
    head = registry_repo.refs["heads/bump/alpha"]
    tree = registry_repo.trees[registry_repo.commits[head]["tree"]]
    assert registry_repo.blobs[tree[PATH]["sha"]] == (root / PATH).read_bytes()
    assert "README.md" in tree  # a commit on the default branch's tree, changing only the pointer
    assert registry_repo.commits[head]["parents"] == [registry_repo.refs["heads/main"]]

    newer = pointer("3" * 40, "1.2.0", verified=False)
    root = checkout(tmp_path / "again", newer)
    out = cli(stub, capsys, "open-bump-prs", "--results", str(tmp_path / "again/bump.json"), "--root", str(root))
    assert out["prs"][0]["created"] is False and len(registry_repo.pulls) == 1
    assert "- version `1.0.0` → `1.2.0`" in pr.body
    moved = registry_repo.refs["heads/bump/alpha"]
    assert moved != head

    commits = len(stub.calls("POST", r"/git/commits$"))  # the same bump again: no new commit, no new checks
    out = cli(stub, capsys, "open-bump-prs", "--results", str(tmp_path / "again/bump.json"), "--root", str(root))
    assert out["prs"][0]["unchanged"] is True and out["prs"][0]["created"] is False
    assert registry_repo.refs["heads/bump/alpha"] == moved
    assert len(stub.calls("POST", r"/git/commits$")) == commits and len(registry_repo.pulls) == 1


def test_open_bump_prs_refuses_a_pointer_that_is_not_what_bump_reported(stub, registry_repo, capsys, tmp_path):
    root = checkout(tmp_path, NEW)
    (root / PATH).write_text(dump_pointer(pointer("4" * 40, "9.9.9")), encoding="utf-8")
    capsys.readouterr()
    code = skillyard_main(["bot", "open-bump-prs", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url,
                           "--results", str(tmp_path / "bump.json"), "--root", str(root), "--json"])
    printed = capsys.readouterr()
    assert code != 0 and "not the bumped" in printed.out + printed.err
    check_output("skillyard bot open-bump-prs", code, printed.out)
    assert not registry_repo.pulls and not stub.calls("POST", r"/pulls$")


def bump_pr(stub, repo, base: dict, head: dict, *, author="github-actions[bot]", number=40) -> Pull:
    """An open bump PR from `open-bump-prs`, its validate run green with an ok report of its head."""
    base_bytes, head_bytes = dump_pointer(base).encode(), dump_pointer(head).encode()
    sha = stub.add_commit(repo, files={PATH: head_bytes})
    repo.contents[("main", PATH)] = base_bytes
    repo.contents[(sha, PATH)] = head_bytes
    repo.blobs[git_blob_sha(head_bytes)] = head_bytes
    pr = Pull(number, author, sha, head_ref="bump/alpha", head_repo=REGISTRY_SLUG, files=[(PATH, "modified")])
    repo.checks[sha] = [{"name": "validate / validate changed skills", "status": "completed",
                         "conclusion": "success", "suite": SUITE}]
    report = make_report([{"name": "alpha"}], changed_paths=[PATH])
    report["commit"] = sha
    repo.runs[RUN] = {"name": "validate", "head_sha": sha, "pull_requests": [number], "suite": SUITE,
                      "head_branch": "bump/alpha"}
    repo.artifacts[RUN + 1] = {"run": RUN, "data": artifact_zip(report)}
    repo.pulls[number] = pr
    return pr


def automerge(stub, capsys, *extra) -> dict:
    return cli(stub, capsys, "automerge", "--pr", "40", *extra)


def test_an_opted_in_clean_bump_is_automerged_without_a_label_or_review(stub, registry_repo, capsys):
    pr = bump_pr(stub, registry_repo, OLD, NEW)
    out = automerge(stub, capsys)
    assert out["bump"] is True and out["merged"] is True, out["reasons"]
    [merge] = stub.calls("PUT", r"/pulls/40/merge$")
    assert merge.body["sha"] == pr.head_sha and pr.merged


@pytest.mark.parametrize("change, reason", [
    (lambda base, head: base["registry"].update(auto_bump=False), "have not opted in"),
    (lambda base, head: head.update(license="GPL-3.0-only"), "the licence changed"),
    (lambda base, head: head["upstream"].update(repository="evil/skills"), "`upstream.repository`"),
    (lambda base, head: head.update(findings=[{"rule": "security-pipe-to-shell", "severity": "warning",
                                               "message": "m", "file": "x.sh"}]), "new security finding"),
])
def test_a_bump_breaking_a_rule_waits_for_a_maintainer_and_says_why(stub, registry_repo, capsys, change, reason):
    base, head = copy.deepcopy(OLD), copy.deepcopy(NEW)
    change(base, head)
    pr = bump_pr(stub, registry_repo, base, head)
    out = automerge(stub, capsys)
    assert out["merged"] is False and any(reason in r for r in out["reasons"]), out["reasons"]
    assert not stub.calls("PUT") and not pr.merged
    [comment] = [c for c in registry_repo.comments.values() if c["issue"] == 40]
    assert reason.strip("`") in comment["body"]


def test_a_bump_branch_by_someone_else_is_not_automerged(stub, registry_repo, capsys):
    bump_pr(stub, registry_repo, OLD, NEW, author="mallory")
    out = automerge(stub, capsys)
    assert out["merged"] is False and any("not by the bump bot" in r for r in out["reasons"])
    out = automerge(stub, capsys, "--bump-author", "mallory", "--dry-run")
    assert out["merge"] is True  # the bot's login is a setting (a GitHub App token opens PRs as `<app>[bot]`)


def test_the_bump_author_comes_from_the_registry_settings(stub, registry_repo, capsys, tmp_path):
    bump_pr(stub, registry_repo, OLD, NEW, author="acme-bumper[bot]")
    (tmp_path / "pyproject.toml").write_text('[tool.skillyard]\nbump_author = "acme-bumper[bot]"\n', encoding="utf-8")
    assert automerge(stub, capsys, "--dry-run")["merge"] is False
    assert automerge(stub, capsys, "--dry-run", "--root", str(tmp_path))["merge"] is True


def test_the_pr_body_shows_upstream_text_inert():
    from skillyard.bot.bump_render import bump_body

    hostile = dict(NEW, files=[{"path": "[click](https://evil.example)", "size": 1, "sha256": "e" * 64}],
                   findings=[{"rule": "security-hidden-comment", "severity": "warning", "file": "SKILL.md",
                              "message": "<!-- x --> ![img](https://evil.example/i.png) `tick`"}])
    body = bump_body(summarise_change(OLD, hostile))
    assert "- added `[click](https://evil.example)` (1 B)" in body
    assert "`` <!-- x --> ![img](https://evil.example/i.png) `tick` ``" in body
    assert "new security finding(s): a maintainer reviews this bump" in body
