"""The machine-readable files published with the site: registry.json, index.json and the well-known layout.

`/.well-known/agent-skills/index.json` follows the Agent Skills discovery layout (`{"skills": [{"name",
"description", "files"}]}`) and every listed file is served next to it under `/.well-known/agent-skills/<name>/`,
so other clients can install straight from the site. Files are copied from the skill folders only after their
sha256 matches registry.json: the site never publishes bytes the registry did not vouch for.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import shutil
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.registry.compile import dumps, index_document
from skillyard.site.model import WELL_KNOWN


def dump(data: object) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def well_known_index(registry: dict) -> dict:
    return {"skills": [{"name": s["name"], "description": s["description"],
                        "files": sorted(f["path"] for f in s["files"])} for s in registry["skills"]]}


def _safe_relative(path: str) -> bool:
    normal = posixpath.normpath(path)
    return bool(path) and not path.startswith("/") and "\\" not in path and normal == path and \
        not normal.startswith("../") and normal != ".."


def copy_skill_files(registry: dict, root: Path, out: Path) -> int:
    """Copy every registered file into `out/.well-known/agent-skills/<name>/`, checking its sha256; returns bytes."""
    total = 0
    base = out / WELL_KNOWN
    for skill in registry["skills"]:
        folder = (root / skill["path"]).resolve()
        if not _safe_relative(skill["path"]) or not folder.is_relative_to(root.resolve()):
            raise SkillyardError(f"registry.json: skill {skill['name']!r} has path {skill['path']!r} outside the root",
                                 "Rebuild registry.json with `skillyard build`.")
        for entry in skill["files"]:
            rel = entry["path"]
            if not _safe_relative(rel):
                raise SkillyardError(f"registry.json: skill {skill['name']!r} lists unsafe file path {rel!r}",
                                     "Rebuild registry.json with `skillyard build`.")
            source = folder / rel
            if source.is_symlink() or not source.is_file():
                raise SkillyardError(f"{source}: listed in registry.json for {skill['name']!r} but not a regular file",
                                     "Rebuild registry.json with `skillyard build`, or pass --root at the repo root.")
            data = source.read_bytes()
            if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise SkillyardError(f"{source}: sha256 differs from registry.json (the file changed after the build)",
                                     "Run `skillyard build` to refresh registry.json, then build the site again.")
            target = base / skill["name"] / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            total += len(data)
    return total


def write_machine_files(registry: dict, registry_bytes: bytes, index_bytes: bytes | None, root: Path,
                        out: Path) -> dict:
    """Write registry.json, index.json and the well-known tree into the built site `out`."""
    (out / "registry.json").write_bytes(registry_bytes)
    if index_bytes is None:  # no index.json beside registry.json: write what `skillyard build` would have
        index_bytes = dumps(index_document(registry)).encode("utf-8")
    (out / "index.json").write_bytes(index_bytes)
    (out / WELL_KNOWN).mkdir(parents=True, exist_ok=True)
    (out / WELL_KNOWN / "index.json").write_bytes(dump(well_known_index(registry)))
    copied = copy_skill_files(registry, root, out)
    (out / ".nojekyll").write_bytes(b"")  # GitHub Pages: serve dot-folders such as .well-known as they are
    return {"well_known_bytes": copied}


def replace_dir(built: Path, out: Path) -> None:
    """Put a finished build at `out` in one rename, so a failed build never leaves a half-written site."""
    old = out.with_name(out.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if out.exists():
        os.replace(out, old)
    os.replace(built, out)
    if old.exists():
        shutil.rmtree(old)
