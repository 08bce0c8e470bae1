"""Find skill folders: a folder holding SKILL.md (or skill.yaml) is a skill; any other folder groups skills.

Skills nested inside another skill are found too, so that a check can report them (their files would otherwise
ship twice).
"""

from __future__ import annotations

import os
from pathlib import Path

SKILL_MARKERS = ("SKILL.md", "skill.md", "skill.yaml")
LEAF_FOLDERS = frozenset({"scripts", "references", "assets", "tests", "config", "node_modules"})


def is_skill_folder(path: str | os.PathLike) -> bool:
    return any(os.path.isfile(os.path.join(path, marker)) for marker in SKILL_MARKERS)


def find_skill_folders(top: str | os.PathLike) -> list[Path]:
    """Every skill folder under `top` (or `top` itself), sorted; hidden folders and links are not entered."""
    top = Path(top)
    found: list[Path] = [top] if is_skill_folder(top) else []
    stack = [str(top)]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        inside_skill = directory != str(top) and is_skill_folder(directory)
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__" or not entry.is_dir(follow_symlinks=False):
                continue
            if inside_skill and entry.name in LEAF_FOLDERS:
                continue  # a skill's own resource folders hold no skills; not entering them keeps scans fast
            if is_skill_folder(entry.path):
                found.append(Path(entry.path))
            stack.append(entry.path)
    return sorted(found, key=lambda p: p.as_posix())
