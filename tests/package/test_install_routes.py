"""Every install route the README gives, tried as a user would against the locally built wheel: `pip install` into
a fresh venv (the base install, no extras, dependencies from the package index), `pipx install`, `uv tool
install`, and pip from a git URL of a clone. Each runs `skill --version`, `skillyard --version` and real commands.

The base install must carry what its commands import: `skill publish` (PyGithub) works with no extra, dry run and
against the GitHub stand-in (tests/bot/ghstub.py) alike. A route whose tool or packages cannot be fetched from the
package index is skipped with the reason; everything else is asserted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.bot.ghstub import GitHubStandIn
from tests.package.conftest import REPO, fresh_venv, install_or_skip, isolated_env, run_ok

pytestmark = pytest.mark.slow
VERSION_LINE = {"skill", "skillyard"}

SKILL_MD = """---
name: tidy-notes
description: Turns rough meeting notes into a tidy summary with owners and dates. Use when the user pastes notes.
license: MIT
---

# Tidy notes

1. Read the notes.
2. Write one line per decision, with its owner and date.
"""
SKILL_YAML = 'schema_version: "1.0"\nversion: 1.0.0\nauthor: carol\ntags:\n  - notes\n'


def make_skill(root: Path) -> Path:
    folder = root / "tidy-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "skill.yaml").write_text(SKILL_YAML, encoding="utf-8")
    return folder


def check_tools(bindir: Path, env: dict, cwd: Path) -> None:
    """Both tools answer --version with the package's version, and one real command works."""
    from skillyard import __version__

    for tool in ("skill", "skillyard"):
        out = run_ok([str(bindir / tool), "--version"], cwd, env).stdout.split()
        assert out == [tool, __version__]
    folder = make_skill(cwd / "work")
    report = json.loads(run_ok([str(bindir / "skillyard"), "validate", str(folder), "--json"], cwd, env).stdout)
    assert report["ok"] is True and report["skills"][0]["name"] == "tidy-notes", report
    listed = run_ok([str(bindir / "skill"), "validate", str(folder)], cwd, env)
    assert "tidy-notes" in listed.stdout


def test_pip_base_install_runs_both_tools_and_publish(index_installed, tmp_path):
    bindir, env = index_installed.bindir, index_installed.env
    check_tools(bindir, env, tmp_path)
    where = run_ok([str(bindir / "python"), "-c", "import skillyard; print(skillyard.__file__)"], tmp_path, env)
    assert not Path(where.stdout.strip()).resolve().is_relative_to(REPO)
    extras = run_ok([str(bindir / "python"), "-m", "pip", "list", "--format=json"], tmp_path, env).stdout
    assert "mkdocs" not in extras  # the base install: no extra came along

    skill = str(bindir / "skill")
    assert "--dry-run" in run_ok([skill, "publish", "--help"], tmp_path, env).stdout
    folder = make_skill(tmp_path / "mine")
    plan = json.loads(run_ok([skill, "publish", str(folder), "--dry-run", "--json"], tmp_path, env).stdout)
    assert plan["branch"] == "skill/tidy-notes-1.0.0"

    stub = GitHubStandIn(tokens={"author-token": "carol"}).start()
    try:
        repo = stub.add_repo("skillyard/registry")
        repo.refs["heads/main"] = stub.add_commit(repo, files={"README.md": b"# registry\n"})
        sent = subprocess.run([skill, "publish", str(folder), "--api-url", stub.base_url],
                              cwd=tmp_path, env={**env, "GITHUB_TOKEN": "author-token"},
                              capture_output=True, text=True, timeout=120)
        assert sent.returncode == 0, sent.stderr
        assert "No module named" not in sent.stderr
        assert sent.stdout.strip() == f"Opened {stub.root}/skillyard/registry/pull/1"
        assert len(repo.pulls) == 1
    finally:
        stub.stop()


def _tool_from_index(name: str, base: Path) -> Path:
    """`name` on PATH, or installed from the package index into a venv of its own (skipped when unreachable)."""
    found = shutil.which(name)
    if found:
        return Path(found)
    bindir = fresh_venv(base / f"{name}-venv")
    install_or_skip([str(bindir / "python"), "-m", "pip", "install", "-q", name], base, isolated_env(base),
                    f"pip install {name}")
    return bindir / name


def test_pipx_install_of_the_wheel(dists, tmp_path):
    pipx = _tool_from_index("pipx", tmp_path)
    env = isolated_env(tmp_path)
    bindir = tmp_path / "pipx-bin"
    env.update(PIPX_HOME=str(tmp_path / "pipx-home"), PIPX_BIN_DIR=str(bindir), PIPX_MAN_DIR=str(tmp_path / "man"))
    install_or_skip([str(pipx), "install", str(dists.wheel)], tmp_path, env, "pipx install WHEEL")
    check_tools(bindir, env, tmp_path)


def test_uv_tool_install_of_the_wheel(dists, tmp_path):
    uv = _tool_from_index("uv", tmp_path)
    env = isolated_env(tmp_path)
    bindir = tmp_path / "uv-bin"
    env.update(UV_TOOL_DIR=str(tmp_path / "uv-tools"), UV_TOOL_BIN_DIR=str(bindir),
               UV_CACHE_DIR=str(tmp_path / "uv-cache"), UV_PYTHON_DOWNLOADS="never", UV_NATIVE_TLS="1")
    install_or_skip([str(uv), "tool", "install", "--python", shutil.which("python3") or "python3", str(dists.wheel)],
                    tmp_path, env, "uv tool install WHEEL")
    check_tools(bindir, env, tmp_path)


def test_pip_install_from_a_git_url_with_the_site_extra(tmp_path):
    """The route that works before any release: `pip install "skillyard[site] @ git+URL"` (a clone, by file URL)."""
    clone = tmp_path / "clone"
    run_ok(["git", "clone", "-q", "--no-local", str(REPO), str(clone)], tmp_path, isolated_env(tmp_path))
    bindir = fresh_venv(tmp_path / "venv")
    env = isolated_env(tmp_path, bindir)
    # file://localhost/...: the pip that venv bundles (23.x) refuses a git+file:/// URL with an empty host
    url = f"git+file://localhost{clone.as_posix()}"
    install_or_skip([str(bindir / "python"), "-m", "pip", "install", "-q", f"skillyard[site] @ {url}"],
                    tmp_path, env, "pip install skillyard[site] @ git+file://")
    check_tools(bindir, env, tmp_path)
    run_ok([str(bindir / "python"), "-c", "import mkdocs, nh3, cmarkgfm"], tmp_path, env)  # the extra came along
    assert os.path.isfile(bindir / "mkdocs")
