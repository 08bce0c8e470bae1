"""Write a file so that readers, and a crash, see the old content or the new one, never a part of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike, data: bytes | str, *, mode: int = 0o644, durable: bool = False) -> Path:
    """Write `data` (text is UTF-8) to a temporary file beside `path`, then rename it over `path`.

    `mode` is the new file's permission (0o600 for private caches and config); `durable` also flushes it to disk
    first and the folder's entry after, for files whose loss would lose the user's work (config, lockfiles).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)
    return path


def fsync_dir(folder: str | os.PathLike) -> None:
    """Flush a folder's entries (a rename's result) to disk, so a power cut cannot undo it after a later write."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # a platform that cannot open folders (Windows) has no such flush
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse to fsync a folder; the rename itself is still atomic
    finally:
        os.close(fd)
