"""`skill install ./x.zip|./x.tar.gz|./x.tgz|./x.tar[/path/in/archive]` (design 001 §8.1): a skill out of an archive.

One reader per container, one set of rules: a tarball is read by `github.read_archive` (the code GitHub tarballs go
through: bounded stream, no sparse members, bounded headers) and a zip by `read_zip` here into the same `Archive`;
then `github.folder_files` picks the skill folder's files with the shared path rule, links kept only as copies of
files inside the folder, special files refused, colliding names refused. A user's archive keeps its own layout
(no `<repo>-<sha>/` to strip), and every member name anywhere in it must pass the path rule.

Zip bombs: the declared sizes are capped before anything is inflated, each member is inflated only up to its
declared size (one byte more refuses), and an archive that claims to expand more than `MAX_RATIO` times is refused.
"""

from __future__ import annotations

import io
import lzma
import os
import re
import stat
import zipfile
import zlib
from pathlib import Path

from skillyard.client import github
from skillyard.client.github import Archive, _refuse
from skillyard.errors import SkillyardError
from skillyard.format.paths import path_problem
from skillyard.format.tarball import newest_time

SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
MAX_RATIO = 200  # declared size over compressed size, for the whole archive (text compresses ~5-10x)
MAX_LINK_BYTES = 4096


def split_ref(ref: str) -> tuple[Path, str] | None:
    """(archive file, folder inside it) when `ref` is a path to an existing archive file, optionally followed by a
    folder inside it (`./skills.zip/pdf-tools`, as `github:owner/repo/path` names one of several skills); else None."""
    if ref.startswith("github:"):
        return None
    text = os.path.expanduser(ref)
    parts = text.split("/")
    for i, part in enumerate(parts):
        if part.lower().endswith(SUFFIXES):
            candidate = Path("/".join(parts[: i + 1]) or "/")
            try:
                found = candidate.is_file()
            except (OSError, ValueError):  # a NUL byte or an over-long name: no such archive
                found = False
            if found:
                return candidate, "/".join(p for p in parts[i + 1:] if p)
    return None


def is_archive_ref(ref: str) -> bool:
    return split_ref(ref) is not None


def read_file(path: Path, max_bytes: int) -> bytes:
    """The archive's bytes, refused past `max_bytes` (the client's download cap) before it is read."""
    size = path.stat().st_size
    if size > max_bytes:
        raise SkillyardError(f"{path} is {size:,} bytes; the client reads archives of at most {max_bytes:,} bytes; "
                             "nothing was installed.",
                             "If you trust it, raise `install.max_download_bytes` in the client's config.yaml (or "
                             "set $SKILL_INSTALL_MAX_DOWNLOAD_BYTES), or unpack it and install the folder.")
    with open(path, "rb") as handle:
        return handle.read(max_bytes + 1)


def read(data: bytes, *, what: str) -> Archive:
    """A zip or a (gzip-compressed) tarball, told apart by its first bytes, read with every member name checked."""
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        archive = read_zip(data)
    else:
        try:
            archive = github.read_archive(data, strip_top=False)
        except SkillyardError as exc:
            if "not a readable tarball" in exc.message:
                raise SkillyardError(f"{what} is not a zip or tar archive that can be read; nothing was installed.",
                                     "Give a .zip, .tar.gz, .tgz or .tar file, or the skill's folder.") from None
            raise
    for rel in [*archive.files, *archive.links, *archive.specials]:
        problem = path_problem(rel)
        if problem:
            raise _refuse(rel, problem)
    return archive


