"""Where each agent runtime reads skills, and how one installed copy reaches all of them.

The targets are a data table, not code per runtime. Every scope (project or user) keeps ONE canonical copy of a
skill at `<scope root>/.agents/skills/<name>/` (the shared convention that Codex, Cursor, Gemini CLI, Copilot,
OpenCode, Amp and others read). A target whose folder differs gets a relative symlink to that copy, or a full copy
when links are impossible or `copy=True`. API targets (openai, anthropic-api, gemini-api) have no folder a runtime
reads; for them `place()` generates the provider files into `<scope root>/.agents/emit/<target>/<name>/`, outside
the skill folder so the installed files still match the lockfile byte for byte.

Installed Python packages can add API-like targets (entry point group `skillyard.targets`, see client/adapters.py):
`get()` and `all_targets()` include them; the built-in table is never replaced by one.

A copy is marked with a `.skillyard-placed` file naming the canonical folder, so a later `place()` may replace it
and `remove()` deletes only folders it made; a folder someone else put there is never overwritten.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from skillyard.client.emit import emit, generate  # noqa: F401 - emit places API targets; both are public here
from skillyard.client.target_lookup import all_targets, get, unsupported_capabilities  # noqa: F401
from skillyard.client.target_table import (  # noqa: F401 - the table's names are part of this module's interface
    CANONICAL,
    CAPABILITIES,
    COPY_MARKER,
    EMIT_DIR,
    GENERATED_MARKER,
    SCOPES,
    TARGETS,
    TEMP_PREFIX,
    Target,
    mcp_function_name,
    mcp_tools,
)
from skillyard.errors import SkillyardError
from skillyard.fsutil import write_atomic


def scope_root(scope: str, *, project_root: Path, home: Path) -> Path:
    if scope not in SCOPES:
        raise SkillyardError(f"unknown scope {scope!r}", "Use scope 'project' or 'user'.")
    return Path(project_root if scope == "project" else home)


def canonical_path(name: str, *, scope: str, project_root: Path, home: Path) -> Path:
    return scope_root(scope, project_root=project_root, home=home) / CANONICAL / name


def target_path(name: str, target: str, *, scope: str, project_root: Path, home: Path) -> Path:
    """Where `target` reads (dir targets) or receives generated files (api targets) for skill `name`."""
    t = get(target)
    root = scope_root(scope, project_root=project_root, home=home)
    if t.kind == "api":
        return root / EMIT_DIR / t.name / name
    return root / t.folder(scope) / name


# --------------------------------------------------------------------------------------------------- placing


def place(canonical_dir: Path, name: str, target: str, *, scope: str, project_root: Path, home: Path,
          copy: bool = False) -> dict:
    """Make the canonical copy visible to `target`; returns the entry `remove()` needs to undo exactly this."""
    t = get(target)
    canonical_dir = Path(canonical_dir)
    path = target_path(name, target, scope=scope, project_root=project_root, home=home)
    entry = {"target": t.name, "scope": scope, "path": str(path)}
    if t.kind == "api":
        before = _generated_names(path) if path.is_dir() and not os.path.islink(path) else []
        files = emit(canonical_dir, target, path)
        current = {str(f) for f in files}
        # a file the previous version generated and this one does not (mcp_deps.json after the deps went away)
        _remove_files(path, [name for name in before if name not in current])
        # The lock records no file names (it may be edited by hand); this list, inside the folder, lets `remove()`
        # find what varies per skill (mcp_deps.json, a plugin's files) and never anything else.
        names = sorted(os.path.relpath(f, path).replace(os.sep, "/") for f in files)
        write_atomic(path / GENERATED_MARKER, json.dumps({"files": names}) + "\n")
        return {**entry, "mode": "generated", "files": [str(f) for f in files]}
    if _same(path, canonical_dir):
        return {**entry, "mode": "canonical"}
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep_temps(path)
    _check_replaceable(path, canonical_dir)
    if not copy:
        try:
            _link(canonical_dir, path)
            return {**entry, "mode": "link"}
        except OSError:
            pass  # no symlinks here (Windows without developer mode, some network shares): copy instead
    _copy_tree(canonical_dir, path)
    return {**entry, "mode": "copy"}


def _temp(path: Path, kind: str) -> Path:
    return path.parent / f"{TEMP_PREFIX}{path.name}-{kind}-{os.getpid()}-{os.urandom(4).hex()}"


def _sweep_temps(path: Path) -> None:
    """Delete what an interrupted placement of this skill left beside it (run under the store lock)."""
    for leftover in path.parent.glob(f"{TEMP_PREFIX}{path.name}-*"):
        if os.path.islink(leftover) or not leftover.is_dir():
            leftover.unlink(missing_ok=True)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def _same(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def _check_replaceable(path: Path, canonical_dir: Path) -> None:
    if not os.path.lexists(path) or os.path.islink(path):
        return
    if path.is_dir() and (path / COPY_MARKER).is_file():
        return
    raise SkillyardError(f"{path} already exists and was not placed by `skill`",
                         "Move or delete it, or install for another --target.")


def _link(canonical_dir: Path, path: Path) -> None:
    relative = os.path.relpath(os.path.abspath(canonical_dir), os.path.abspath(path.parent))
    temp = _temp(path, "link")
    os.symlink(relative, temp, target_is_directory=True)
    try:
        if os.path.lexists(path) and not os.path.islink(path):
            _swap_out(path)
        os.replace(temp, path)
    except OSError:
        os.unlink(temp)
        raise


def _copy_tree(canonical_dir: Path, path: Path) -> None:
    temp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{path.name}-copy-", dir=path.parent))
    try:
        shutil.copytree(canonical_dir, temp / "tree", symlinks=True,
                        ignore=shutil.ignore_patterns(COPY_MARKER))
        (temp / "tree" / COPY_MARKER).write_text(json.dumps({"canonical": str(canonical_dir)}) + "\n",
                                                 encoding="utf-8")
        if os.path.islink(path):
            os.unlink(path)
        elif os.path.lexists(path):
            _swap_out(path)
        os.rename(temp / "tree", path)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _swap_out(path: Path) -> None:
    """Move an old copy aside and delete it, so the new one appears in one rename."""
    old = _temp(path, "old")
    os.rename(path, old)
    shutil.rmtree(old, ignore_errors=True)


def _generated_names(path: Path) -> list[str]:
    """The files `place()` listed in a generated folder; names failing the shared path rule are ignored."""
    from skillyard.format.paths import path_problem

    marker = path / GENERATED_MARKER
    try:
        if os.path.islink(marker) or marker.stat().st_size > 1024 * 1024:
            return []
        names = json.loads(marker.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError, RecursionError):  # the marker may come with a project's checkout
        return []
    return [str(path / n) for n in names if isinstance(n, str) and path_problem(n) is None][:1000]


def _remove_files(path: Path, names) -> None:
    """Delete regular files inside `path` (never through a link), then the sub-folders they leave empty."""
    real = os.path.realpath(path)
    folders = set()
    for name in names:
        file = Path(name)
        if (os.path.commonpath([real, os.path.realpath(file.parent)]) == real and file.parent != file
                and os.path.lexists(file) and not os.path.islink(file) and file.is_file()):
            file.unlink()
            folders.update(p for p in file.parents if p != path and path in p.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not os.path.islink(folder) and not any(folder.iterdir()):
            folder.rmdir()


def remove(entry: dict) -> None:
    """Undo one `place()` entry: never the canonical folder, never what a link points to."""
    mode = entry.get("mode")
    path = Path(entry["path"])
    if mode == "canonical":
        return
    if mode == "link":
        if os.path.islink(path):
            os.unlink(path)
        return
    if mode == "copy":
        if not os.path.islink(path) and path.is_dir() and (path / COPY_MARKER).is_file():
            shutil.rmtree(path)
        return
    if mode == "generated":
        if os.path.islink(path) or not path.is_dir():
            return
        _remove_files(path, [*entry.get("files", []), *_generated_names(path), str(path / GENERATED_MARKER)])
        if not any(path.iterdir()):
            path.rmdir()
        return
    raise ValueError(f"unknown placement mode {mode!r}")
