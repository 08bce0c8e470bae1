"""Read a repository tarball (or a user's .tar/.tar.gz) safely in memory, and pick one skill folder out of it.

The pure part of `github:` installs, shared by the client (`client/github.py`, `client/archive.py`) and the registry
(`skillyard external add`, `registry/external.py`): bytes in, checked files out, no network and no disk.

The tarball is read in memory and never extracted with tarfile's own extract: each member is checked (no absolute
paths, no `..`, no device or fifo, no link leaving the skill folder, bounded sizes) and only the skill's folder is
kept. A link that stays inside the folder is kept as a copy of the file it points to.

The archive is untrusted, so reading it is bounded before tarfile touches it: the decompressed stream stops at
`MAX_STREAM_BYTES`, a PAX or GNU long-name header larger than `MAX_HEADER_BYTES` is refused before tarfile would read
it whole into memory, and sparse members (whose maps tarfile expands without limit; git never writes them) are
refused. Inside the skill folder every path must pass the shared rule (`format.paths`): a path naming VCS or tool
metadata (`.git/config`, `.gitmodules`, `.envrc`, ...) or the client's bookkeeping refuses the whole archive;
other hidden files (`.github/`, `.gitignore`) are skipped, as validate never publishes them.
"""

from __future__ import annotations

import gzip
import io
import posixpath
import re
import tarfile
from dataclasses import dataclass, field

from skillyard.errors import SkillyardError
from skillyard.format.paths import is_hidden, path_problem, path_set_problems

MAX_MEMBERS = 20000
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # file contents, summed over the archive
MAX_STREAM_BYTES = MAX_TOTAL_BYTES + 32 * 1024 * 1024  # the decompressed tar stream: contents, headers, padding
MAX_HEADER_BYTES = 64 * 1024  # one PAX or GNU long-name header (git writes a few hundred bytes at most)


@dataclass
class Archive:
    """One repository snapshot in memory: repo-relative path → (bytes, executable), links, special files, commit."""

    files: dict[str, tuple[bytes, bool]]
    links: dict[str, tuple[str, str]]
    specials: list[str]
    commit: str | None
    mtimes: dict[str, float] = field(default_factory=dict)  # path -> modification time (a tarball's: commit time)


def _refuse(name: str, why: str) -> SkillyardError:
    return SkillyardError(f"Refusing the archive: member {name!r} {why}; nothing was installed.",
                          "The archive (a repository's tarball or your file) is malformed or malicious; do not "
                          "install from it.")


def _strip_top(name: str) -> str:
    """Drop the `<repo>-<sha>/` folder GitHub puts every member under."""
    return name.split("/", 1)[1] if "/" in name else ""


class _ArchiveRefused(SkillyardError):
    """Raised from inside tarfile's reading; not a TarError, so tarfile lets it through."""


class _BoundedTarInfo(tarfile.TarInfo):
    """tarfile reads a PAX or GNU long-name header whole into memory and expands sparse maps without limit:
    check the size before the read, and refuse sparse members outright."""

    def _proc_member(self, tarfile_):
        if self.type in (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE,
                         tarfile.SOLARIS_XHDTYPE) and self.size > MAX_HEADER_BYTES:
            raise _ArchiveRefused(f"Refusing the archive: it holds a {self.size:,}-byte tar header (the limit is "
                                  f"{MAX_HEADER_BYTES:,}); nothing was installed.",
                                  "The repository's tarball is malformed or malicious; do not install from it.")
        return super()._proc_member(tarfile_)

    def _refuse_sparse(self, *args):
        raise _ArchiveRefused("Refusing the archive: it holds a sparse file, which git never writes; nothing was "
                              "installed.", "The repository's tarball is malformed or malicious; do not install from it.")

    _proc_sparse = _proc_gnusparse_00 = _proc_gnusparse_01 = _proc_gnusparse_10 = _refuse_sparse