def read_zip(data: bytes, *, max_total: int | None = None, max_members: int | None = None) -> Archive:
    """A zip in memory as an `Archive`: names checked like a tarball's, links and special files recorded for
    `folder_files` to judge, sizes bounded before and while inflating (see the module docstring). The limits
    default to a tarball's (`github.MAX_TOTAL_BYTES`, `github.MAX_MEMBERS`)."""
    max_total = github.MAX_TOTAL_BYTES if max_total is None else max_total
    max_members = github.MAX_MEMBERS if max_members is None else max_members
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise SkillyardError(f"The archive is not a readable zip file ({exc}); nothing was installed.",
                             "Give a .zip, .tar.gz, .tgz or .tar file, or the skill's folder.") from None
    if len(infos) > max_members:
        raise _refuse(infos[max_members].filename, f"is past the limit of {max_members:,} entries")
    declared = sum(i.file_size for i in infos)
    if declared > max_total:
        raise SkillyardError(f"Refusing the archive: it declares {declared:,} bytes of contents, over the limit of "
                             f"{max_total:,}; nothing was installed.", "Install a smaller archive, or the folder.")
    packed = sum(i.compress_size for i in infos)
    if declared > 1024 * 1024 and declared > MAX_RATIO * max(packed, 1):
        raise SkillyardError(f"Refusing the archive: {packed:,} compressed bytes claim to expand to {declared:,} "
                             f"(more than {MAX_RATIO} times); nothing was installed.",
                             "This is what a decompression bomb looks like; do not install from it.")
    files: dict[str, tuple[bytes, bool]] = {}
    links: dict[str, tuple[str, str]] = {}
    specials: list[str] = []
    mtimes: dict[str, float] = {}
    seen: set[str] = set()
    with zf:
        for info in infos:
            name = info.filename
            if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or "\\" in name:
                raise _refuse(name, "has an absolute path")
            if ".." in name.split("/"):
                raise _refuse(name, "climbs out with `..`")
            rel = name.strip("/")
            if rel in seen:
                raise _refuse(name, "appears twice in the archive")
            seen.add(rel)
            if info.flag_bits & 0x1:
                raise _refuse(name, "is encrypted")
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            kind = stat.S_IFMT(mode)
            if not rel or info.is_dir() or kind == stat.S_IFDIR:
                continue
            if kind == stat.S_IFLNK:
                links[rel] = ("sym", _inflate(zf, info, MAX_LINK_BYTES).decode("utf-8", "replace"))
            elif kind in (0, stat.S_IFREG):
                files[rel] = (_inflate(zf, info, info.file_size), bool(mode & 0o111))
                mtimes[rel] = _zip_time(info)
            else:
                specials.append(rel)
    return Archive(files, links, specials, None, mtimes)


def _inflate(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    """A member's bytes, never more than `limit` (its declared size): a member that inflates past it is refused."""
    if info.file_size > limit:
        raise _refuse(info.filename, f"is {info.file_size:,} bytes, over the limit of {limit:,}")
    try:
        with zf.open(info) as handle:
            data = handle.read(limit + 1)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, RuntimeError, zlib.error,
            lzma.LZMAError) as exc:  # the library decoding untrusted bytes: any of its errors is a refusal
        raise _refuse(info.filename, f"cannot be read ({exc})") from None
    if len(data) > limit:
        raise _refuse(info.filename, f"expands past its declared {info.file_size:,} bytes")
    return data


def _zip_time(info: zipfile.ZipInfo) -> float:
    """A zip member's time as seconds since the epoch, its fields read as UTC (a zip records no zone), 0.0 when
    the fields are out of range."""
    import calendar

    try:
        return float(calendar.timegm((*info.date_time, 0, 0, 0)))
    except (ValueError, OverflowError):
        return 0.0


def skill_files(path: Path, inner: str, *, max_bytes: int) -> tuple[str, dict[str, tuple[bytes, bool]], float]:
    """(folder inside the archive, {path inside the skill folder: (bytes, executable)}, the folder's newest file
    time) from an archive file."""
    what = str(path)
    archive = read(read_file(path, max_bytes), what=what)
    stem = re.sub(r"(\.tar\.gz|\.tgz|\.tar|\.zip)$", "", path.name, flags=re.IGNORECASE)
    folder = github.choose_folder(list(archive.files) + list(archive.links), path=inner.strip("/"), preferred=stem,
                                  what=what, name_one=f"{path}/<folder inside the archive>")
    return folder, github.folder_files(archive, folder), newest_time(archive, folder)
