"""The parsed config.yaml, kept as JSON in the cache folder, so that a command need not load PyYAML (~25 ms).

The cached copy is used only while config.yaml is the very file it was made from: same device, inode, size,
modification and change time (ns), and the same Skillyard version. A file changed less than RACY_SECONDS before it
was read is never cached: a later edit within the same timestamp tick could keep its stamp. A config that JSON
cannot hold exactly (keys that are not strings, NaN) is not cached either, and a damaged cache file is ignored and
written again. Reading it never raises: anything unexpected means "parse the YAML".
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from skillyard import __version__

FORMAT = 1
RACY_SECONDS = 2.0
MAX_BYTES = 1024 * 1024
FILE_NAME = "config.json"


def stamp(st: os.stat_result) -> list[int]:
    """What identifies one version of a file without reading it."""
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def load(cache_file: Path, file_stamp: list[int]) -> dict | None:
    """The cached config for a file with this stamp, or None (missing, damaged, stale, another version)."""
    try:
        with open(cache_file, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
        entry = json.loads(raw) if len(raw) <= MAX_BYTES else None
    except (OSError, ValueError, RecursionError):
        return None
    if (not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("version") != __version__
            or entry.get("stamp") != file_stamp or not isinstance(entry.get("data"), dict)):
        return None
    return entry["data"]


def store(cache_file: Path, before: os.stat_result, after: os.stat_result, data: dict,
          now_ns: int | None = None) -> bool:
    """Cache `data`, parsed from a file stat'ed as `before` and `after` its read; False when it must not be (the
    file changed meanwhile or too recently, JSON cannot hold it exactly, the cache folder is not writable)."""
    file_stamp = stamp(before)
    now_ns = time.time_ns() if now_ns is None else now_ns
    if stamp(after) != file_stamp or now_ns - max(before.st_mtime_ns, before.st_ctime_ns) < RACY_SECONDS * 1e9:
        return False
    entry = {"format": FORMAT, "version": __version__, "stamp": file_stamp, "data": data}
    try:
        text = json.dumps(entry, ensure_ascii=False, allow_nan=False)
        if json.loads(text)["data"] != data:  # e.g. a key 1 would come back as "1"
            return False
    except (TypeError, ValueError, RecursionError):
        return False
    from skillyard.fsutil import write_atomic

    try:
        write_atomic(cache_file, text, mode=0o600)
    except OSError:
        return False
    return True
