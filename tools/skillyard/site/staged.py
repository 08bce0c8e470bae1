"""What a rebuild may skip reading of the served well-known files, and how each one is written when it must be.

The site serves every file of a publishable skill under `/.well-known/agent-skills/<name>/`, copied only after its
sha256 matches registry.json. The copies are written straight into the output tree (`output`), whose manifest
proves a copy unchanged since it was written; there is no second copy in the work folder (staging 20,000 copies
and linking them into the tree cost 12,000 folders and 40,000 file operations at 5,000 skills, and creating an
inode is the dearest thing a build does: issue 14).

Reading and hashing the sources again is skipped for a skill only when (a) the skill's registry entry and the
serving code are the same (`skill_key`) and (b) every source file still has the identity it had when its sha256
was checked -- inode, size, mtime and ctime, as git's index trusts a file (a write or chmod moves ctime, which no
program can set back) -- and was not touched in the two seconds before that check ("racy": a write in the same
clock tick would keep the times). Its files are then still read and checked whenever the tree must write them.
Anything else is read and checked now, so a source that no longer matches registry.json stops the build.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from functools import cache
from pathlib import Path

from skillyard.fsutil import write_atomic

FORMAT = "skillyard-site-sources-1"
RACY_NS = 2_000_000_000  # a source file changed this close before its check is checked again next time


@cache
def code_fingerprint() -> str:
    """The code that decides what a served copy holds (paths rule, publish rule, defaults rendering)."""
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


def identity(path: Path | str) -> list[int] | None:
    """(inode, size, mtime_ns, ctime_ns) of a regular file reached by `path` itself (no symlink), else None."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return [info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def source_identity(path: Path | str, checked_ns: int) -> list[int] | None:
    """The identity to record for a source file just checked, or None when it changed too recently to trust."""
    ids = identity(path)
    if ids is None or max(ids[2], ids[3]) > checked_ns - RACY_NS:
        return None
    return ids


class Manifest:
    """`{name: {"key", "sources": {rel: identity}}}` of the skills whose sources were checked, in one file in the
    work folder. It is removed when read and written at the end, so a build that stops halfway leaves nothing a
    later build would trust."""

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

    def unchanged(self, skill: dict, folder: Path) -> bool:
        """Whether every source file of `skill` under `folder` is the one checked against this very entry before."""
        entry = self.old.get(skill["name"])
        if not isinstance(entry, dict) or entry.get("key") != skill_key(skill, self.digests.get(skill["name"])):
            return False
        sources = entry.get("sources")
        paths = [f["path"] for f in skill["files"]]
        if not isinstance(sources, dict) or sorted(sources) != sorted(paths):
            return False
        source_dir = str(folder)
        if any(identity(os.path.join(source_dir, rel)) != sources[rel] for rel in paths):
            return False
        self.new[skill["name"]] = entry
        return True

    def record(self, skill: dict, folder: Path, checked_ns: int) -> None:
        """Remember a skill just checked; a source too fresh to trust leaves it out (checked again next time)."""
        sources = {}
        source_dir = str(folder)
        for entry in skill["files"]:
            rel = entry["path"]
            sources[rel] = source_identity(os.path.join(source_dir, rel), checked_ns)
            if sources[rel] is None:
                return
        self.new[skill["name"]] = {"key": skill_key(skill, self.digests.get(skill["name"])), "sources": sources}

    def save(self) -> None:
        write_atomic(self.path, json.dumps({"format": code_fingerprint(), "skills": self.new}, sort_keys=True),
                     mode=0o600)


def now_ns() -> int:
    return time.time_ns()
