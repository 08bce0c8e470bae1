"""The folder a static host serves: registry.json, index.json, the sparse index and every file registry.json lists,
nothing else. Serving the registry's own folder would publish `.git/` (every old and deleted file, unreviewed
branches), caches and settings; this tree holds only what clients fetch, as plain files (no links out of it).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from skillyard.errors import SkillyardError

TOP_FILES = ("registry.json", "index.json")


def _plain(rel: str) -> bool:
    """A relative path that stays inside the tree (registry.json is ours, but it is read back as data)."""
    return "\\" not in rel and "\0" not in rel and all(part not in ("", ".", "..") for part in rel.split("/"))


def served_files(root: Path, outputs: Mapping[str, str]) -> dict[str, bytes]:
    """Every file of the served tree by its path in it, each listed file read once and checked against its size
    and sha256 in registry.json (a file that changed since the build stops the export)."""
    from skillyard.format.sparse import sparse_files
    from skillyard.registry.collect import repo_prefix

    registry = json.loads(outputs["registry.json"])
    template = str(registry.get("repository", {}).get("raw_url_template", ""))
    if "{commit}" in template:
        raise SkillyardError("--serve-dir writes the tree of a static host, but this registry's files are fetched "
                             f"by commit ({template})",
                             'Set `host = "static"` in [tool.skillyard], or build with `--host static`.')
    files = {name: outputs[name].encode("utf-8") for name in TOP_FILES}
    files.update({f"sparse/{rel}": data for rel, data in sparse_files(registry).items()})
    prefix = repo_prefix(root)
    for skill in registry.get("skills", []):
        for entry in skill.get("files", []):
            rel = f"{skill['path']}/{entry['path']}"
            if not _plain(rel) or not rel.startswith(prefix) or rel in files:
                raise SkillyardError(f"registry.json lists {rel!r}, which cannot be a file of the served tree",
                                     "Rebuild registry.json with `skillyard build`.")
            files[rel] = _checked_bytes(root / rel[len(prefix):], entry)
    return files


def _checked_bytes(path: Path, entry: Mapping) -> bytes:
    size = int(entry["size"])
    try:
        with path.open("rb") as file:
            data = file.read(size + 1)
    except OSError as exc:
        raise SkillyardError(f"{path}: cannot be read ({exc.strerror})", "Build again.") from None
    if len(data) != size or hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise SkillyardError(f"{path}: differs from registry.json (it changed during the build)",
                             "Run `skillyard build` again.")
    return data


def plan_served_tree(root: Path, outputs: Mapping[str, str], target: Path,
                     skills_dir: Path) -> tuple[Path, dict[str, bytes]]:
    """Check `target` and read every file of the tree (before anything is written): `target` may be missing,
    empty, or a tree written before (it holds registry.json); anything else is refused."""
    files = served_files(root, outputs)
    target = Path(os.path.abspath(target))
    _check_target(root, target, skills_dir)
    return target, files


def write_served_tree(target: Path, files: Mapping[str, bytes]) -> int:
    """Write the tree as a whole: staged beside `target`, then swapped in, so a server never sees half a tree.
    Returns the number of files."""
    staging = target.with_name(f".{target.name}.staging-{os.urandom(4).hex()}")
    try:
        for rel, data in sorted(files.items()):
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        old = None
        if target.is_dir():
            old = target.with_name(f".{target.name}.old-{os.urandom(4).hex()}")
            target.rename(old)
        staging.rename(target)
        if old is not None:
            shutil.rmtree(old)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return len(files)


def _check_target(root: Path, target: Path, skills_dir: Path) -> None:
    real_root, real_target = os.path.realpath(root), os.path.realpath(target)
    skills = os.path.realpath(skills_dir)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise SkillyardError(f"{target}: not a folder", "Name a new folder for --serve-dir, e.g. `_registry`.")
    if real_target in (real_root, skills) or real_root.startswith(real_target + os.sep) \
            or real_target.startswith(skills + os.sep):
        raise SkillyardError(f"{target}: is the registry folder, above it or inside its skills",
                             "Name a folder of its own for --serve-dir, e.g. `_registry` (git-ignored).")
    if target.is_dir() and any(target.iterdir()) and not (target / "registry.json").is_file():
        raise SkillyardError(f"{target}: a folder that is not empty and holds no registry.json (not a tree "
                             "`--serve-dir` wrote); nothing was changed", "Name a new or empty folder for --serve-dir.")
