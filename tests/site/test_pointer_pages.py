"""Pointer skills' pages and served files (issue 26 item 7), built against the GitHub stand-in on 127.0.0.1
serving real git repositories: the upstream body and files appear only when the licence allows redistribution and
every file matched its pinned sha256 at build time; otherwise the page says why. Offline builds say the content
was not fetched; same inputs give the same bytes in either mode."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from tests.site.pointerkit import add_pointers, make_upstreams, pointer_entries, tree_bytes
from tests.site.wellknown import archive_files
from tests.support.gitserver import GitServer

from conftest import CONFIG, SKILLS, write_registry
from skillyard.cli.main import skillyard_main
from skillyard.site import pages

OWN = [s for s in SKILLS if s["name"] == "meeting-notes"]


def build(root, out, work, *, fetch: bool, capsys=None) -> dict:
    argv = ["site", "build", "--root", str(root), "--out", str(out), "--config", str(CONFIG), "--work-dir",
            str(work), "--json"]
    code = skillyard_main(argv + (["--fetch-upstream"] if fetch else []))
    assert code == 0
    return json.loads(capsys.readouterr().out) if capsys else {}


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """One registry (an own skill and three pointers) built twice with the network and twice without."""
    base = tmp_path_factory.mktemp("pointer-site")
    server = GitServer(base / "server").start()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SKILL_GITHUB_CODELOAD_URL", server.url)
        mp.setenv("SKILLCLI_HOME", str(base / "skillcli"))
        mp.setenv("SKILL_HTTP_TIMEOUT", "5")
        mp.delenv("GITHUB_TOKEN", raising=False)
        make_upstreams(server)
        root = base / "root"
        registry = write_registry(root, OWN)
        add_pointers(registry, pointer_entries(server))
        out = {}
        for label, fetch in (("online", True), ("online-again", True), ("offline", False), ("offline-again", False)):
            build(root, base / label, base / f"work-{label}", fetch=fetch)
            out[label] = tree_bytes(base / label)
        # the online site and its work folder (page cache, output trees) rebuilt offline: what a fresh offline
        # build gives, served pointer copies gone from the tree
        build(root, base / "online", base / "work-online", fetch=False)
        out["online-then-offline"] = tree_bytes(base / "online")
        log = [r.path for r in server.log]
    server.stop()
    return {"root": root, "server": server, "trees": out, "log": log}


def page(sites, mode: str, name: str) -> str:
    return sites["trees"][mode][f"skills/{name}/index.html"].decode("utf-8")


def well_known(sites, mode: str) -> dict:
    return json.loads(sites["trees"][mode][".well-known/agent-skills/index.json"])


def test_allowed_licence_and_matching_hashes_show_the_body_and_serve_the_files(sites):
    html = page(sites, "online", "alpha")
    assert "hello from alpha" in html  # the upstream body, rendered
    assert 'data-state="shown"' in html
    served = {s["name"]: s for s in well_known(sites, "online")["skills"]}
    archive = sites["trees"]["online"][".well-known/agent-skills/" + served["alpha"]["url"]]
    assert served["alpha"]["digest"] == "sha256:" + hashlib.sha256(archive).hexdigest()
    files = archive_files(archive)
    assert sorted(files) == ["SKILL.md", "references/notes.md"]
    upstream = sites["server"].repo_path("up", "skills") / "skills/alpha"
    for rel, data in files.items():  # byte-equal to the upstream repository's files, in the archive and one by one
        assert data == (upstream / rel).read_bytes()
        assert sites["trees"]["online"][f".well-known/agent-skills/alpha/{rel}"] == data
    # the body's relative link goes to the served copy, not to a page of ours that does not exist
    assert 'href="../../.well-known/agent-skills/alpha/references/notes.md"' in html


def test_one_tarball_per_repository_and_commit_and_none_for_a_disallowed_licence(sites):
    tarballs = [p for p in sites["log"] if "/tar.gz/" in p]
    assert len(tarballs) == 2  # two networked builds, one tarball of up/skills each (alpha and gamma share it)
    assert all(p.startswith("/up/skills/tar.gz/") for p in tarballs)


def test_a_licence_not_on_the_list_shows_no_body_and_serves_nothing(sites):
    html = page(sites, "online", "beta")
    assert "The beta body is GPL" not in html
    assert 'data-state="licence"' in html
    assert "not on this site&#39;s list of licences" in html
    assert "https://github.com/gpl/tools/tree/" in html  # where to read it instead
    assert "beta" not in {s["name"] for s in well_known(sites, "online")["skills"]}
    assert not any(rel.startswith(".well-known/agent-skills/beta") for rel in sites["trees"]["online"])


def test_a_file_that_differs_from_its_pin_shows_no_body_and_says_which(sites):
    html = page(sites, "online", "gamma")
    assert "The gamma body" not in html
    assert 'data-state="mismatch"' in html
    assert "the upstream file references/notes.md differs from its pinned size and sha256" in html
    assert "gamma" not in {s["name"] for s in well_known(sites, "online")["skills"]}
    assert not any(rel.startswith(".well-known/agent-skills/gamma") for rel in sites["trees"]["online"])


def test_an_offline_build_says_the_content_was_not_fetched_and_serves_no_pointer(sites):
    for name in ("alpha", "gamma"):
        html = page(sites, "offline", name)
        assert "Upstream content not fetched in this build; view it at" in html
        assert f'href="https://github.com/up/skills/tree/{sites["server"].sha("up", "skills")}/skills/{name}"' in html
        assert "hello from alpha" not in html
    assert 'data-state="licence"' in page(sites, "offline", "beta")  # the licence rule needs no network
    assert {s["name"] for s in well_known(sites, "offline")["skills"]} == {"meeting-notes"}
    assert {s["name"] for s in well_known(sites, "online")["skills"]} == {"meeting-notes", "alpha"}


def test_same_inputs_give_byte_identical_sites_in_each_mode(sites):
    trees = sites["trees"]
    assert trees["online"] == trees["online-again"]
    assert trees["offline"] == trees["offline-again"]
    assert trees["online"] != trees["offline"]
    assert trees["online-then-offline"] == trees["offline"]  # the caches never carry one mode into the other


def test_the_page_links_the_upstream_repository_commit_and_tracked_ref(sites):
    html = page(sites, "offline", "alpha")
    sha = sites["server"].sha("up", "skills")
    assert '<a href="https://github.com/up/skills" rel="nofollow noopener">up/skills</a>' in html
    assert f'href="https://github.com/up/skills/commit/{sha}"' in html
    assert re.search(r"<th>Tracks</th><td><code>main</code>", html)
    assert 'data-verified="false"' in html  # no `verified` in this registry.json: the facts, not a warning
    assert f"Pinned at commit <code>{sha[:12]}</code> and hash-checked; not yet reviewed by a maintainer of this " \
        "registry." in html and "Not verified" not in html
    assert "not since it was pinned (no <code>skillyard external verify --record</code>" in html


def test_a_build_with_the_network_gone_is_the_offline_build(tmp_path, monkeypatch, capsys):
    server = GitServer(tmp_path / "server").start()
    make_upstreams(server)
    entries = pointer_entries(server)
    server.stop()  # the port now refuses connections
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", server.url)
    monkeypatch.setenv("SKILLCLI_HOME", str(tmp_path / "skillcli"))
    monkeypatch.setenv("SKILL_HTTP_RETRIES", "0")
    root = tmp_path / "root"
    registry = write_registry(root, OWN)
    add_pointers(registry, entries)
    capsys.readouterr()
    gone = build(root, tmp_path / "gone", tmp_path / "w1", fetch=True, capsys=capsys)
    assert gone["upstream"] == {"licence": 1, "not-fetched": 2}
    assert any("up/skills" in note and "not fetched" in note for note in gone["notes"])  # why, for the operator
    build(root, tmp_path / "offline", tmp_path / "w2", fetch=False)
    assert tree_bytes(tmp_path / "gone") == tree_bytes(tmp_path / "offline")


def _view_skill(**extra) -> dict:
    entry = {"name": "alpha", "description": "Alpha.", "version": "1.0.0", "license": "MIT", "path": "skills/alpha",
             "commit": "a" * 40, "files": [{"path": "SKILL.md", "size": 10, "sha256": "b" * 64}],
             "source_url": "https://ghe.example.com/up/skills",
             "source": {"host": "github", "repository": "up/skills", "tracks": "v*",
                        "raw_url_template": "https://ghe.example.com/raw/up/skills/{commit}/{path}"}}
    return {**entry, **extra}


def test_a_verified_pin_shows_who_approved_it_where_and_when_it_was_last_checked():
    html = pages.render_skill({}, _view_skill(verified=True, verification={
        "approved_by": "octo-maintainer", "approved_in": "https://ghe.example.com/acme/registry/pull/7",
        "approved_at": "2026-05-02T10:00:00Z", "checked_at": "2026-06-01T03:04:05Z"}), "")
    assert 'data-verified="true"' in html and "<strong>Reviewed</strong>: a maintainer of this registry" in html
    assert f"pinned at commit <code>{'a' * 12}</code> and hash-checked." in html
    assert "octo-maintainer" in html and 'href="https://ghe.example.com/acme/registry/pull/7"' in html
    assert '<time datetime="2026-06-01T03:04:05Z">2026-06-01 03:04 UTC</time>' in html
    # links come from registry.json's source_url (a GitHub Enterprise host here), never a hard-coded github.com
    assert f'href="https://ghe.example.com/up/skills/commit/{"a" * 40}"' in html
    assert "github.com" not in html


def test_verification_fields_of_the_wrong_shape_are_not_shown():
    html = pages.render_skill({}, _view_skill(verified="yes", verification={
        "approved_by": "<script>x</script>", "approved_in": "javascript:alert(1)", "checked_at": "yesterday"}), "")
    assert 'data-verified="false"' in html
    assert "javascript:" not in html and "<script>x" not in html and "yesterday" not in html
