"""Fixtures for runtime and target tests: skill folders written on the fly, HOME moved into tmp_path."""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import pytest

from skillyard import runtime

REPO = Path(__file__).resolve().parents[2]


def make_skill(parent: Path, name: str, description: str = "Does a thing. Use when a thing is needed.", *,
               body: str = "Follow the steps.\n", mtime: float | None = None, extra: str = "",
               folder: str | None = None) -> Path:
    folder_path = parent / (folder or name)
    folder_path.mkdir(parents=True, exist_ok=True)
    text = f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n{body}"
    (folder_path / "SKILL.md").write_text(text, encoding="utf-8")
    if mtime is not None:
        os.utime(folder_path / "SKILL.md", (mtime, mtime))
    return folder_path


def example_skill(tmp: Path) -> Path:
    """A runnable skill with a script that answers --help, like the repository's examples."""
    folder = make_skill(tmp, "hello-tool", "Greets people by name. Use when asked to say hello.",
                        extra="version: \"1.0.0\"\nlicense: MIT\ntags: [demo]\ncapabilities: [read-file, execute-code]\n",
                        body="Run `python scripts/hello.py NAME`.\nSee references/notes.md.\n")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "hello.py").write_text(textwrap.dedent('''\
        """Say hello."""
        import argparse
        import pathlib
        parser = argparse.ArgumentParser(description="Say hello")
        parser.add_argument("name", nargs="?", default="world")
        args = parser.parse_args()
        data = (pathlib.Path(__file__).resolve().parent.parent / "references" / "notes.md").read_text()
        print(f"hello {args.name} ({len(data)})")
        '''), encoding="utf-8")
    (folder / "references").mkdir()
    (folder / "references" / "notes.md").write_text("# Notes\n\nGreet warmly.\n", encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SKILLCLI_HOME", str(home / ".skillcli"))
    monkeypatch.setenv("SKILLYARD_RUNTIME_CACHE", str(tmp_path / "runtime-cache"))
    monkeypatch.delenv("SKILL_PATH", raising=False)
    monkeypatch.delenv("SKILL_PERMISSIONS", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    runtime.invalidate(False)
    yield
    runtime.invalidate(False)


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def hello(tmp_path) -> Path:
    return example_skill(tmp_path / "src")


def copy_skill(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest)
    return dest