class _CappedStream(io.RawIOBase):
    """The decompressed tar stream, refused as soon as a read or seek would pass `limit` bytes (gzip bombs)."""

    def __init__(self, inner, limit: int):
        self.inner, self.limit = inner, limit

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def _check(self, end: int) -> None:
        if end > self.limit:
            raise _ArchiveRefused(f"Refusing the archive: it expands past {self.limit // (1024 * 1024)} MB; nothing "
                                  "was installed.", "The repository is too large to install from, or the tarball "
                                  "is a decompression bomb.")

    def read(self, size: int = -1) -> bytes:
        self._check(self.inner.tell() + (size if size is not None and size >= 0 else self.limit + 1))
        return self.inner.read(size)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence != 0:
            raise io.UnsupportedOperation("only absolute seeks")
        self._check(offset)
        return self.inner.seek(offset)

    def tell(self) -> int:
        return self.inner.tell()


def _open_tar(data: bytes, limit: int) -> tarfile.TarFile:
    """A tarfile over the (gzip-compressed or plain) archive, with every read bounded; see the module docstring."""
    raw = io.BytesIO(data)
    inner = gzip.GzipFile(fileobj=raw, mode="rb") if data[:2] == b"\x1f\x8b" else raw
    return tarfile.open(fileobj=_CappedStream(inner, limit), mode="r:", tarinfo=_BoundedTarInfo)


def read_archive(data: bytes, *, max_stream: int | None = None, strip_top: bool = True,
                 max_members: int | None = None) -> Archive:
    """Read a .tar(.gz) into memory. Absolute and `..` names anywhere refuse the whole archive; links and
    special files are only recorded here, and judged for the chosen skill folder by `folder_files`.
    `strip_top` drops the `<repo>-<sha>/` folder of a GitHub tarball; a user's own archive keeps its layout."""
    top = _strip_top if strip_top else (lambda name: name)
    try:
        tar = _open_tar(data, max_stream or MAX_STREAM_BYTES)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SkillyardError(f"The downloaded archive is not a readable tarball ({exc}).",
                             "Check the codeload URL (github.codeload_url) and the ref.") from None
    files: dict[str, tuple[bytes, bool]] = {}
    links: dict[str, tuple[str, str]] = {}
    specials: list[str] = []
    mtimes: dict[str, float] = {}
    total = 0
    max_members = max_members or MAX_MEMBERS
    with tar:
        try:
            for count, member in enumerate(tar):
                if count >= max_members:
                    raise _refuse(member.name, f"is past the limit of {max_members:,} entries")
                name = member.name
                if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or "\\" in name:
                    raise _refuse(name, "has an absolute path")
                if ".." in name.split("/"):
                    raise _refuse(name, "climbs out with `..`")
                rel = top(name).strip("/")
                rel = posixpath.normpath(rel) if rel else ""
                if rel in ("", ".") or member.isdir():
                    continue
                if rel in files or rel in links or rel in specials:
                    raise _refuse(name, "appears twice in the archive")
                if member.issym():
                    links[rel] = ("sym", member.linkname)
                elif member.islnk():
                    if member.linkname.startswith("/") or ".." in member.linkname.split("/"):
                        raise _refuse(name, f"hard-links to {member.linkname!r}")
                    links[rel] = ("hard", top(member.linkname).strip("/"))
                elif member.isfile():
                    total += member.size
                    if total > MAX_TOTAL_BYTES:
                        raise _refuse(name, f"takes the archive past {MAX_TOTAL_BYTES // (1024 * 1024)} MB")
                    files[rel] = (_read_member(tar, member), bool(member.mode & 0o111))
                    mtimes[rel] = float(member.mtime)
                else:
                    specials.append(rel)
            commit = tar.pax_headers.get("comment") if tar.pax_headers else None
        except (tarfile.TarError, EOFError, OSError, zlib_error()) as exc:
            raise SkillyardError(f"The downloaded archive is corrupt ({exc}).", "Try again; check the ref.") from None
    if commit and not re.fullmatch(r"[0-9a-f]{40}", commit):
        commit = None
    return Archive(files, links, specials, commit, mtimes)


