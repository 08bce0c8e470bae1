"""Issue 24 item 10: the static-registry recipe serves a tree holding only what clients need.

`skillyard build --serve-dir DIR` writes registry.json, index.json, the sparse index and the listed skill files into
a real folder: no `.git/`, caches or settings. A registry made by `init-registry --host static` is served from it by
a loopback HTTP server, and `skill source add` + `skill install` work against it.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler

import pytest
from tests.registry.conftest import git
from tests.support.fixtures import *  # noqa: F403 (the client fixtures: skill_home, skill_cli)
from tests.support.loopback import LoopbackHTTPServer

from skillyard.cli.main import skillyard_main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = skillyard_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def static_registry(tmp_path, monkeypatch, capsys):
    """`init-registry --host static`, committed: the recipe's starting point."""
    monkeypatch.delenv("CI", raising=False)
    root = tmp_path / "team-skills"
    assert run(capsys, "init-registry", str(root), "--host", "static")[0] == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "A new registry")
    return root


def tree_of(folder) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}


def test_the_served_tree_holds_only_what_clients_fetch(static_registry, capsys):
    root = static_registry
    code, out, err = run(capsys, "build", "--root", str(root), "--serve-dir", str(root / "_registry"), "--json")
    assert code == 0, err
    served = root / "_registry"
    assert served.is_dir() and not served.is_symlink()
    files = tree_of(served)
    assert json.loads(out)["served"]["files"] == len(files)
    registry = json.loads((served / "registry.json").read_text(encoding="utf-8"))
    listed = {f"{s['path']}/{f['path']}" for s in registry["skills"] for f in s["files"]}
    assert listed == {"skills/changelog-entry/SKILL.md", "skills/changelog-entry/skill.yaml"}
    assert files - listed - {"registry.json", "index.json"} == {f for f in files if f.startswith("sparse/")}
    assert "sparse/index.json" in files
    assert not any(part.startswith(".") for f in files for part in f.split("/"))  # no .git, no caches
    assert not {"pyproject.toml", "mkdocs.yml", "README.md", "AGENTS.md"} & files
    assert not any(os.path.islink(served / f) for f in files)
    assert (served / "registry.json").read_bytes() == (root / "registry.json").read_bytes()
    assert git(root, "status", "--porcelain", "--ignored", "_registry").startswith("!!")  # init ignores it


def test_skill_source_add_and_install_from_the_served_tree(static_registry, capsys, skill_home, skill_cli, tmp_path):
    root = static_registry
    assert run(capsys, "build", "--root", str(root), "--serve-dir", str(root / "_registry"))[0] == 0
    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root / "_registry")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        assert skill_cli("source", "add", f"{base}/registry.json", "--name", "team").code == 0
        result = skill_cli("install", "changelog-entry", "--json")
        assert result.code == 0, result.err
        installed = tmp_path / "userhome" / ".agents" / "skills" / "changelog-entry" / "SKILL.md"
        assert installed.read_bytes() == (root / "skills/changelog-entry/SKILL.md").read_bytes()
        assert not [p for p in _Quiet.paths if p.startswith(("/.git", "/pyproject", "/.skillyard"))]
        import urllib.error
        import urllib.request

        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{base}/.git/config")  # the repository is not served
    finally:
        server.shutdown()
        server.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    paths: list[str] = []

    def log_message(self, *args) -> None:
        _Quiet.paths.append(self.path)


def test_a_second_build_replaces_the_tree_whole(static_registry, capsys):
    root = static_registry
    served = root / "_registry"
    assert run(capsys, "build", "--root", str(root), "--serve-dir", str(served))[0] == 0
    (root / "skills/changelog-entry/references").mkdir()
    (root / "skills/changelog-entry/references/style.md").write_text("# Style\n", encoding="utf-8")
    assert run(capsys, "build", "--root", str(root), "--serve-dir", str(served))[0] == 0
    assert "skills/changelog-entry/references/style.md" in tree_of(served)
    (root / "skills/changelog-entry/references/style.md").unlink()
    assert run(capsys, "build", "--root", str(root), "--serve-dir", str(served))[0] == 0
    assert "skills/changelog-entry/references/style.md" not in tree_of(served)
    assert sorted(p.name for p in root.iterdir() if p.name.startswith("._registry")) == []  # no staging left


@pytest.mark.parametrize("where", [".", "skills", "skills/new", "other"])
def test_a_folder_that_is_not_a_served_tree_is_refused_untouched(static_registry, capsys, where):
    root = static_registry
    (root / "other").mkdir()
    (root / "other" / "keep.txt").write_text("mine\n")
    before = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--ignored"], capture_output=True,
                            text=True).stdout
    code, out, err = run(capsys, "build", "--root", str(root), "--serve-dir", str(root / where), "--no-cache")
    assert code == 1 and "fix:" in err and "--serve-dir" in err
    assert (root / "other" / "keep.txt").read_text() == "mine\n"
    assert not (root / where / "registry.json").exists() or where == "."
    assert not (root / "registry.json").exists()  # refused before anything was written
    assert subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--ignored"], capture_output=True,
                          text=True).stdout == before


def test_a_host_that_pins_by_commit_has_no_served_tree(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    root = tmp_path / "gh"
    assert run(capsys, "init-registry", str(root), "--repository", "acme/skills")[0] == 0
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "A new registry")
    code, out, err = run(capsys, "build", "--root", str(root), "--serve-dir", str(root / "_registry"))
    assert code == 1 and "fetched by commit" in err and "--host static" in err
    assert not (root / "_registry").exists()
