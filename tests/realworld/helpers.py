"""Shared by the real-world tests and their conftest (one module, so the counts tests record are the ones the
closing summary prints): how to run a tool, what a pointer is, what an install must hold."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from tests.support.upstream_standin import UpstreamStandin

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
QUIET = {"DISABLE_TELEMETRY": "1", "DO_NOT_TRACK": "1", "DISABLE_AUTOUPDATER": "1", "CI": "1", "NO_COLOR": "1",
         "npm_config_update_notifier": "false", "GITHUB_TOKEN": "", "SKILL_GITHUB_TOKEN": "",
         "SKILL_DEFAULT_SOURCE": "none"}
COUNTS: dict[str, str] = {}  # what each path reached, printed at the end ("97/97 installed", ...)


def run(argv: list, *, cwd: Path | None = None, env: dict | None = None, timeout: int = 900):
    """Run a command as a user would (text output captured), with the session's quiet environment."""
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **QUIET, **(env or {})})


def tool(name: str) -> str:
    """The venv's console script (`skillyard`, `skill`), as a user runs it."""
    found = BIN / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder_files(folder: Path, *, skip=("skill.lock.json", ".git/", ".in_use/")) -> dict[str, bytes]:
    """path -> bytes of every file under `folder` (hidden ones included: upstream ships .gitignore files), without
    the lockfile `skill install` adds, a git client's .git folder and Claude Code's `.in_use/<pid>` markers."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and not any(rel == s or (s.endswith("/") and rel.startswith(s)) for s in skip):
            out[rel] = path.read_bytes()
    return out


@dataclass
class Pointer:
    name: str
    repository: str
    path: str
    commit: str
    source: dict = field(repr=False)


def load_pointers(root: Path = REPO) -> list[Pointer]:
    found = []
    for file in sorted((root / "skills").glob("*/source.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        up = data["upstream"]
        found.append(Pointer(data["name"], up["repository"], up["path"], up["commit"], data))
    return found


def own_skills(root: Path = REPO) -> list[str]:
    return sorted(p.parent.name for p in (root / "skills").glob("*/SKILL.md"))


GIT_ID = {"GIT_AUTHOR_NAME": "realworld", "GIT_AUTHOR_EMAIL": "realworld@skillyard.invalid",
          "GIT_COMMITTER_NAME": "realworld", "GIT_COMMITTER_EMAIL": "realworld@skillyard.invalid"}


def commit_all(root: Path, message: str) -> None:
    for argv in (["git", "add", "-A"], ["git", "commit", "-qm", message, "--allow-empty"]):
        done = run(argv, cwd=root, env=GIT_ID)
        assert done.returncode == 0, done.stdout + done.stderr


@dataclass
class Registry:
    root: Path
    url: str  # registry.json as GitHub's raw host serves it (the stand-in)
    data: dict


def expected_files(standin: UpstreamStandin, registry: Registry, name: str, pointer: Pointer | None, *,
                   hidden: bool = False) -> dict:
    """What an install of `name` must hold: the pin's folder out of the upstream tarball, or our own folder.
    Hidden files (a dot in any component: terraform-policy's .gitignore) are not part of a skill by the format's
    rule (`format.paths.is_hidden`: never published or installed); `hidden=True` keeps them, for a client that
    checks out the upstream folder whole (Claude Code's git sources)."""
    from skillyard.format.paths import is_hidden

    if pointer is not None:
        files = {rel: data for rel, (data, _) in standin.upstream(pointer.repository).trees["pin"]
                 .folder(pointer.path).items()}
    else:
        files = folder_files(registry.root / "skills" / name)
    return {rel: data for rel, data in files.items() if hidden or not is_hidden(rel)}
