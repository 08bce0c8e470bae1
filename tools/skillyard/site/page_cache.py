"""Content-addressed cache of rendered skill pages, so a rebuild renders only the skills that changed.

The key covers everything a page depends on: the skill's registry entry, its SKILL.md body, the repository
block, and a fingerprint of the rendering code, templates and Markdown/nh3 versions. A hit therefore returns
exactly the bytes a fresh render would give, and the output never depends on the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path

from skillyard.fsutil import write_atomic

FORMAT = "skillyard-site-page-cache-1"


@cache
def code_fingerprint() -> str:
    digest = hashlib.sha256(FORMAT.encode())
    here = Path(__file__).parent
    for path in sorted([*here.glob("*.py"), *(here / "templates").glob("*.j2"), here.parent / "units.py"]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for package in ("cmarkgfm", "nh3", "jinja2"):
        try:
            digest.update(f"{package}={metadata.version(package)}\0".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{package}=?\0".encode())
    return digest.hexdigest()


def entry_digest(skill: dict) -> str:
    """sha256 of a registry entry's canonical JSON. `CheckedSkills` works it out for every entry; the page and
    staging keys then use it instead of dumping the whole entry again (three dumps of every entry were about a
    second of a one-skill rebuild at 5,000 skills)."""
    return hashlib.sha256(json.dumps(skill, sort_keys=True).encode("ascii")).hexdigest()


def page_key(repository: dict, skill: dict, body: str, served: bool = True, digest: str | None = None) -> str:
    """`digest`: the skill's `entry_digest`, when the caller has it (the key is then built from it)."""
    entry = {"entry-sha256": digest} if digest else skill
    payload = json.dumps([code_fingerprint(), repository, entry, body, served], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class PageCache:
    """Pages stored as `<key>.md` in one folder; `None` folder means no caching."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.used: set[str] = set()  # keys a caller marked as used this build (see `prune`)
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)

    def get(self, key: str) -> str | None:
        if self.folder is None:
            return None
        try:
            return (self.folder / f"{key}.md").read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            return None

    def has(self, key: str) -> bool:
        """Whether an entry is there, without reading it (`CachedPage` reads it only if a file needs it)."""
        return self.folder is not None and os.path.isfile(os.path.join(self.folder, f"{key}.md"))

    def put(self, key: str, text: str) -> None:
        if self.folder is None:
            return
        write_atomic(self.folder / f"{key}.md", text, mode=0o600)

    def prune(self, keep: set[str]) -> None:
        """Drop entries this build did not use, so the cache holds one build's pages at most."""
        if self.folder is None:
            return
        for path in self.folder.iterdir():
            if path.suffix == ".tmp" or (path.suffix == ".md" and path.stem not in keep):
                path.unlink(missing_ok=True)


class CachedPage:
    """A page named by its key (which covers everything the page is made of), its text held (`text`) or read
    from the cache only when the output needs its bytes: a one-skill rebuild at 5,000 skills no longer reads
    5,000 cached pages to find the one that changed. `render` makes the page again should the entry be gone or
    unreadable by then."""

    __slots__ = ("key", "_cache", "_render", "_text")

    def __init__(self, key: str, cache: PageCache, render: Callable[[], str] | None, text: str | None = None) -> None:
        self.key, self._cache, self._render, self._text = key, cache, render, text

    @property
    def text(self) -> str:
        if self._text is not None:
            return self._text
        text = self._cache.get(self.key)
        if text is None:
            if self._render is None:
                raise KeyError(self.key)
            text = self._render()
        return text


def page_text(page: str | CachedPage) -> str:
    return page if isinstance(page, str) else page.text


def template_cache(env, folder: Path):
    """A jinja2 bytecode cache for `env`, so mkdocs does not compile Material's templates again on every build
    (about half a second of a one-skill rebuild). jinja2 checks each entry against its template's source; the
    subfolder is named by what else compiling depends on (jinja2 version, extensions, syntax options), so two
    differently set up environments never share compiled code. Same templates, same output: only compiling is
    skipped."""
    import jinja2

    options = [jinja2.__version__, sorted(env.extensions), env.block_start_string, env.block_end_string,
               env.variable_start_string, env.variable_end_string, env.comment_start_string,
               env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix, env.trim_blocks,
               env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline, repr(env.autoescape),
               env.optimized, env.is_async, repr(env.finalize), FORMAT]
    name = hashlib.sha256(json.dumps(options, default=repr).encode()).hexdigest()[:24]
    target = folder / name
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    return jinja2.FileSystemBytecodeCache(str(target))


@cache
def schema_fingerprint() -> str:
    from skillyard.format.schemas import schema_dir

    digest = hashlib.sha256(FORMAT.encode())
    for path in sorted(schema_dir().glob("*.json")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    try:
        digest.update(f"jsonschema={metadata.version('jsonschema')}".encode())
    except metadata.PackageNotFoundError:
        digest.update(b"jsonschema=?")
    return digest.hexdigest()


class CheckedSkills:
    """The registry.json skill entries that already passed the schema check, by digest, so a rebuild checks only
    the entries that changed: checking every entry was a third of a rebuild at thousands of skills. The schema
    checks each entry on its own (no rule spans two), so skipping known-good ones gives the same verdict. One
    file per build; `None` path means check everything."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: set[str] = set()
        self.seen: set[str] = set()
        self.digests: dict[str, str] = {}  # skill name -> entry_digest, of the entries `unchecked` saw
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("fingerprint") == schema_fingerprint() and isinstance(data.get("digests"), list):
                    self.known = {d for d in data["digests"] if isinstance(d, str)}
            except (OSError, ValueError, AttributeError):
                pass

    def unchecked(self, skills: list) -> list:
        """The entries not known to pass (all of them without a cache file)."""
        out = []
        for skill in skills:
            digest = entry_digest(skill)
            self.seen.add(digest)
            if isinstance(skill, dict) and isinstance(skill.get("name"), str):
                self.digests[skill["name"]] = digest
            if digest not in self.known:
                out.append(skill)
        return out

    def save(self) -> None:
        """Record this build's entries as checked (call only after they all passed)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps({"fingerprint": schema_fingerprint(), "digests": sorted(self.seen)}),
                     mode=0o600)
