"""What a rebuild may reuse of the well-known copies staged by the build before, and linking them into the output.

Reading, hashing, rendering and writing every served file again was most of a rebuild's "read" phase at
thousands of skills (issue 14): the file system, not Python, was the cost. A staged skill folder is reused only
when (a) the skill's registry entry and the staging code are the same (`skill_key`), (b) every source file still
has the identity it had when its sha256 was checked — inode, size, mtime and ctime, as git's index trusts a file
(a write or chmod moves ctime, which no program can set back) — and was not touched in the second before that
check ("racy": a write in the same clock tick would keep the times), and (c) every staged copy is the very file
the build wrote (inode, size, mtime), so a copy someone edited in the work folder is never published. Anything
else stages the skill again from its sources, checked as on a first build; the output is the same bytes.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
import time
from functools import cache
from pathlib import Path

from skillyard.fsutil import write_atomic

FORMAT = "skillyard-site-staged-1"
RACY_NS = 2_000_000_000  # a source file changed this close before its check is checked again next time


@cache
def code_fingerprint() -> str:
    """The code that decides what a staged copy holds (paths rule, publish rule, defaults rendering)."""
    digest = hashlib.sha256(FORMAT.encode())
    here = Path(__file__).parent
    for path in (here / "machine.py", here / "publish.py", here.parent / "format" / "inputs.py",
                 here.parent / "format" / "paths.py"):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def skill_key(skill: dict, digest: str | None = None) -> str:
    """`digest`: the entry's `page_cache.entry_digest`, when the caller has it."""
    entry = {"entry-sha256": digest} if digest else skill
    return hashlib.sha256(json.dumps([code_fingerprint(), entry], ensure_ascii=False,
                                     sort_keys=True).encode("utf-8")).hexdigest()


def identity(path: Path | str, *, with_ctime: bool) -> list[int] | None:
    """(inode, size, mtime_ns[, ctime_ns]) of a regular file reached by `path` itself (no symlink), else None."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    ids = [info.st_ino, info.st_size, info.st_mtime_ns]
    return [*ids, info.st_ctime_ns] if with_ctime else ids


def source_identity(path: Path | str, checked_ns: int) -> list[int] | None:
    """The identity to record for a source file just checked, or None when it changed too recently to trust."""
    ids = identity(path, with_ctime=True)
    if ids is None or max(ids[2], ids[3]) > checked_ns - RACY_NS:
        return None
    return ids


class Manifest:
    """`{name: {"key", "sources": {rel: identity}, "staged": {rel: identity}}}` of the staged skills, in one file
    beside the staged folder. It is removed while staging and written at the end, so a build that stops halfway
    leaves nothing a later build would trust."""

    def __init__(self, path: Path, reuse: bool, digests: dict[str, str] | None = None) -> None:
        self.path = path
        self.digests = digests or {}  # skill name -> page_cache.entry_digest of its registry entry
        self.old: dict = {}
        if reuse:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("format") == code_fingerprint() and isinstance(data.get("skills"), dict):
                    self.old = data["skills"]
            except (OSError, ValueError, AttributeError):
                pass
        path.unlink(missing_ok=True)
        self.new: dict = {}

    def reusable(self, skill: dict, folder: Path, staged: Path) -> bool:
        """Whether `staged` (this skill's staged folder) still holds what staging `folder` would write now."""
        entry = self.old.get(skill["name"])
        if not isinstance(entry, dict) or entry.get("key") != skill_key(skill, self.digests.get(skill["name"])):
            return False
        sources, copies = entry.get("sources"), entry.get("staged")
        paths = [f["path"] for f in skill["files"]]
        if not isinstance(sources, dict) or not isinstance(copies, dict) or sorted(sources) != sorted(paths) \
                or sorted(copies) != sorted(paths):
            return False
        source_dir, staged_dir = str(folder), str(staged)
        for rel in paths:
            if identity(os.path.join(source_dir, rel), with_ctime=True) != sources[rel] \
                    or identity(os.path.join(staged_dir, rel), with_ctime=False) != copies[rel]:
                return False
        self.new[skill["name"]] = entry
        return True

    def record(self, skill: dict, folder: Path, staged: Path, checked_ns: int) -> None:
        """Remember a skill just staged; a source too fresh to trust leaves it out (staged again next time)."""
        sources, copies = {}, {}
        source_dir, staged_dir = str(folder), str(staged)
        for entry in skill["files"]:
            rel = entry["path"]
            sources[rel] = source_identity(os.path.join(source_dir, rel), checked_ns)
            copies[rel] = identity(os.path.join(staged_dir, rel), with_ctime=False)
            if sources[rel] is None or copies[rel] is None:
                return
        self.new[skill["name"]] = {"key": skill_key(skill, self.digests.get(skill["name"])), "sources": sources,
                                  "staged": copies}

    def staged_identities(self) -> dict[str, dict[str, list[int]]]:
        """{skill: {file: identity}} of the staged copies this build checked or wrote (skills it trusts)."""
        return {name: entry["staged"] for name, entry in self.new.items()}

    def save(self) -> None:
        write_atomic(self.path, json.dumps({"format": code_fingerprint(), "skills": self.new}, sort_keys=True),
                     mode=0o600)


def now_ns() -> int:
    return time.time_ns()


def link_or_copy(source: Path | str, target: Path | str) -> None:
    """`target` as a hard link to `source` (no bytes copied), or a copy where the file system refuses links."""
    try:
        os.link(source, target)
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EACCES):
            raise
        shutil.copyfile(source, target)
