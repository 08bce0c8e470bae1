"""Which skill folders a run covers, and the registry-wide rule that names are unique: what `validate` shares with
the build, in a module of its own so that validate never imports the build's cache, history and output machinery."""

from __future__ import annotations

import os
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.findings import Finding, error
from skillyard.registry import gitlog
from skillyard.registry.checked import CheckedSkill
from skillyard.registry.config import RegistryConfig
from skillyard.registry.scan import find_skill_folders


def repo_prefix(root: Path) -> str:
    """The registry root's path inside its git repository ('' at the top), so `path` fields are repo-relative."""
    top = gitlog.repo_toplevel(root)
    if top is None:
        return ""
    rel = os.path.relpath(root.resolve(), top.resolve())
    return "" if rel == "." else Path(rel).as_posix() + "/"


def collect(root: Path, config: RegistryConfig, paths: list[str] | None = None, *,
            nested: bool = False) -> list[tuple[str, str]]:
    """(folder, repo-relative path) of every skill under the given paths (default: the skills folder)."""
    prefix = repo_prefix(root)
    root_real = os.path.realpath(root)
    tops = [Path(p) for p in paths] if paths else [config.skills_dir]
    found: dict[str, str] = {}
    for top in tops:
        if not top.exists():
            raise SkillyardError(f"{top}: no such folder.", "Pass a skill folder or a folder of skills.")
        top_str = str(top)
        top_rel = os.path.relpath(os.path.realpath(top), root_real)
        inside = not (top_rel == ".." or top_rel.startswith("../"))
        for folder in find_skill_folders(top, nested=nested):
            if inside:  # string arithmetic, not one realpath per folder: scans of 10,000 skills stay fast
                tail = folder[len(top_str):].lstrip("/")
                rel = prefix + "/".join(p for p in (top_rel, tail) if p and p != ".").replace(os.sep, "/")
            else:
                rel = folder.replace(os.sep, "/")
            found.setdefault(rel, folder)
    return [(found[rel], rel) for rel in sorted(found)]


def add_duplicate_findings(checked: list[CheckedSkill], others: dict[str, str] | None = None) -> None:
    """A skill name must be unique across the registry; each duplicate names the other path."""
    by_name: dict[str, list[str]] = {}
    for item in checked:
        by_name.setdefault(item.name, []).append(item.path)
    for name, path in (others or {}).items():
        if path not in by_name.get(name, []):
            by_name.setdefault(name, []).append(path)
    for item in checked:
        clash = [p for p in by_name.get(item.name, []) if p != item.path]
        if clash:
            item.findings.append(error("duplicate-name", f"The name `{item.name}` is also used by {', '.join(clash)}.",
                                       "Rename one of the skills (folder and `name` field).",
                                       file="SKILL.md", field="name"))
            item.findings.sort(key=Finding.sort_key)
