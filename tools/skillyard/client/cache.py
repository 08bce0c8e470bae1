"""The local copy of each source's registry.json, kept fresh with conditional GETs.

Layout: `<cache_dir>/registries/<source>/registry.json` plus `meta.json` {url, etag, last_modified, sha256,
size, mtime_ns, checked_at}. A registry is only stored after it parsed and matched registry.schema.json; on
later reads its sha256 must match meta.json, otherwise it is validated again, and a copy that fails is deleted
and fetched anew — a damaged cache is never trusted. Writes are atomic (temp file + os.replace), meta last; then
`search-rows.json`, what the search index needs of the registry, bound to its sha256 (client/search_rows.py).

`load_registries(config, offline=False, refresh=False)` is what read-only commands call: within `cache.ttl`
seconds of the last check the cache is used as is; otherwise (or with refresh=True) the server is asked with
If-None-Match / If-Modified-Since; when the network fails the cached copy is used with a warning
(`stale=True`). Offline is a state, not an error per command: a source whose host cannot be reached (no
connection, timeout, 5xx, rate limit) gets a negative cache entry, `unreachable.json` {url, at, error}, beside its
copy; for `cache.ttl` seconds every command skips it quietly (its cached copy, if any, is used; the built-in source
beside others is left out), so the one-line warning is printed once per TTL. `refresh=True` (`skill source
refresh`, `skill doctor`) always asks, and any answer from the host clears the entry. `sync()` does the same but parses nothing while the cache is fresh (search uses it to stay fast).

A source URL that answers with a sparse index root (`…/sparse/index.json`) is mirrored file by file by
client/sparse.py into the same registry.json + meta.json; the root's conditional GET is this module's.

A registry.json is untrusted: its download is bounded by `registry.max_bytes` and `http.deadline`, and a body
nested too deeply for the parser is a clear error, never a RecursionError.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from skillyard.client.config import Config, Source
from skillyard.errors import SkillyardError
from skillyard.format.record import Record
from skillyard.fsutil import write_atomic

Warn = Callable[[str], None]


def stderr_warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


class SourceRegistry(Record):
    """A source with its registry; `stale` means the server could not confirm this copy is current."""

    FIELDS = ("source", "registry", "stale", "checked_at")

    def __init__(self, source: Source, registry: dict, stale: bool = False, checked_at: float | None = None):
        self.source, self.registry, self.stale, self.checked_at = source, registry, stale, checked_at


class CacheEntry(Record):
    """A source's cache state after `sync()`; `registry()` parses (and verifies) on first use. `status`: cached |
    updated | not-modified | failed | entry; `loaded_sha256`: of the registry.json that registry() parsed."""

    FIELDS = ("source", "directory", "meta", "stale", "status", "error")  # as printed; _registry is left out

    def __init__(self, source: Source, directory: Path, meta: dict, stale: bool = False, status: str = "cached",
                 error: SkillyardError | None = None, _registry: dict | None = None,
                 loaded_sha256: str | None = None):
        self.source, self.directory, self.meta, self.stale, self.status = source, directory, meta, stale, status
        self.error, self._registry, self.loaded_sha256 = error, _registry, loaded_sha256

    def _values(self) -> tuple:
        return (*super()._values(), self._registry, self.loaded_sha256)


    @property
    def sha256(self) -> str:
        return self.meta.get("sha256", "")

    def registry(self, warn: Warn = stderr_warn) -> dict:
        if self._registry is None:
            registry, self.loaded_sha256 = _load_verified(self.source, self.directory, self.meta, warn)
            if registry is None:
                raise SkillyardError(f"the cached registry of source {self.source.name!r} is damaged and was removed",
                                     f"Run `skill source refresh {self.source.name}` while online.")
            self._registry = registry
        return self._registry


def source_dir(config: Config, source: Source | str) -> Path:
    name = source if isinstance(source, str) else source.name
    return config.cache_dir / "registries" / name


def read_meta(config: Config, source: Source) -> dict | None:
    """meta.json of the source's cache, or None when missing, unreadable or written for another URL."""
    try:
        meta = json.loads((source_dir(config, source) / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("url") != source.url or not isinstance(meta.get("sha256"), str):
        return None
    return meta


def discard(config: Config, source: Source | str) -> None:
    """Forget a source's cached registry (used by `source remove` and for damaged copies)."""
    shutil.rmtree(source_dir(config, source), ignore_errors=True)


def parse_registry(body: bytes, *, what: str) -> dict:
    """JSON-decode and schema-check a registry.json body; SkillyardError naming `what` otherwise."""
    from skillyard.format.schemas import check_document

    try:
        registry = json.loads(body.decode("utf-8"))
        check_document("registry", registry, what=what)
    except (UnicodeDecodeError, ValueError) as exc:
        raise SkillyardError(f"{what} is not valid JSON: {exc}",
                             "Check that the source URL points at a registry.json file.") from None
    except RecursionError:
        raise SkillyardError(f"{what} is nested too deeply to be a registry",
                             "Check that the source URL points at a genuine registry.json file.") from None
    return registry


def _load_verified(source: Source, directory: Path, meta: dict, warn: Warn) -> tuple[dict | None, str | None]:
    """(the cached registry, the sha256 of its registry.json) if it is intact (sha256 as recorded, or else
    schema-valid); (None, None) after discarding it."""
    path = directory / "registry.json"
    try:
        body = path.read_bytes()
    except OSError:
        return None, None
    digest = hashlib.sha256(body).hexdigest()
    if digest == meta.get("sha256"):
        try:
            return json.loads(body), digest
        except (ValueError, RecursionError):
            pass
    try:
        registry = parse_registry(body, what=f"cached registry of source {source.name!r}")
    except SkillyardError as exc:
        warn(f"discarding the damaged cached registry of source {source.name!r}: {exc.message}")
        shutil.rmtree(directory, ignore_errors=True)
        return None, None
    _write_meta(directory, {**meta, "sha256": digest})
    return registry, digest


def _write_meta(directory: Path, meta: dict) -> dict:
    stat = (directory / "registry.json").stat()
    meta = {**meta, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    write_atomic(directory / "meta.json", json.dumps(meta, sort_keys=True, indent=2), mode=0o600)
    return meta


def _quick_ok(directory: Path, meta: dict) -> bool:
    try:
        stat = (directory / "registry.json").stat()
    except OSError:
        return False
    return stat.st_size == meta.get("size") and stat.st_mtime_ns == meta.get("mtime_ns")


def _cached_entry(config: Config, source: Source, warn: Warn) -> CacheEntry | None:
    directory = source_dir(config, source)
    meta = read_meta(config, source)
    if meta is None:
        if (directory / "registry.json").exists():
            shutil.rmtree(directory, ignore_errors=True)
        return None
    entry = CacheEntry(source, directory, meta)
    if not _quick_ok(directory, meta):
        registry, entry.loaded_sha256 = _load_verified(source, directory, meta, warn)
        if registry is None:
            return None
        entry.meta = read_meta(config, source) or meta
        entry._registry = registry
    return entry


UNREACHABLE = "unreachable.json"


def unreachable_since(config: Config, source: Source, now: float | None = None) -> dict | None:
    """The negative cache entry {url, at, error} of a source that could not be reached less than `cache.ttl`
    seconds ago (and not in the future: a clock set back must not silence a source for long), else None."""
    try:
        mark = json.loads((source_dir(config, source) / UNREACHABLE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    now = time.time() if now is None else now
    if not isinstance(mark, dict) or mark.get("url") != source.url or not isinstance(mark.get("at"), int | float):
        return None
    return mark if 0 <= now - mark["at"] < config.cache_ttl else None


def _remember_unreachable(config: Config, source: Source, error: SkillyardError) -> None:
    directory = source_dir(config, source)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_atomic(directory / UNREACHABLE, json.dumps({"url": source.url, "at": time.time(),
                                                          "error": error.message[:500]}), mode=0o600)
    except OSError:
        pass  # a read-only cache only costs the retry


def _forget_unreachable(config: Config, source: Source) -> None:
    with contextlib.suppress(OSError):  # a read-only cache must not fail a fetch that worked
        (source_dir(config, source) / UNREACHABLE).unlink()


def offline_kind(error: SkillyardError) -> bool:
    """True for a failure that says the host is unreachable now (no connection, timeout, 5xx, rate limit), as
    opposed to a wrong URL or a bad registry, which a retry in a minute would not change."""
    return getattr(error, "kind", None) in ("network", "timeout", "reset", "server", "rate-limit")


def refresh_source(config: Config, source: Source, *, cached: CacheEntry | None = None,
                   progress=None) -> CacheEntry:
    """Ask the server (conditionally when a cached copy exists); store a new registry only if it validates.

    Raises FetchError or SkillyardError on failure; the cached copy is left untouched then.
    """
    # imported here: a warm, fresh cache never needs the network stack
    from skillyard.client.http import FetchError, fetch, settings
    from skillyard.client.tokens import token_for

    directory = source_dir(config, source)
    meta = cached.meta if cached else {}
    limits = {**settings(config), "max_bytes": config.registry_max_bytes}
    try:
        response = fetch(source.url, token=token_for(source), etag=meta.get("etag"),
                         last_modified=meta.get("last_modified"), progress=progress, accept="application/json",
                         **limits)
    except FetchError as exc:
        if exc.kind == "too-large":
            exc.fix = ("If this registry is genuinely that large, raise registry.max_bytes in config.yaml "
                       "(or $SKILL_REGISTRY_MAX_BYTES); otherwise report the source.")
        if offline_kind(exc):
            _remember_unreachable(config, source, exc)
        raise
    _forget_unreachable(config, source)
    now = time.time()
    if response.not_modified and cached is not None:
        new_meta = {**meta, "checked_at": now}
        if response.etag:
            new_meta["etag"] = response.etag
        write_atomic(directory / "meta.json", json.dumps(new_meta, sort_keys=True, indent=2), mode=0o600)
        return CacheEntry(source, directory, new_meta, status="not-modified", _registry=cached._registry)
    if response.not_modified:  # a 304 without a cache to keep: ask again unconditionally
        response = fetch(source.url, token=token_for(source), accept="application/json", **limits)
    from skillyard.client import search_rows, sparse

    root = sparse.is_root(response.body)
    if root is not None:  # a sparse index: mirror only the files that changed
        registry, new_meta = sparse.refresh(config, source, response, cached, root)
        search_rows.write(directory, new_meta["sha256"], registry)  # the next index build need not parse it again
        return CacheEntry(source, directory, new_meta, status="updated", _registry=registry,
                          loaded_sha256=new_meta["sha256"])
    registry = parse_registry(response.body, what=f"registry.json of source {source.name!r} ({source.url})")
    write_atomic(directory / "registry.json", response.body, mode=0o600)
    digest = hashlib.sha256(response.body).hexdigest()
    new_meta = _write_meta(directory, {
        "url": source.url, "etag": response.etag, "last_modified": response.last_modified,
        "sha256": digest, "checked_at": now, "fetched_at": now,
    })
    search_rows.write(directory, digest, registry)  # after registry.json: the extract names the file it came from
    return CacheEntry(source, directory, new_meta, status="updated", _registry=registry, loaded_sha256=digest)


def sync(config: Config, *, offline: bool = False, refresh: bool = False, warn: Warn = stderr_warn,
         sources: list[Source] | None = None, only: str | None = None) -> list[CacheEntry]:
    """Bring every source's cache up to date as far as the network allows; see the module docstring. `only`: the
    caller needs just this skill, so a stale sparse mirror checks only its entry (sparse.refresh_entry)."""
    chosen = config.sources if sources is None else sources
    if not chosen:
        raise SkillyardError("no sources are configured (the built-in default source is removed or turned off)",
                             "Add one: `skill source add https://raw.githubusercontent.com/OWNER/REPO/main/registry.json`.")
    entries = []
    now = time.time()
    for source in chosen:
        cached = _cached_entry(config, source, warn)
        if offline:
            if cached is None:
                raise SkillyardError(f"source {source.name!r} has no cached registry to use offline",
                                     f"Run `skill source refresh {source.name}` while online.")
            cached.stale = True
            entries.append(cached)
            continue
        fresh = cached is not None and now - float(cached.meta.get("checked_at", 0)) < config.cache_ttl
        if fresh and not refresh:
            entries.append(cached)
            continue
        mark = None if refresh else unreachable_since(config, source, now)
        if mark is not None:  # offline is a state: warned about when it began, skipped quietly until the TTL ends
            entry = _unreachable(config, source, cached, SkillyardError(str(mark.get("error") or "unreachable")),
                                 quiet=True, alone=len(chosen) == 1, warn=warn)
            if entry is not None:
                entries.append(entry)
            continue
        if only is not None and not refresh and cached is not None and cached.meta.get("sparse"):
            from skillyard.client import sparse

            checked = sparse.refresh_entry(config, source, cached, only)
            if checked is not None:
                entries.append(CacheEntry(source, cached.directory, checked[1], status="entry",
                                          _registry=checked[0]))
                continue
        try:
            entries.append(refresh_source(config, source, cached=cached))
        except SkillyardError as exc:
            exc.remembered = offline_kind(exc)
            entry = _unreachable(config, source, cached, exc, quiet=False, alone=len(chosen) == 1, warn=warn)
            if entry is not None:
                entries.append(entry)
    return entries


def _unreachable(config: Config, source: Source, cached: CacheEntry | None, exc: SkillyardError, *, quiet: bool,
                 alone: bool, warn: Warn) -> CacheEntry | None:
    """What a source that failed gives: its cached copy (stale), nothing (the built-in source beside others), or an
    error when it is all there is. Warns in one line, once per `cache.ttl` for an unreachable host."""
    reason = exc.message
    remembered = getattr(exc, "remembered", False)
    retry = f"skipped for {_ttl_words(config.cache_ttl)}; `skill source refresh {source.name}` retries now" \
        if remembered else ""
    if cached is None and source.builtin and not alone:
        # The built-in default source must not stop the user's own sources from working.
        if not quiet:
            warn(f"the built-in default source {source.name!r} cannot be reached ({reason}); "
                 + (retry or "skipped") + f"; remove it with `skill source remove {source.name}`")
        return None
    if cached is None and source.builtin:
        again = f" (not asked again for {_ttl_words(config.cache_ttl)}; `skill source refresh {source.name}` " \
            "asks now)" if quiet or remembered else ""
        raise SkillyardError(f"the built-in default source {source.name!r} cannot be reached: {reason}{again}",
                             "Check your network (and proxy), or use your own registry: "
                             "`skill source add URL --default`.") from exc
    if cached is None:
        if quiet:
            raise SkillyardError(f"source {source.name!r} cannot be reached: {reason} (remembered for "
                                 f"{_ttl_words(config.cache_ttl)})",
                                 f"Check your network, then `skill source refresh {source.name}`.")
        raise exc
    if not quiet:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(cached.meta.get("checked_at", 0))))
        warn(f"source {source.name!r}: {reason}; using the cached copy from {when}" + (f"; {retry}" if retry else ""))
    cached.stale = True
    cached.status = "failed"
    cached.error = exc
    return cached


def _ttl_words(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"


def load_registries(config: Config, *, offline: bool = False, refresh: bool = False, warn: Warn = stderr_warn,
                    sources: list[Source] | None = None, only: str | None = None) -> list[SourceRegistry]:
    """Every source's registry, highest priority first (see the module docstring for freshness rules; `only` as
    for sync)."""
    out = []
    for entry in sync(config, offline=offline, refresh=refresh, warn=warn, sources=sources, only=only):
        try:
            registry = entry.registry(warn)
        except SkillyardError:
            if offline:
                raise
            entry = refresh_source(config, entry.source)  # the copy was damaged after sync: fetch it again
            registry = entry.registry(warn)
        out.append(SourceRegistry(entry.source, registry, entry.stale, entry.meta.get("checked_at")))
    return out


__all__ = ["CacheEntry", "SourceRegistry", "discard", "load_registries", "parse_registry",
           "read_meta", "refresh_source", "source_dir", "stderr_warn", "sync"]
