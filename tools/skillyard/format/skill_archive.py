"""One skill's files as a deterministic `.tar.gz`: the archive a v0.2.0 discovery index points at.

Clients that read the Agent Skills discovery schema 0.2.0 (`npx skills` 1.7) fetch the archive, check its sha256
against the index's `digest` and unpack it with SKILL.md at its root. The same files give the same bytes on every
build and machine (with the same zlib), so the index's digest does not churn: members sorted by path, regular files
only (no folder entries, no links: clients refuse links), ustar headers (the clients read `name` and `prefix`, not
PAX records), one fixed mtime, uid/gid 0 with empty owner names, mode 0644 or 0755 for an executable file, and a
gzip header with mtime 0 and no file name. Pure: bytes in, bytes out.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
import zlib
from functools import cache
from pathlib import Path

MAX_FILES = 1000  # what `npx skills` unpacks at most; a bigger archive would only fail on the client
MAX_UNPACKED_BYTES = 50 * 1024 * 1024


class NotPackable(ValueError):
    """The files cannot make an archive a client unpacks (a path too long for a ustar header, too many or too big)."""


def size_problem(sizes: list[int]) -> str | None:
    """Why files of these sizes make no archive a client accepts, or None."""
    if len(sizes) > MAX_FILES:
        return f"it has {len(sizes)} files; an archive holds at most {MAX_FILES}"
    if sum(sizes) > MAX_UNPACKED_BYTES:
        return f"its files add up to {sum(sizes):,} bytes; an archive holds at most {MAX_UNPACKED_BYTES:,}"
    return None


def pack(files: dict[str, tuple[bytes, bool]], mtime: int = 0) -> bytes:
    """The `.tar.gz` of {path: (bytes, executable)}. Raises NotPackable."""
    return gzipped(ustar(files, mtime))


def ustar(files: dict[str, tuple[bytes, bool]], mtime: int = 0) -> bytes:
    """The uncompressed tar of `pack` (raises NotPackable); `gzipped` compresses it, apart, so a caller can compress
    in another thread (zlib lets go of the GIL)."""
    problem = size_problem([len(data) for data, _ in files.values()])
    if problem:
        raise NotPackable(problem)
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT, encoding="utf-8") as tar:
        for rel in sorted(files):
            data, executable = files[rel]
            info = tarfile.TarInfo(rel)
            info.size, info.mtime, info.type = len(data), max(0, int(mtime)), tarfile.REGTYPE
            info.mode = 0o755 if executable else 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            try:
                tar.addfile(info, io.BytesIO(data))
            except ValueError as exc:  # ustar: a name over 100 bytes that no `/` splits into prefix + name
                raise NotPackable(f"`{rel}` cannot be stored in a ustar archive ({exc})") from None
    return raw.getvalue()


def gzipped(raw: bytes) -> bytes:
    """`raw` in the gzip stream `pack` writes (level 9, mtime 0, no file name)."""
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as packed:
        packed.write(raw)
    return out.getvalue()


def digest(data: bytes) -> str:
    """The index's `digest` of an archive."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@cache
def fingerprint() -> str:
    """What else decides an archive's bytes besides its files: this code and the zlib that compresses."""
    source = Path(__file__).read_bytes()
    return hashlib.sha256(source + b"\0" + zlib.ZLIB_RUNTIME_VERSION.encode()).hexdigest()
