"""Write a file so that readers, and a crash, see the old content or the new one, never a part of it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike, data: bytes | str, *, mode: int = 0o644, durable: bool = False) -> Path:
    """Write `data` (text is UTF-8) to a temporary file beside `path`, then rename it over `path`.

    `mode` is the new file's permission (0o600 for private caches and config); `durable` also flushes it to disk
    first, for files whose loss would lose the user's work (config, lockfiles).
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
    return path
