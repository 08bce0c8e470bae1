"""Placing an installed skill where each chosen target reads it (client/targets.py does one target), and undoing
placements a lock entry records, trusting an entry only where it agrees with the target table.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillyard.errors import SkillyardError


def default_targets(config) -> list[str]:
    raw = config.default_target if config is not None else "claude-code"
    names = raw if isinstance(raw, list) else str(raw).replace(",", " ").split()
    return names or ["claude-code"]


def check_target_paths(name: str, opts, canonical: Path, previous: list[dict]) -> None:
    """Refuse before writing when a target's folder exists and is not ours (a user's own skill)."""
    try:
        from skillyard.client import targets as targets_mod
    except ImportError:
        return
    ours = {os.path.abspath(t["path"]) for t in previous}
    for target in opts.targets:
        targets_mod.get(target)
        if targets_mod.get(target).kind != "dir":
            continue
        path = targets_mod.target_path(name, target, scope=opts.scope, project_root=opts.project_root, home=opts.home)
        if os.path.abspath(path) == os.path.abspath(canonical) or os.path.abspath(path) in ours:
            continue
        if os.path.lexists(path) and not os.path.islink(path) and not (path / targets_mod.COPY_MARKER).is_file():
            raise SkillyardError(f"{path} already exists and was not placed by `skill`; nothing was installed.",
                                 f"Move or delete it, or install with another --target than {target}.")


def place_targets(name: str, canonical: Path, opts) -> list[dict]:
    try:
        from skillyard.client import targets as targets_mod
    except ImportError:  # targets table not available: the canonical copy is the only placement
        return [{"target": "agents", "scope": opts.scope, "path": str(canonical), "mode": "canonical"}]
    placed = []
    for target in opts.targets:
        entry = targets_mod.place(canonical, name, target, scope=opts.scope, project_root=opts.project_root,
                                  home=opts.home, copy=opts.copy)
        placed.append({k: entry[k] for k in ("target", "scope", "path", "mode") if k in entry})
    return placed


def remove_targets(entries: list[dict], *, name: str, root: Path, scope: str, keep: set[str] = frozenset()) -> None:
    """Undo placements (each lock `targets` entry) except those whose path is in `keep`.

    A skill.lock.json can be committed to a project or edited by hand, so an entry is trusted only where it agrees
    with the target table: its path must be the one `target_path` gives for this skill, target and scope, and a
    generated target removes only that target's own file names. Anything else is left alone."""
    try:
        from skillyard.client import targets as targets_mod
    except ImportError:
        return
    for entry in entries:
        if entry.get("mode") not in ("link", "copy", "generated") or os.path.abspath(entry["path"]) in keep:
            continue
        try:
            table = targets_mod.get(str(entry.get("target")))
            expected = targets_mod.target_path(name, table.name, scope=scope, project_root=root, home=root)
        except SkillyardError:
            continue
        if os.path.abspath(entry["path"]) != os.path.abspath(expected):
            continue
        full = {**entry, "path": str(expected)}
        if entry.get("mode") == "generated":
            full["files"] = [str(expected / f) for f in table.files]
        targets_mod.remove(full)
