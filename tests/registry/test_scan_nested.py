"""registry.scan: looking inside each skill folder on its own (and in forked processes when there are many) finds
exactly what one walk from the top finds, depth limit, resource folders, hidden folders and links included."""

from __future__ import annotations

import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.paths import MAX_DEPTH
from skillyard.registry import scan


def one_walk(top: str, nested: bool) -> list[str]:
    """The specification: a single walk from `top` (the scan as it was before it was split)."""
    top_is_skill = scan.is_skill_folder(top)
    found = [top] if top_is_skill else []
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
            if inside_skill and entry.name in scan.LEAF_FOLDERS:
                continue
            if depth + 1 >= MAX_DEPTH:
                found.append(entry.path)
                continue
            is_skill = scan.is_skill_folder(entry.path)
            if is_skill:
                found.append(entry.path)
            if nested or not is_skill:
                stack.append((entry.path, is_skill, depth + 1))
    return sorted(found)


NAMES = ["a", "b", "scripts", "assets", ".hidden", "__pycache__", "node_modules", "x"]
folder_paths = st.lists(st.lists(st.sampled_from(NAMES), min_size=1, max_size=MAX_DEPTH + 2).map("/".join),
                        min_size=1, max_size=12)
# A marker is a file (or a link to one): a folder or a dangling link of that name is not, nor a name that differs in
# case (on this file system); `source.yaml` is a pointer's.
markers = st.sampled_from(["SKILL.md", "skill.yaml", "skill.md", "source.yaml", "dir:SKILL.md", "link:skill.md",
                           "dangling:SKILL.md", "Skill.md", None, None])


@settings(max_examples=150, deadline=None)
@given(folder_paths, st.lists(markers, min_size=12, max_size=12), st.booleans(), st.booleans())
def test_split_scan_finds_what_one_walk_finds(paths, marks, top_is_skill, many) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        top = os.path.join(tmp, "skills")
        os.makedirs(top)
        if top_is_skill:
            open(os.path.join(top, "SKILL.md"), "w").close()
        for path, marker in zip(paths, marks, strict=False):
            folder = os.path.join(top, path)
            os.makedirs(folder, exist_ok=True)
            kind, _, name = (marker or "").rpartition(":")
            if not name or os.path.lexists(os.path.join(folder, name)):
                continue
            if kind == "dir":
                os.makedirs(os.path.join(folder, name), exist_ok=True)
            elif kind == "link":
                open(os.path.join(folder, "real.md"), "a").close()
                os.symlink("real.md", os.path.join(folder, name))
            elif kind == "dangling":
                os.symlink("missing.md", os.path.join(folder, name))
            else:
                open(os.path.join(folder, name), "w").close()
        os.symlink(os.path.join(top, paths[0]), os.path.join(top, "link"))  # never entered
        saved = scan.NESTED_PARALLEL
        scan.NESTED_PARALLEL = 1 if many else saved  # force the forked path on small trees too
        try:
            for nested in (False, True):
                assert scan.find_skill_folders(top, nested=nested, jobs=2) == one_walk(top, nested)
        finally:
            scan.NESTED_PARALLEL = saved


def test_depth_counts_from_the_top_inside_nested_skills(tmp_path) -> None:
    """A skill one level down holding a chain of folders: the folder at the limit is listed unlooked-at, the one
    above it only when it is a skill, exactly where one walk from the top puts the limit."""
    top = tmp_path / "skills"
    outer = top / "outer"
    outer.mkdir(parents=True)
    (outer / "SKILL.md").touch()
    chain = outer
    for level in range(2, MAX_DEPTH + 2):
        chain = chain / f"d{level}"
        chain.mkdir()
        if level in (MAX_DEPTH - 2, MAX_DEPTH - 1):
            (chain / "SKILL.md").touch()
    for many in (False, True):
        saved = scan.NESTED_PARALLEL
        scan.NESTED_PARALLEL = 1 if many else saved
        try:
            found = scan.find_skill_folders(str(top), nested=True, jobs=2)
        finally:
            scan.NESTED_PARALLEL = saved
        assert found == one_walk(str(top), True)
        depths = sorted(len(os.path.relpath(f, top).split(os.sep)) for f in found)
        assert depths == [1, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH]
