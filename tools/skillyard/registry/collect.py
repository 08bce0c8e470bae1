"""Which skill folders a run covers, and the registry-wide rule that names are unique: what `validate` shares with
the build, in a module of its own so that validate never imports the build's cache, history and output machinery."""

from __future__ import annotations

import os
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.findings import Finding, error
from skillyard.parallel import map_chunked
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


MANY_TOPS = 200  # paths given at once from which their scans are shared among processes


def collect(root: Path, config: RegistryConfig, paths: list[str] | None = None, *,
            nested: bool = False) -> list[tuple[str, str]]:
    """(folder, repo-relative path) of every skill under the given paths (default: the skills folder).

    Hundreds of paths (`validate` given every folder of a corpus) are scanned by forked processes too; one folder
    of skills is scanned here, and looks inside its skills with them (`scan.find_skill_folders`)."""
    prefix = repo_prefix(root)
    root_real = os.path.realpath(root)
    root_inside = root_real if root_real.endswith(os.sep) else root_real + os.sep
    tops = [_path_string(p) for p in paths] if paths else [str(config.skills_dir)]
    for top in tops:
        if not os.path.exists(top):
            raise SkillyardError(f"{top}: no such folder.", "Pass a skill folder or a folder of skills.")
    jobs = os.cpu_count() or 1
    many = len(tops) >= MANY_TOPS and jobs > 1
    parents: dict[str, str] = {}  # real paths of the paths' parent folders: one realpath per folder of skills

    def scan(top: str) -> tuple[str, list[str]]:
        return _real_path(top, parents), find_skill_folders(top, nested=nested, jobs=1 if many else jobs)

    found: dict[str, str] = {}
    for top_str, (top_real, folders) in zip(tops, map_chunked(scan, tops, workers=jobs if many else 1), strict=True):
        inside = top_real == root_real or top_real.startswith(root_inside)
        top_rel = (top_real[len(root_inside):] or ".") if inside and top_real != root_real else "."
        for folder in folders:
            if inside:  # string arithmetic, not one realpath per folder: scans of 10,000 skills stay fast
                tail = folder[len(top_str):].lstrip("/")
                rel = prefix + "/".join(p for p in (top_rel, tail) if p and p != ".").replace(os.sep, "/")
            else:
                rel = folder.replace(os.sep, "/")
            found.setdefault(rel, folder)
    return [(found[rel], rel) for rel in sorted(found)]


def _path_string(path: str) -> str:
    """`str(Path(path))`, without making a Path (~12 µs each, 8 ms of a 683-folder validate before its work is
    shared out) when the string is already in that form: a POSIX path that `normpath` leaves as it is (and that does
    not start with `//`, which the two keep differently) is one `Path` leaves as it is too."""
    path = str(path)
    if os.sep == "/" and path and not path.startswith("//") and os.path.normpath(path) == path:
        return path
    return str(Path(path))


def _real_path(path: str, parents: dict[str, str]) -> str:
    """`os.path.realpath(path)`, with the parent folder's real path computed once for all its children (`validate`
    given 600 skill folders side by side): when the last part is no link, the real path is the parent's plus it."""
    head, tail = os.path.split(path)
    if tail in ("", ".", "..") or os.path.islink(path):
        return os.path.realpath(path)
    if head not in parents:
        parents[head] = os.path.realpath(head or os.curdir)
    return os.path.join(parents[head], tail)


def add_duplicate_findings(checked: list[CheckedSkill], others: dict[str, str] | None = None) -> None:
    """A skill name must be unique across the registry; each duplicate names the other path."""
    by_name: dict[str, list[str]] = {}
    for item in checked:
        by_name.setdefault(item.name, []).append(item.path)
    for name, path in (others or {}).items():
        if path not in by_name.get(name, []):
            by_name.setdefault(name, []).append(path)
    shared = {name for name, used_by in by_name.items() if len(used_by) > 1}
    for item in checked:
        if item.name not in shared:
            continue
        clash = [p for p in by_name[item.name] if p != item.path]
        if clash:
            item.findings.append(error("duplicate-name", f"The name `{item.name}` is also used by {', '.join(clash)}.",
                                       "Rename one of the skills (folder and `name` field).",
                                       file="SKILL.md", field="name"))
            item.findings.sort(key=Finding.sort_key)
