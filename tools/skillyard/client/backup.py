"""Backups of installed skills a user edited, taken before `--force` lets a command delete or overwrite them.

An installed skill's lock lists every file `skill` wrote; a file that differs, is missing or was added is the
user's work. Commands refuse to delete such work without `--force`, and with it they first copy the whole folder
here, beside (never inside) the skills folder, so agents that scan `.agents/skills/*/SKILL.md` never load a backup:

    <scope root>/.agents/skill-backups/<name>-<UTC time>[-<n>]/
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from skillyard.client import store

BACKUPS_SUBDIR = Path(".agents") / "skill-backups"


def backups_dir(root: Path) -> Path:
    return Path(root) / BACKUPS_SUBDIR


def keep_copy(root: Path, name: str, *, now: float | None = None) -> Path:
    """Copy the installed folder of `name` (links kept as links) to a new backup folder; return its path. Never
    overwrites an earlier backup: a second one in the same second gets a numbered name."""
    source = store.canonical_dir(root, store.check_name(name))
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    parent = backups_dir(root)
    parent.mkdir(parents=True, exist_ok=True)
    dest = parent / f"{name}-{stamp}"
    number = 1
    while dest.exists():
        number += 1
        dest = parent / f"{name}-{stamp}-{number}"
    partial = parent / f".{dest.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial, symlinks=True)
    partial.rename(dest)  # a kill half-way leaves only a dot-named partial copy, never a backup that looks whole
    return dest
