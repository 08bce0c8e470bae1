"""Serve files from inside one skill folder, and nothing else.

The path comes from a model, so it is treated as hostile: it must pass the shared path rule (`format.paths`: no
`..`, no absolute or drive prefix, no backslash, controls or invisible characters, no version-control metadata, not
the client's bookkeeping such as `skill.lock.json`), have no hidden part and no percent-encoding. Each part is then
resolved on disk; a link is allowed only when its target stays inside the skill's real folder and is itself a path
the rule accepts (so a link cannot lend its name to the bookkeeping), and the final file is opened with O_NOFOLLOW.
`list_files` shows the same set: every file `read_in` would serve, and nothing else.
"""

from __future__ import annotations

import os
import re
import stat

from skillyard.format import paths

MAX_BYTES = 1024 * 1024
MAX_LISTED = 200  # files named in one listing; a listing says when it stops early
MAX_VISITED = 10_000  # entries looked at for one listing, however the folder is shaped
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_DRIVE = re.compile(r"^[A-Za-z]:")


class SkillFileError(ValueError):
    """The request was refused; the message says why and is safe to show to the model."""


def clean_parts(path: object) -> list[str]:
    """The path's parts, or SkillFileError when the text itself tries to leave the folder."""
    if not isinstance(path, str) or not path.strip():
        raise SkillFileError("path must be a non-empty string")
    if "\x00" in path:
        raise SkillFileError("path contains a NUL character")
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        raise SkillFileError("path contains a control character")
    if "\\" in path:
        raise SkillFileError("path contains a backslash; use / between folders")
    if _PERCENT.search(path):
        raise SkillFileError("path contains percent-encoding; give the plain file name")
    if path.startswith(("/", "~")) or _DRIVE.match(path):
        raise SkillFileError("path must be relative to the skill folder")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts:
        raise SkillFileError("path names no file")
    for part in parts:
        if part == "..":
            raise SkillFileError("path must not contain '..'")
        if part.startswith("."):
            raise SkillFileError("hidden files are not served")
    problem = paths.path_problem("/".join(parts))
    if problem:
        raise SkillFileError(f"{paths.shown('/'.join(parts))} {problem}; it is not served")
    return parts


def served(rel: str) -> bool:
    """True when `rel` (relative to the skill folder) is a file a model may see: the path rule, nothing hidden."""
    return paths.path_problem(rel) is None and not paths.is_hidden(rel)


def _inside(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def resolve_in(folder: str | os.PathLike, path: object) -> str:
    """The real path of `path` inside `folder`; SkillFileError if it is missing or would leave the folder."""
    parts = clean_parts(path)
    base = os.path.realpath(folder)
    current = base
    for part in parts:
        candidate = os.path.join(current, part)
        if os.path.islink(candidate):
            candidate = os.path.realpath(candidate)
            if not _inside(candidate, base):
                raise SkillFileError(f"{path} is a link that leads outside the skill folder")
        current = candidate
    real = os.path.realpath(current)
    if not _inside(real, base):
        raise SkillFileError(f"{path} leads outside the skill folder")
    if real != base and not served(os.path.relpath(real, base).replace(os.sep, "/")):
        raise SkillFileError(f"{path} leads to a file that is not served (hidden, metadata or bookkeeping)")
    if not os.path.isfile(real):
        raise SkillFileError(f"{path} is not a file in this skill")
    return real


def list_files(folder: str | os.PathLike, sub: str = "", *, limit: int = MAX_LISTED) -> tuple[list[str], bool]:
    """(sorted relative paths of the files `read_in` serves under `sub`, whether the listing stopped at `limit`).

    Walks without following links out of the folder; hidden entries, metadata and bookkeeping are left out.
    """
    base = os.path.realpath(folder)
    start = base if not sub else resolve_dir(folder, sub)
    out: list[str] = []
    stack = [start]
    seen: set[str] = set()
    visited = 0
    while stack:
        directory = stack.pop()
        if os.path.realpath(directory) in seen:
            continue  # a link back up: each real folder is listed once
        seen.add(os.path.realpath(directory))
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            visited += 1
            if visited > MAX_VISITED:
                return sorted(out)[:limit], True
            real = os.path.realpath(entry.path)
            rel = os.path.relpath(os.path.join(directory, entry.name), base).replace(os.sep, "/")
            if not _inside(real, base) or not served(rel) or not served(os.path.relpath(real, base).replace(os.sep, "/")):
                continue
            if os.path.isdir(real):
                if rel.count("/") + 1 < paths.MAX_DEPTH:
                    stack.append(os.path.join(directory, entry.name))
            elif os.path.isfile(real):
                out.append(rel)
                if len(out) > limit:
                    return sorted(out)[:limit], True
    return sorted(out), False


def resolve_dir(folder: str | os.PathLike, path: object) -> str:
    """The real path of a folder inside `folder` (SkillFileError when it is not one)."""
    base = os.path.realpath(folder)
    if isinstance(path, str) and path.strip().strip("/") in ("", "."):
        return base
    parts = clean_parts(path)
    real = os.path.realpath(os.path.join(base, *parts))
    if not _inside(real, base) or not served(os.path.relpath(real, base).replace(os.sep, "/")):
        raise SkillFileError(f"{path} leads outside the skill folder")
    if not os.path.isdir(real):
        raise SkillFileError(f"{path} is not a folder in this skill")
    return real


def read_bytes_in(folder: str | os.PathLike, path: object, *, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file inside `folder`: `resolve_in`'s path rule, opened without following a link,
    at most `max_bytes` (a file that grows while read is cut there)."""
    real = resolve_in(folder, path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        raise SkillFileError(f"{path} cannot be opened: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SkillFileError(f"{path} is not a regular file")
        if info.st_size > max_bytes:
            raise SkillFileError(f"{path} is {info.st_size} bytes; the limit is {max_bytes}")
        return handle.read(max_bytes + 1)[:max_bytes]


def read_in(folder: str | os.PathLike, path: object, *, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of a file inside `folder`."""
    data = read_bytes_in(folder, path, max_bytes=max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFileError(f"{path} is not UTF-8 text") from None
