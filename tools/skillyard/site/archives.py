"""Each served skill's `.tar.gz` for the discovery index (`machine.stage_well_known`): planned by a key that covers
every byte it holds, its digest remembered between builds by that key (`ArchiveDigests`), packed once by a build
that must know a new digest, and those bytes written."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path

from skillyard.format import skill_archive
from skillyard.fsutil import write_atomic
from skillyard.site import staged


def archive_mtime(skill: dict) -> int:
    """The one mtime of every member of the skill's archive: its `updated_at` (0 when it has none), so rebuilding
    gives the same bytes."""
    try:
        stamp = datetime.fromisoformat(str(skill.get("updated_at", "")).replace("Z", "+00:00"))
    except ValueError:
        return 0
    return max(0, int(stamp.timestamp())) if stamp.tzinfo is not None else 0


def plan_archive(skill: dict, copies: dict[str, tuple[str, Callable[[], bytes]]], packed: ArchiveDigests,
                 archives: dict) -> list[str]:
    """Plan the skill's archive from its served copies (each maker checks its bytes against registry.json); returns
    why they cannot be packed (empty: planned)."""
    mtime = archive_mtime(skill)
    executable = {entry["path"]: bool(entry.get("executable")) for entry in skill["files"]}
    key = "a" + hashlib.sha256(json.dumps(
        [skill_archive.fingerprint(), staged.code_fingerprint(), mtime,
         sorted([rel, key, executable[rel]] for rel, (key, _) in copies.items())]).encode()).hexdigest()

    def make() -> bytes:
        return skill_archive.pack({rel: (maker(), executable[rel]) for rel, (_, maker) in copies.items()}, mtime)

    digest = packed.known(key)
    if digest is None:
        try:
            raw = skill_archive.ustar({rel: (maker(), executable[rel]) for rel, (_, maker) in copies.items()}, mtime)
        except skill_archive.NotPackable as exc:
            return [str(exc)]
        packed.compress(skill["name"], key, raw, archives)  # packed once: its bytes are written, not packed again
        return []
    archives[skill["name"]] = (key, make, digest)
    return []


AHEAD = 32  # archives read and waiting for the compressing thread, at most (20,000 tars held cost 600 MB at peak)


class ArchiveDigests:
    """{archive key: digest} of the archives packed by the last build, in one file in the work folder (removed when
    read, written at the end, like `staged.Manifest`)."""

    def __init__(self, path: Path, reuse: bool) -> None:
        self.path, self.old, self.new = path, {}, {}
        self._pool = None
        self._pending: list = []
        self._waited = 0
        if reuse:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
                    self.old = data
            except (OSError, ValueError):
                pass
        path.unlink(missing_ok=True)

    def known(self, key: str) -> str | None:
        digest = self.old.get(key)
        if digest is not None:
            self.new[key] = digest
        return digest

    def record(self, key: str, data: bytes) -> str:
        self.new[key] = skill_archive.digest(data)
        return self.new[key]

    def compress(self, name: str, key: str, raw: bytes, archives: dict) -> None:
        """Compress an archive's tar in a thread while the caller goes on (zlib and sha256 let go of the GIL: the
        other core compresses while this one reads the next skill); `finish` puts it in `archives` as
        (key, its bytes, digest)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="site-archives")
        self._pending.append((name, key, self._pool.submit(_compressed, raw)))
        if len(self._pending) > self._waited + AHEAD:  # tars wait in memory uncompressed: never more than AHEAD
            self._pending[self._waited][2].result()
            self._waited += 1

    def finish(self, archives: dict) -> None:
        """Wait for the archives `compress` was given and put them in `archives`; no thread is left running."""
        try:
            for name, key, future in self._pending:
                data, digest = future.result()
                self.new[key] = digest
                archives[name] = (key, partial(bytes, data), digest)
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._pending, self._waited = [], 0

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.new, sort_keys=True), mode=0o600)


def _compressed(raw: bytes) -> tuple[bytes, str]:
    data = skill_archive.gzipped(raw)
    return data, skill_archive.digest(data)
