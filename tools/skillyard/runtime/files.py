"""Serve files from inside one skill folder, and nothing else.

The path comes from a model, so it is treated as hostile: it must be a plain relative POSIX path with no `..`, no
hidden parts, no absolute or drive prefix, no backslash, no percent-encoding, no control characters or NUL. Each
part is then resolved on disk; a link is allowed only when its target stays inside the skill's real folder, and the
final file is opened with O_NOFOLLOW after that check.
"""

from __future__ import annotations

import os
import re
import stat

MAX_BYTES = 1024 * 1024
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
    return parts


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
    if not os.path.isfile(real):
        raise SkillFileError(f"{path} is not a file in this skill")
    return real


def read_in(folder: str | os.PathLike, path: object, *, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of a file inside `folder`."""
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
        data = handle.read(max_bytes + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFileError(f"{path} is not UTF-8 text") from None
