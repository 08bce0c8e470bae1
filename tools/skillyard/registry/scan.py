"""Find skill folders: a folder holding SKILL.md (or skill.yaml, or a pointer's source.yaml) is a skill; any other
folder groups skills.

A skill nested inside another skill ships twice; the outer skill's package check reports it.
"""

from __future__ import annotations

import os

from skillyard.format.paths import MAX_DEPTH
from skillyard.parallel import map_chunked

SKILL_MARKERS = ("SKILL.md", "skill.md", "skill.yaml", "source.yaml")  # (source.yaml: a pointer entry)
LEAF_FOLDERS = frozenset({"scripts", "references", "assets", "tests", "config", "node_modules"})


def is_skill_folder(path: str | os.PathLike) -> bool:
    return any(os.path.isfile(os.path.join(path, marker)) for marker in SKILL_MARKERS)


NESTED_PARALLEL = 2000  # skill folders from which looking inside for more is worth forking for


def find_skill_folders(top: str | os.PathLike, *, nested: bool = False, jobs: int = 1) -> list[str]:
    """Every skill folder under `top` (or `top` itself) as a path string, sorted; hidden folders and links are not
    entered.

    With `nested`, skills inside other skills are listed too (a skill's own package check reports them either way):
    each skill folder is looked inside on its own (`jobs` processes share that work when there are many), exactly as
    one walk from `top` would. Without it a skill folder costs one `stat` (and no Path object), which keeps scans of
    10,000 skills fast. A folder `MAX_DEPTH` levels down is listed whatever it holds and not entered: its path is
    refused by the path rule when it is checked, so a hostile tree is reported, never walked to the bottom or
    silently skipped.
    """
    top = os.fspath(top)
    outer = _outer_skill_folders(top)
    found = [path for path, _ in outer]
    if nested:
        inside = [(path, depth) for path, depth in outer if depth is not None]
        workers = jobs if len(inside) >= NESTED_PARALLEL else 1
        for more in map_chunked(_skills_inside, inside, workers=workers):
            found += more
    return sorted(found, key=lambda p: p.replace(os.sep, "/"))


def _subfolders(directory: str) -> list[os.DirEntry]:
    """The folders a scan enters: not hidden, not `__pycache__`, not links; none when the folder cannot be read."""
    try:
        with os.scandir(directory) as entries:
            return [entry for entry in entries if not entry.name.startswith(".") and entry.name != "__pycache__"
                    and entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def _outer_skill_folders(top: str) -> list[tuple[str, int | None]]:
    """(skill folder, its depth below `top`) of every skill not inside another one; the depth is None for a folder
    listed at the depth limit without looking at it."""
    if is_skill_folder(top):
        return [(top, 0)]
    found: list[tuple[str, int | None]] = []
    stack = [(top, 0)]
    while stack:
        directory, depth = stack.pop()
        for entry in _subfolders(directory):
            if depth + 1 >= MAX_DEPTH:
                found.append((entry.path, None))
            elif is_skill_folder(entry.path):
                found.append((entry.path, depth + 1))
            else:
                stack.append((entry.path, depth + 1))
    return found


def _skills_inside(skill: tuple[str, int]) -> list[str]:
    """The skill folders inside one skill folder found `depth` levels below the top: what a walk from the top would
    find under it (its own resource folders hold no skills; depth counts from the top).

    Each folder is listed once: the listing that yields its subfolders also says whether it holds a marker, so a
    folder costs one `scandir` instead of that plus a `stat` per marker (`is_skill_folder`)."""
    folder, start = skill
    found: list[str] = []
    stack = [(folder, True, start)]
    while stack:
        directory, is_skill, depth = stack.pop()
        if is_skill is None:  # a subfolder: a skill when its own listing holds a marker
            subfolders, is_skill = _listing(directory)
            if is_skill:
                found.append(directory)
        else:
            subfolders = _subfolders(directory)
        for entry in subfolders:
            if is_skill and entry.name in LEAF_FOLDERS:
                continue  # a skill's own resource folders hold no skills
            if depth + 1 >= MAX_DEPTH:
                found.append(entry.path)
                continue
            stack.append((entry.path, None, depth + 1))
    return found


_MARKER_NAMES = frozenset(SKILL_MARKERS)
_FOLDED_MARKERS = frozenset(marker.casefold() for marker in SKILL_MARKERS)


def _listing(directory: str) -> tuple[list[os.DirEntry], bool]:
    """(`_subfolders(directory)`, `is_skill_folder(directory)`) from one listing. A marker is a file or a link to
    one, as `os.path.isfile` says; a name that only matches a marker case-insensitively (a file system that folds
    case would open it) and a folder that cannot be listed are asked of `is_skill_folder` itself."""
    try:
        with os.scandir(directory) as listing:
            entries = list(listing)
    except OSError:
        return [], is_skill_folder(directory)
    subfolders = []
    is_skill = False
    folded = False
    for entry in entries:
        name = entry.name
        if name in _MARKER_NAMES:
            is_skill = is_skill or entry.is_file()
        elif name.casefold() in _FOLDED_MARKERS:
            folded = True
        if not name.startswith(".") and name != "__pycache__" and entry.is_dir(follow_symlinks=False):
            subfolders.append(entry)
    if folded and not is_skill:
        is_skill = is_skill_folder(directory)
    return subfolders, is_skill
