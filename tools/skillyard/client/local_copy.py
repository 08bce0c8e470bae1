"""Files a skill needs that are already on this machine, byte for byte: the verified copies `skill` installed.

Every installed skill's skill.lock.json lists each file it wrote with its size and sha256. A registry entry lists
the files it publishes the same way, so a file whose sha256 an installed copy holds need not be downloaded again:
that is what lets a lockfile restore or an install work with the server gone (or with `--offline`). A reused file
is read and hashed again before it is trusted (the user may have edited it since), and the whole set is still
checked by `fetch.verify_files` and the skill's integrity, exactly as a download is.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from skillyard.client import store
from skillyard.errors import SkillyardError

MAX_LOCK_BYTES = 4 * 1024 * 1024  # a skill.lock.json larger than this is not read (it is not one `skill` wrote)


def default_roots() -> list[Path]:
    """Where installed skills live: the current project and the user's home (the two scopes)."""
    roots = [Path.cwd(), Path.home()]
    return list(dict.fromkeys(r.resolve() for r in roots))


def _index(roots: list[Path]) -> dict[str, Path]:
    """sha256 -> one installed file said (by its skill's lock) to have it."""
    out: dict[str, Path] = {}
    for root in roots:
        skills = store.skills_dir(root)
        if not skills.is_dir():
            continue
        for folder in sorted(skills.iterdir()):
            lock = folder / store.SKILL_LOCK
            try:
                if folder.is_symlink() or not lock.is_file() or lock.stat().st_size > MAX_LOCK_BYTES:
                    continue
                files = json.loads(lock.read_text(encoding="utf-8")).get("files") or []
            except (OSError, ValueError, AttributeError):
                continue  # an unreadable lock offers nothing; it is never an error here
            for item in files if isinstance(files, list) else []:
                if isinstance(item, dict) and isinstance(item.get("sha256"), str) and isinstance(item.get("path"), str):
                    try:
                        store.check_relpath(item["path"])
                    except SkillyardError:  # a path a lock should not hold is simply not offered
                        continue
                    out.setdefault(item["sha256"], folder / item["path"])
    return out


def reuse(entries: list[dict], roots: list[Path] | None = None) -> dict[str, bytes]:
    """{path: bytes} for each wanted entry ({path, size, sha256}) an installed copy holds with that exact hash."""
    index = _index(default_roots() if roots is None else roots)
    found: dict[str, bytes] = {}
    for entry in entries:
        where = index.get(entry.get("sha256"))
        if where is None:
            continue
        try:
            if where.is_symlink() or not where.is_file() or os.path.getsize(where) != entry.get("size"):
                continue
            data = where.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() == entry["sha256"]:  # edited since install: not this file any more
            found[entry["path"]] = data
    return found
