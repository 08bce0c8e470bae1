"""Is an installed skill exactly what `skill install` committed? (issue 38: a server serves nothing else)

`skill install` writes each skill into a hidden staging folder and renames it into place, with `skill.lock.json`
listing every file it wrote (path, size, sha256); a change in flight is journaled beside it as
`.journal-NAME.json` (and a multi-skill install as `.journal-txn-*.commit`) until it is finished. So a skill folder
is served only when no journal for its name is pending in its store folder, and, when it holds a `skill.lock.json`,
when its files are exactly those the lock lists. A folder without a lock was not installed by `skill` (written by
hand, a project's own skills): there is no record to hold it to, and it is served as it is.

This module reads the client's files but imports nothing of the client (runtime/ sits below client/); the names
are the client's (client/store.py, client/lockfile.py), kept in step by tests/mcp_server/test_integrity.py.
Results are remembered per folder until a file's size, modification time or inode changes, so a repeated read
costs a walk of `stat` calls, not a hash of every file.
"""

from __future__ import annotations

import hashlib
import json
import os

from skillyard.format.paths import CLIENT_STATE_NAMES, JOURNAL_PREFIX, SKILL_LOCK
from skillyard.runtime.files import SkillFileError

MAX_LOCK_BYTES = 16 * 1024 * 1024
MAX_HASHED_BYTES = 256 * 1024 * 1024  # a skill larger than this is not hashed on every start: refused instead


class IntegrityError(SkillFileError):
    """The skill on disk is not what was installed (or is being changed); the message says which and what to do."""


_VERIFIED: dict[str, tuple] = {}  # real folder -> stamp of the last walk that matched its lock


def _walk(folder: str) -> dict[str, os.stat_result]:
    """rel path -> lstat of every regular file under `folder` (links are not followed; the lock lists none)."""
    out: dict[str, os.stat_result] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            if rel in CLIENT_STATE_NAMES:
                continue
            try:
                st = os.lstat(full)
            except OSError:
                continue
            out[rel] = st
    return out


def pending(folder: str) -> bool:
    """A journaled change for this skill's name is not finished (its store folder holds `.journal-NAME.json`)."""
    for candidate in {folder, os.path.realpath(folder)}:
        parent, name = os.path.split(candidate.rstrip(os.sep))
        if os.path.lexists(os.path.join(parent, f"{JOURNAL_PREFIX}{name}.json")):
            return True
    return False


def check(folder: str, name: str) -> None:
    """Raise IntegrityError unless `folder` is in the state its install committed (see the module's docstring)."""
    if pending(folder):
        raise IntegrityError(f"skill {name!r} is being installed, updated or removed right now (a change is "
                             "journaled and not finished); try again in a moment, or run `skill list` to finish it")
    real = os.path.realpath(folder)
    lock_path = os.path.join(real, SKILL_LOCK)
    try:
        with open(lock_path, "rb") as handle:
            data = handle.read(MAX_LOCK_BYTES + 1)
    except FileNotFoundError:
        return  # not installed by `skill`: nothing to hold it to
    except OSError as exc:
        raise IntegrityError(f"skill {name!r}: {SKILL_LOCK} cannot be read ({exc.strerror})") from None
    stat_lock = os.stat(lock_path)
    files = _walk(real)
    stamp = (stat_lock.st_mtime_ns, stat_lock.st_size, stat_lock.st_ino,
             tuple(sorted((rel, st.st_size, st.st_mtime_ns, st.st_ino, st.st_mode) for rel, st in files.items())))
    if _VERIFIED.get(real) == stamp:
        return
    expected = _expected(data, name)
    changed = _differences(real, files, expected)
    if changed:
        _VERIFIED.pop(real, None)
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise IntegrityError(f"skill {name!r} was changed on disk after it was installed ({shown} differ from "
                             f"what {SKILL_LOCK} recorded), so it is not served; reinstall it "
                             f"with `skill install SOURCE --force` (SOURCE: its name, path or ref; your edits are kept "
                             f"in a backup), or undo the edit")
    _VERIFIED[real] = stamp


def _expected(data: bytes, name: str) -> dict[str, tuple[int, str]]:
    if len(data) > MAX_LOCK_BYTES:
        raise IntegrityError(f"skill {name!r}: {SKILL_LOCK} is larger than {MAX_LOCK_BYTES} bytes")
    try:
        entries = json.loads(data.decode("utf-8"))["files"]
        return {e["path"]: (int(e["size"]), str(e["sha256"])) for e in entries}
    except (ValueError, KeyError, TypeError, RecursionError, UnicodeDecodeError):
        raise IntegrityError(f"skill {name!r}: {SKILL_LOCK} is damaged (no readable `files` list); reinstall "
                             f"it with `skill install SOURCE --force`") from None


def _differences(real: str, files: dict[str, os.stat_result], expected: dict[str, tuple[int, str]]) -> list[str]:
    """Files added, removed or changed against the lock, sorted. Links count as changes: installs write none."""
    out = {rel for rel in files if rel not in expected} | {rel for rel in expected if rel not in files}
    total = 0
    for rel, st in files.items():
        if rel in out:
            continue
        size, digest = expected[rel]
        if not _is_regular(st) or st.st_size != size:
            out.add(rel)
            continue
        total += size
        if total > MAX_HASHED_BYTES:
            out.add(rel)
            continue
        if _sha256(os.path.join(real, rel)) != digest:
            out.add(rel)
    return sorted(out)


def _is_regular(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(st.st_mode)


def _sha256(path: str) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()