def _read_member(tar: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = tar.extractfile(member)
    if handle is None:
        return b""
    chunks = []
    while chunk := handle.read(1024 * 1024):
        chunks.append(chunk)
    return b"".join(chunks)


def zlib_error():
    import zlib

    return zlib.error


SKILL_FILES = ("SKILL.md", "skill.md", "skill.yaml")


def skill_folders(archive_paths: list[str]) -> list[str]:
    """Folders holding a SKILL.md (or a design-000 skill.yaml alone), shallowest first."""
    found = {posixpath.dirname(p) for p in archive_paths if posixpath.basename(p) in SKILL_FILES}
    return sorted(found, key=lambda f: (f.count("/"), f))


def choose_folder(archive_paths: list[str], *, path: str, preferred: str, what: str, name_one: str) -> str:
    """The folder holding the skill: `path` when given, else the root, else the folder called `preferred`,
    else the only one found; several is an error naming them and how to pick (`name_one` shows the form)."""
    folders = skill_folders(archive_paths)
    if path:
        if path in folders:
            return path
        raise SkillyardError(f"{what} has no SKILL.md or skill.yaml in {path}/.",
                             "Check the path; folders with a SKILL.md or skill.yaml: " + (", ".join(f or "." for f in folders) or "none"))
    if "" in folders:
        return ""
    named = [f for f in folders if preferred and posixpath.basename(f) == preferred]
    if named:
        return named[0]
    if len(folders) == 1:
        return folders[0]
    if not folders:
        raise SkillyardError(f"{what} holds no SKILL.md or skill.yaml.", "Check the archive (and the ref).")
    raise SkillyardError(f"{what} holds several skills: {', '.join(folders)}.", f"Name one: {name_one}.")


def folder_files(archive: Archive, folder: str) -> dict[str, tuple[bytes, bool]]:
    """{path inside `folder`: (bytes, executable)} of an archive read by `read_archive` or `archive.read_zip`:
    every path under the shared rule, special files refused, links kept as copies only when they stay inside."""
    if folder and path_problem(folder):
        raise _refuse(folder, path_problem(folder))
    prefix = folder + "/" if folder else ""
    for rel in archive.specials:
        if rel.startswith(prefix):
            raise _refuse(rel, "is a device, fifo or other special file")
    files = {rel[len(prefix):]: value for rel, value in archive.files.items()
             if rel.startswith(prefix) and _installable(rel[len(prefix):], rel)}
    for rel, (kind, target) in sorted(archive.links.items()):
        if not rel.startswith(prefix) or not _installable(rel[len(prefix):], rel):
            continue
        if kind == "sym" and target.startswith("/"):
            raise _refuse(rel, f"links to the absolute path {target!r}, outside the skill folder")
        resolved = (posixpath.normpath(target) if kind == "hard"
                    else posixpath.normpath(posixpath.join(posixpath.dirname(rel), target)))
        if resolved == ".." or resolved.startswith("../") or not resolved.startswith(prefix):
            raise _refuse(rel, f"links to {target!r}, outside the skill folder")
        source = resolved[len(prefix):]
        problem = path_problem(source)
        if problem:
            raise _refuse(rel, f"links to {target!r}, which {problem}")
        if source not in files:
            raise _refuse(rel, f"links to {target!r}, which is not a file in the skill folder")
        files[rel[len(prefix):]] = files[source]
    for inner, problem in path_set_problems(files):
        raise _refuse(prefix + inner, problem)
    return dict(sorted(files.items()))


def newest_time(archive: Archive, folder: str) -> float:
    """The newest modification time of the files in `folder` (0.0 when none is known): a versionless skill's
    time-based version (format/timeversion.py). GitHub's tarballs give every file its commit's time."""
    prefix = folder + "/" if folder else ""
    return max((t for rel, t in archive.mtimes.items() if rel.startswith(prefix)), default=0.0)


def _installable(inner: str, rel: str) -> bool:
    """Whether a member of the skill folder is installed: a path the shared rule refuses refuses the archive
    (VCS/tool metadata, client bookkeeping, unportable names); an otherwise clean hidden file is skipped."""
    problem = path_problem(inner)
    if problem:
        raise _refuse(rel, problem)
    return not is_hidden(inner)
