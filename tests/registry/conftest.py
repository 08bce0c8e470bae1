from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "Test",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "GIT_CONFIG_NOSYSTEM": "1"}

PYPROJECT = """\
[tool.skillyard]
name = "test-registry"
description = "A registry for tests."
repository = "acme/skills"
required_fields = ["version", "license", "tags"]
"""


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(root)}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout.strip()


def skill_text(name: str, version: str = "1.0.0", description: str | None = None, extra: str = "") -> str:
    """A portable SKILL.md (the standard's keys only); its registry fields are `manifest_text(version)`."""
    description = description or f"Does {name} things. Use when the user needs {name}."
    return f'---\nname: {name}\ndescription: "{description}"\nlicense: MIT\n{extra}---\n# {name}\n\nSteps.\n'


def manifest_text(version: str = "1.0.0", extra: str = "") -> str:
    """The skill.yaml beside `skill_text`'s SKILL.md (the decided split); `extra` adds registry fields."""
    return f'schema_version: "1.0"\nversion: "{version}"\ntags:\n  - testing\nauthor: ada\n{extra}'


def write_skill(folder: Path, name: str | None = None, *, version: str = "1.0.0", extra: str = "", **kwargs) -> Path:
    """Write SKILL.md and skill.yaml into `folder` (created if needed); `extra` registry fields go to skill.yaml."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_text(name or folder.name, version=version, **kwargs), encoding="utf-8")
    (folder / "skill.yaml").write_text(manifest_text(version, extra), encoding="utf-8")
    return folder


class Repo:
    def __init__(self, root: Path):
        self.root = root

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def add_skill(self, name: str, group: str = "", **kwargs) -> Path:
        return write_skill(self.root / f"skills/{group}{name}", name, **kwargs)

    def commit(self, message: str = "change", date: str = "2026-01-02T03:04:05+00:00") -> str:
        git(self.root, "add", "-A")
        git(self.root, "commit", "-q", "-m", message, date=date)
        return git(self.root, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Repo:
    root = tmp_path / "registry"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    r = Repo(root)
    r.write("pyproject.toml", PYPROJECT)
    monkeypatch.delenv("CI", raising=False)
    return r
