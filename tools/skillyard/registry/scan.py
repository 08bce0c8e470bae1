"""Find skill folders: a folder holding SKILL.md (or skill.yaml) is a skill; any other folder groups skills.

A skill nested inside another skill ships twice; the outer skill's package check reports it.
"""

from __future__ import annotations

import os

from skillyard.format.paths import MAX_DEPTH

SKILL_MARKERS = ("SKILL.md", "skill.md", "skill.yaml")
LEAF_FOLDERS = frozenset({"scripts", "references", "assets", "tests", "config", "node_modules"})


def is_skill_folder(path: str | os.PathLike) -> bool:
    return any(os.path.isfile(os.path.join(path, marker)) for marker in SKILL_MARKERS)


def find_skill_folders(top: str | os.PathLike, *, nested: bool = False) -> list[str]:
    """Every skill folder under `top` (or `top` itself) as a path string, sorted; hidden folders and links are not
    entered.

    With `nested`, skills inside other skills are listed too (a skill's own package check reports them either way).
    Without it a skill folder costs one `stat` (and no Path object), which keeps scans of 10,000 skills fast.
    A folder `MAX_DEPTH` levels down is listed whatever it holds and not entered: its path is refused by the path
    rule when it is checked, so a hostile tree is reported, never walked to the bottom or silently skipped.
    """
    top = os.fspath(top)
    top_is_skill = is_skill_folder(top)
    found: list[str] = [top] if top_is_skill else []
    stack = [(top, top_is_skill, 0)] if (nested or not top_is_skill) else []
    while stack:
        directory, inside_skill, depth = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__" or not entry.is_dir(follow_symlinks=False):
                continue
            if inside_skill and entry.name in LEAF_FOLDERS:
                continue  # a skill's own resource folders hold no skills
            if depth + 1 >= MAX_DEPTH:
                found.append(entry.path)
                continue
            is_skill = is_skill_folder(entry.path)
            if is_skill:
                found.append(entry.path)
            if nested or not is_skill:
                stack.append((entry.path, is_skill, depth + 1))
    return sorted(found, key=lambda p: p.replace(os.sep, "/"))
