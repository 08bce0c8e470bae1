"""Which skills the site publishes under `/.well-known/agent-skills/`, and reading their files safely.

Files there are served from the registry's own origin (on GitHub Pages: shared by every project site of the
owner), with a Content-Type chosen from the file's suffix. An `.html`, `.svg`, `.xhtml`, `.xml`+XSL or `.pdf`
opened there would run as the site. So only suffixes that no browser runs are served (`INERT_SUFFIXES`, an
allow-list: an unknown suffix may map to an HTML-ish type), and a skill is published whole or not at all: the
skill never installs half. Every other skill is still on its page, with links to its files at the pinned commit
on the code host (another origin), and installs with `skill install`. The discovery index lists skills as archives
instead (`archive_problems`: a `.tar.gz` is downloaded, never run), so those install with `npx skills` too.

Paths follow the shared rule (`skillyard.format.paths`); a skill whose files the site cannot write or read (bad
name, case collision, symlink, not a regular file, larger than registry.json says) is left out with a note, and
never stops the build for the other skills.
"""

from __future__ import annotations

import os
import stat
from functools import lru_cache
from pathlib import Path, PurePosixPath

from skillyard.format.paths import component_problem, is_hidden, path_problem, path_set_problems, shown
from skillyard.format.skill_archive import size_problem

# Suffixes served as text, images, fonts or downloads: never as a document that can run script. No `.js`/`.mjs`
# either (a same-origin script is a gadget against any page on the origin that trusts 'self'), no `.css`, `.pdf`,
# and no `.rs`: the common type tables (mime-db, which GitHub Pages uses; Python's) map it to
# `application/rls-services+xml`, which a browser renders as XML, stylesheets and scripts included.
INERT_SUFFIXES = frozenset({
    # text and data
    ".md", ".markdown", ".txt", ".text", ".rst", ".adoc", ".log", ".json", ".jsonl", ".ndjson", ".ipynb",
    ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".csv", ".tsv", ".sql", ".diff", ".patch", ".lock",
    # source code shown as text or downloaded
    ".py", ".pyi", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd", ".rb", ".go", ".java", ".kt",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".r", ".lua", ".pl", ".ts", ".tsx", ".jsx", ".j2", ".jinja",
    # raster images, fonts, archives and office documents
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".ico", ".woff", ".woff2", ".ttf", ".otf",
    ".zip", ".gz", ".tgz", ".tar", ".bz2", ".xz", ".docx", ".xlsx", ".pptx", ".odt", ".ods",
})


MAX_DESCRIPTION = 1024  # the discovery schema 0.2.0's bound; `npx skills` skips a longer entry


@lru_cache(maxsize=65536)  # a pure function of the path; most skills share most of their file names
def file_problem(rel: str) -> str | None:
    """Why the site does not serve the skill file `rel` from its origin, or None when it may."""
    problem = path_problem(rel)
    if problem:
        return f"`{shown(rel)}` {problem}"
    if is_hidden(rel):
        return f"`{rel}` is hidden (a name starting with a dot)"
    suffix = PurePosixPath(rel).suffix.lower()
    if suffix and suffix not in INERT_SUFFIXES:
        return (f"`{rel}` has the suffix `{suffix}`, which a browser may run as a page on the site's origin "
                "(only text, image, font and archive types are served)")
    return None


def skill_problems(skill: dict) -> list[str]:
    """Why the skill is not published under the well-known path (empty: it is), from registry.json alone."""
    if "source_url" in skill:
        return ["its files live in the upstream repository, which this site does not copy"]
    return file_set_problems(skill)


def file_set_problems(skill: dict) -> list[str]:
    """`skill_problems` of the listed files alone: also what a pointer skill whose upstream content this build
    fetched and checked must pass to be served (`upstream`)."""
    paths = [entry["path"] for entry in skill.get("files", [])]
    problems = [problem for rel in paths if not path_problem(rel) and (problem := file_problem(rel))]
    return problems + _layout_problems(skill)


def archive_problems(skill: dict) -> list[str]:
    """Why the skill's files cannot be served as one `.tar.gz` under the well-known path (empty: they can). An
    archive is inert in a browser (downloaded, never run as a page), so only the path rules, SKILL.md, the name,
    the index's description bound and the archive's size bounds apply, not the suffix allow-list: a skill with an
    HTML or JS file is served this way. The caller adds the licence and the bytes' check (`machine`)."""
    problems = _layout_problems(skill)
    if len(str(skill.get("description", ""))) > MAX_DESCRIPTION:
        problems.append(f"its description is longer than {MAX_DESCRIPTION} characters (the discovery index's bound)")
    too_big = size_problem([int(entry.get("size", 0)) for entry in skill.get("files", [])])
    if too_big:
        problems.append(too_big)
    return problems


def _layout_problems(skill: dict) -> list[str]:
    """What no client can install, however it is served: bad paths and names, no SKILL.md."""
    paths = [entry["path"] for entry in skill.get("files", [])]
    problems = [f"`{shown(rel)}` {why}" for rel in paths if (why := path_problem(rel))]
    problems += [f"`{rel}` {why}" for rel, why in path_set_problems(paths)]
    if "SKILL.md" not in paths:
        problems.append("no `SKILL.md` is listed (well-known clients require it)")
    folder_problem = component_problem(str(skill.get("name", "")))
    if folder_problem:  # clients install into a folder of this name
        problems.insert(0, f"the skill name, as a folder name, {folder_problem}")
    return problems


class UnreadableFile(Exception):
    """A listed file the site will not read: a symlink is on its way, or it is not a regular file."""


def symlink_on_the_way(folder: Path | str, rel: str) -> bool:
    """Whether a component of `rel` under `folder` is a symlink: the same answer as comparing realpaths, with one
    lstat per component of `rel` instead of one per component of the whole path, twice (a third of reading every
    SKILL.md at 5,000 skills)."""
    parts = rel.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return os.path.realpath(os.path.join(folder, rel)) != os.path.join(os.path.realpath(folder), *parts)
    current = os.fspath(folder)
    for part in parts:
        current = os.path.join(current, part)
        if os.path.islink(current):
            return True
    return False


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def read_regular(folder: Path | str, rel: str, limit: int) -> bytes:
    """The first `limit + 1` bytes at most of `folder/rel` (more than `limit` tells the caller it grew), when it is
    a regular file reached without symlinks; never blocks on a FIFO or device. Plain system calls on strings: this
    runs for every served file of every build (20,000 at 5,000 skills)."""
    path = os.path.join(folder, rel)
    if symlink_on_the_way(folder, rel):
        raise UnreadableFile(f"{path}: a symlink is on the way; the site reads only regular files")
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise UnreadableFile(f"{path}: cannot be opened ({exc.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnreadableFile(f"{path}: not a regular file")
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, left)
            chunks.append(chunk)
            if len(chunk) < left:  # a regular file reads short only at its end: no further read to get b""
                break
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
