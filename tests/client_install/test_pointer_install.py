"""`skill install NAME` of a pointer entry: the registry (built by `skillyard build` from a source.yaml that
`skillyard external add` wrote) is served from one repository, the files from the skill's own repository at the
pinned commit; every file's size and sha256 are checked."""

from __future__ import annotations

import json
import stat

import pytest
from tests.support.gitserver import git
from tests.support.registry import registry_url, skill_md

from skillyard.errors import SkillyardError

UPSTREAM = {
    "skills/alpha/SKILL.md": skill_md("alpha", "Does alpha things. Use when the user asks for alpha.",
                                      version="2.1.0", license="MIT"),
    "skills/alpha/scripts/run.sh": "#!/bin/sh\necho alpha\n",
    "skills/alpha/references/notes.md": "# Notes\n\nSee the steps.\n",
}


@pytest.fixture
def pointer_registry(git_server, monkeypatch, capsys):
    """up/skills (the upstream) and acme/reg (a registry listing its skills/alpha by pointer, built and committed)."""
    from skillyard.cli.main import skillyard_main

    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    git_server.create_repo("up", "skills", UPSTREAM)
    script = "skills/alpha/scripts/run.sh"
    sha = git_server.commit("up", "skills", {script: UPSTREAM[script]}, executable=(script,), message="exec")
    git_server.create_repo("acme", "reg", {"skillyard.toml": 'name = "acme"\nrepository = "acme/reg"\n'})
    root = git_server.repo_path("acme", "reg")
    assert skillyard_main(["external", "add", "github:up/skills/skills/alpha", "--root", str(root)]) == 0, \
        capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="pointer")
    assert skillyard_main(["build", "--root", str(root)]) == 0, capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="build")
    registry = json.loads((root / "registry.json").read_text())
    return registry, sha


def test_install_of_a_pointer_entry_is_byte_equal_to_upstream(git_server, pointer_registry, configure, skill_cli,
                                                              user_home):
    registry, sha = pointer_registry
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    git_server.clear_log()
    result = skill_cli("install", "alpha", "--json")
    assert result.code == 0, result.err
    folder = user_home / ".agents" / "skills" / "alpha"
    upstream = git_server.repo_path("up", "skills")
    for rel in UPSTREAM:
        assert (folder / rel.removeprefix("skills/alpha/")).read_bytes() == git(upstream, "show", f"{sha}:{rel}")
    assert (folder / "scripts/run.sh").stat().st_mode & stat.S_IXUSR
    fetched = [r.path for r in git_server.log if r.path.startswith("/up/skills/")]
    assert sorted(fetched) == sorted(f"/up/skills/{sha}/{rel}" for rel in UPSTREAM)  # from upstream, at the pin
    lock = json.loads((folder / "skill.lock.json").read_text())
    assert lock["resolved_source"]["commit"] == sha and lock["resolved_source"]["path"] == "skills/alpha"


def test_a_file_swapped_upstream_after_add_is_refused_naming_it(git_server, pointer_registry, configure, skill_cli,
                                                                user_home):
    _, sha = pointer_registry
    git_server.serve_raw("up", "skills", sha, "skills/alpha/references/notes.md", b"# Notes\n\nRun curl | sh.\n")
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    result = skill_cli("install", "alpha")
    assert result.code != 0
    assert "references/notes.md" in result.err and "nothing was installed" in result.err
    assert not (user_home / ".agents" / "skills" / "alpha").exists()


def test_a_client_that_predates_pointers_refuses_the_entry_loudly(git_server, pointer_registry, skill_home):
    """Clients before pointer entries fetch `raw_url_template` of the registry with the entry's `commit` and
    `path + "/" + file` (registry-json.md). For a pointer entry that names the upstream commit and folder inside
    the registry's repository: nothing is there, and the download fails naming the file, before anything is
    written. (Had the registry's repository held other bytes there, the sha256 check would refuse them.)"""
    from skillyard.client.config import load_config
    from skillyard.client.install import fetch_files
    from skillyard.client.resolve import raw_template

    registry, _ = pointer_registry
    entry = next(s for s in registry["skills"] if s["name"] == "alpha")
    config = load_config()
    old_template = raw_template(registry, config)  # what an old client reads: the registry's own template

    def old_url(rel: str) -> str:
        return old_template.replace("{commit}", entry["commit"]).replace("{path}", f"{entry['path']}/{rel}")

    with pytest.raises(SkillyardError) as caught:
        fetch_files("alpha", entry["files"], old_url, config, token=None, what="alpha")
    assert "/acme/reg/" in caught.value.message and "404" in caught.value.message


def test_a_pointer_entry_with_a_bad_template_is_refused_before_download(pointer_registry):
    from skillyard.client.resolve import entry_problems

    registry, _ = pointer_registry
    entry = next(s for s in registry["skills"] if s["name"] == "alpha")
    assert entry_problems(entry) == []
    for bad in ({"raw_url_template": "https://evil.example/{path}"},
                {"raw_url_template": "http://raw.githubusercontent.com/up/skills/{commit}/{path}"}):
        assert entry_problems({**entry, "source": {**entry["source"], **bad}})
    assert entry_problems({**entry, "commit": "main"})
