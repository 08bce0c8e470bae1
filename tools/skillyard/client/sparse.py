"""Mirror a sparse index (format/sparse.py) incrementally into a source's cache, as one registry.json.

A source whose URL answers with a sparse root (`"kind": "skillyard-sparse-index"`) is refreshed file by file: the
root (conditional GET, by cache.refresh_source), then only the shards whose hash differs from the mirrored ones,
then only the entries whose hash differs or that are new; names no shard lists any more are dropped. Every file is
untrusted: its bytes must hash to what its parent lists (a mismatch refuses the whole refresh, naming the URL),
each name must be a plain skill name before it becomes a path, each new entry must match the registry schema, and
sizes are bounded (root, shard and entry 1 MiB each; all downloads together and the assembled registry by
`registry.max_bytes`; the whole refresh by `http.deadline`).

A first mirror (more than BOOTSTRAP_AT new entries) takes the entries from the registry.json the site publishes
beside `sparse/`, each verified against its shard's hash like a downloaded entry; whatever is missing or differs
there is fetched one by one. A relative `raw_url_template` (a static host's) is made absolute against that
registry.json's URL, so files are fetched from where registry.json's readers fetch them.

The result is stored exactly as a registry.json source's (registry.json + meta.json, so search, info, install and
list read it unchanged) plus `sparse.json`: the hashes and ETags of the mirrored files, tied to the registry.json
they describe by its sha256. Nothing is written until everything verified; registry.json, sparse.json and meta.json
are each replaced atomically, meta last. A kill between them leaves a complete registry.json; a sparse.json that no
longer matches it is rebuilt from the registry itself (the hashes are of deterministic bytes), so the next refresh
stays incremental and correct.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from skillyard.client.config import Config, Source
from skillyard.errors import SkillyardError
from skillyard.format.sparse import HEADER_KEYS, SCHEMA_VERSION, SHARDS, entry_path, shard_of, short_hash
from skillyard.format.sparse import _bytes as canonical_bytes
from skillyard.fsutil import write_atomic

KIND = "skillyard-sparse-index"
FILE_MAX_BYTES = 1024 * 1024
MAX_SKILLS = 500_000
WORKERS = 8
BOOTSTRAP_AT = 256  # more new entries than this: take them from the registry.json beside the index, verified
STATE = "sparse.json"
_HASH = re.compile(r"^[0-9a-f]{16}\Z")
SHARD_KEYS = tuple(f"{i:02x}" for i in range(SHARDS))


def is_root(body: bytes) -> dict | None:
    """The parsed root when `body` is a sparse index root, else None (a registry.json, or anything else)."""
    if len(body) > FILE_MAX_BYTES or KIND.encode() not in body:
        return None
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) and document.get("kind") == KIND else None


def _refuse(source: Source, message: str, fix: str = "") -> SkillyardError:
    return SkillyardError(f"source {source.name!r}: {message}; the refresh was refused and the cached copy (if any) "
                          "was kept", fix or "Try again later; if it persists, report the registry's sparse index "
                          "to its host.")


def check_root(source: Source, url: str, root: dict) -> dict[str, str]:
    """The root's shard hashes, after checking its shape (every one of the 256 shards, each a 16-digit hash)."""
    shards = root.get("shards")
    if root.get("schema_version") != SCHEMA_VERSION:
        raise _refuse(source, f"the sparse index {url} has schema_version {str(root.get('schema_version'))[:20]!r}, "
                      f"this client reads {SCHEMA_VERSION!r}", "Update the client (`pip install -U skillyard`).")
    if not isinstance(shards, dict) or sorted(shards) != list(SHARD_KEYS) or \
            not all(isinstance(h, str) and _HASH.match(h) for h in shards.values()):
        raise _refuse(source, f"the sparse index {url} does not list the {SHARDS} shards with their hashes "
                      "(field `shards`)")
    count = root.get("skills")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= MAX_SKILLS:
        raise _refuse(source, f"the sparse index {url} gives no plausible skill count (field `skills`, at most "
                      f"{MAX_SKILLS:,})")
    return dict(shards)


def _check_name(source: Source, url: str, name: object) -> str:
    from skillyard.client.store import check_name

    try:
        return check_name(name, what="skill name")
    except SkillyardError as exc:
        raise _refuse(source, f"{url} lists a name that is not a skill name: {exc.message}") from None


def parse_shard(source: Source, url: str, key: str, body: bytes) -> dict[str, str]:
    """{name: entry hash} of a shard's bytes; every name plain and belonging to this shard, every hash well formed."""
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _refuse(source, f"the shard {url} is not valid JSON") from None
    listing = document.get("skills") if isinstance(document, dict) else None
    if not isinstance(listing, dict):
        raise _refuse(source, f"the shard {url} has no `skills` object of names and hashes")
    for name, digest in listing.items():
        _check_name(source, url, name)
        if shard_of(name) != key:
            raise _refuse(source, f"the shard {url} lists {name!r}, which belongs to shard {shard_of(name)}")
        if not isinstance(digest, str) or not _HASH.match(digest):
            raise _refuse(source, f"the shard {url} gives {name!r} no 16-digit hash")
    return listing


def parse_entry(source: Source, url: str, name: str, body: bytes) -> dict:
    try:
        entry = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _refuse(source, f"the entry {url} is not valid JSON") from None
    if not isinstance(entry, dict) or entry.get("name") != name:
        raise _refuse(source, f"the entry {url} is not the entry of {name!r} (its `name` differs)")
    return entry


class _Mirror:
    """One refresh's downloads: verified against their parent's hash, counted against the byte and time budgets."""

    def __init__(self, config: Config, source: Source, root_url: str, spent: int):
        from skillyard.client.http import settings

        self.config = config
        self.source = source
        self.root_url = root_url
        self.budget = config.registry_max_bytes
        self.spent = spent
        self.downloaded = spent
        self.requests = 1
        self.ends = time.monotonic() + config.http_deadline
        self.lock = threading.Lock()
        self.limits = {**settings(config), "max_bytes": min(FILE_MAX_BYTES, self.budget)}

    def url(self, rel: str) -> str:
        return urljoin(self.root_url, rel)

    def get(self, rel: str, expected: str | None, etag: str | None = None, known: bytes | None = None):
        """(bytes, etag) of `rel` hashing to `expected` (None: no parent to check against); `known` is what a 304 to
        `etag` stands for."""
        from skillyard.client.http import FetchError, fetch
        from skillyard.client.tokens import token_for_url

        url = self.url(rel)
        remaining = self.ends - time.monotonic()
        if remaining <= 0:
            raise _refuse(self.source, f"the sparse index did not finish downloading within http.deadline "
                          f"({self.config.http_deadline:g} s)", "Try again, or raise http.deadline in config.yaml.")
        token = token_for_url(self.source, url, self.config)
        limits = {**self.limits, "deadline": min(self.limits.get("deadline") or remaining, remaining)}
        try:
            response = fetch(url, token=token, etag=etag if known is not None else None, accept="application/json",
                             **limits)
            with self.lock:
                self.requests += 1
            if response.not_modified:
                if expected is None or short_hash(known) == expected:
                    return known, response.etag or etag
                response = fetch(url, token=token, accept="application/json", **limits)
                with self.lock:
                    self.requests += 1
        except FetchError as exc:
            error = _refuse(self.source, exc.message, exc.fix or "")
            error.kind = exc.kind  # refresh_entry tells "no such skill" from a failure
            raise error from None
        body = response.body
        with self.lock:  # get_many's threads share the counters
            self.downloaded += len(body)
            self.spent += len(body)
            spent = self.spent
        if spent > self.budget:
            raise _refuse(self.source, f"the sparse index needs more than registry.max_bytes ({self.budget:,} bytes)",
                          "If this registry is genuinely that large, raise registry.max_bytes in config.yaml.")
        if expected is not None and short_hash(body) != expected:
            raise _refuse(self.source, f"{url} does not match the hash its parent lists (expected {expected}, got "
                          f"{short_hash(body)})")
        return body, response.etag

    def bootstrap(self, wanted: dict[str, str]) -> dict[str, dict]:
        """Entries of `wanted` {name: hash} taken from the registry.json the site publishes beside `sparse/`: one
        download instead of thousands on a first mirror. Only entries whose canonical bytes hash to what their shard
        lists are taken (the rest are fetched one by one); a missing or unreadable registry.json just means that."""
        from skillyard.client.http import FetchError, fetch
        from skillyard.client.tokens import token_for_url

        url = self.url("../registry.json")
        remaining = self.ends - time.monotonic()
        limits = {**self.limits, "max_bytes": max(1, self.budget - self.spent),
                  "deadline": min(self.limits.get("deadline") or remaining, remaining)}
        try:
            response = fetch(url, token=token_for_url(self.source, url, self.config), accept="application/json",
                             **limits)
            self.requests += 1
            document = json.loads(response.body.decode("utf-8"))
        except (FetchError, UnicodeDecodeError, ValueError, RecursionError):
            return {}
        self.downloaded += len(response.body)
        self.spent += len(response.body)
        skills = document.get("skills") if isinstance(document, dict) else None
        taken: dict[str, dict] = {}
        for skill in skills if isinstance(skills, list) else []:
            name = skill.get("name") if isinstance(skill, dict) else None
            if isinstance(name, str) and name in wanted and name not in taken and \
                    short_hash(canonical_bytes(skill)) == wanted[name]:
                taken[name] = skill
        return taken

    def get_many(self, jobs: list[tuple]) -> list:
        if len(jobs) <= 1:
            return [self.get(*job) for job in jobs]
        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            return list(pool.map(lambda job: self.get(*job), jobs))


def _state_from_registry(registry: dict) -> dict:
    """The mirror state a cached registry stands for (used when sparse.json is missing or belongs to another copy)."""
    entries = {skill["name"]: short_hash(canonical_bytes(skill)) for skill in registry.get("skills", [])
               if isinstance(skill, dict) and _plain(skill.get("name"))}
    by_shard: dict[str, dict[str, str]] = {key: {} for key in SHARD_KEYS}
    for name, digest in entries.items():
        by_shard[shard_of(name)][name] = digest
    shards = {key: {"hash": short_hash(canonical_bytes({"skills": dict(sorted(listing.items()))}))}
              for key, listing in by_shard.items()}
    return {"shards": shards, "entries": entries}


def _plain(name: object) -> bool:
    """A name a mirrored registry may hold (its names became paths once; a damaged state file must not)."""
    from skillyard.client.store import MAX_NAME, NAME_RE

    return isinstance(name, str) and len(name) <= MAX_NAME and NAME_RE.match(name) is not None


def _well_formed(state: dict) -> bool:
    """Every part of a state file has the shape `refresh` reads (anything else: rebuilt from the registry)."""
    shards, entries, etags = state.get("shards"), state.get("entries"), state.get("etags", {})
    return (isinstance(shards, dict)
            and all(isinstance(v, dict) and all(isinstance(x, str | None) for x in v.values()) for v in shards.values())
            and isinstance(entries, dict) and all(_plain(n) and isinstance(d, str) for n, d in entries.items())
            and isinstance(etags, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in etags.items())
            and isinstance(state.get("root_url", ""), str))


def load_state(directory: Path, registry_sha256: str, registry: dict | None) -> dict:
    try:
        state = json.loads((directory / STATE).read_text(encoding="utf-8"))
        if isinstance(state, dict) and state.get("registry_sha256") == registry_sha256 and _well_formed(state):
            return state
    except (OSError, ValueError, RecursionError):
        pass
    return _state_from_registry(registry) if registry else {"shards": {}, "entries": {}}


def _anchored(header: dict, root_url: str) -> dict:
    """The header with a relative `raw_url_template` (a static host's `{path}`, relative to registry.json) made
    absolute: the files sit beside the registry.json at `../registry.json` from the root, not beside the root."""
    repository = header.get("repository")
    template = repository.get("raw_url_template") if isinstance(repository, dict) else None
    if not isinstance(template, str) or urlsplit(template).scheme:
        return header
    absolute = urljoin(urljoin(root_url, "../registry.json"), template)
    return {**header, "repository": {**repository, "raw_url_template": absolute}}


def refresh(config: Config, source: Source, response, cached, root: dict) -> tuple[dict, dict]:
    """Mirror the sparse index whose root `response` just brought (`root`: its parsed body, see `is_root`); returns
    (registry, meta) after storing both."""
    from skillyard.format.schemas import check_document

    url = response.url or source.url
    shard_hashes = check_root(source, url, root)
    directory = Path(config.cache_dir) / "registries" / source.name
    old_registry = None
    if cached is not None and cached.meta.get("sparse"):
        try:
            old_registry = cached.registry()
        except SkillyardError:
            old_registry = None
    state = load_state(directory, cached.meta.get("sha256", "") if cached else "", old_registry)
    old_entries: dict[str, dict] = {s["name"]: s for s in (old_registry or {}).get("skills", [])}
    mirror = _Mirror(config, source, url, len(response.body))

    changed = [key for key in SHARD_KEYS if (state["shards"].get(key) or {}).get("hash") != shard_hashes[key]]
    by_shard: dict[str, dict[str, str]] = {key: {} for key in SHARD_KEYS}  # unchanged shards: the mirrored names
    for name, digest in state["entries"].items():
        if isinstance(name, str) and isinstance(digest, str):
            by_shard[shard_of(name)][name] = digest
    jobs = []
    for key in changed:
        etag = (state["shards"].get(key) or {}).get("etag")  # a 304 means "what you mirrored", checked by its hash
        known = canonical_bytes({"skills": dict(sorted(by_shard[key].items()))}) if etag else None
        jobs.append((f"shards/{key}.json", shard_hashes[key], etag, known))
    new_shards = {key: state["shards"][key] for key in SHARD_KEYS if key not in changed}
    listed = sum(len(by_shard[key]) for key in SHARD_KEYS if key not in changed)
    for key, (body, etag) in zip(changed, mirror.get_many(jobs), strict=True):
        by_shard[key] = parse_shard(source, mirror.url(f"shards/{key}.json"), key, body)
        new_shards[key] = {"hash": shard_hashes[key], "etag": etag}
        listed += len(by_shard[key])
        if listed > root["skills"]:  # stop early: no more names are held than the root announced
            raise _refuse(source, f"the shards of {url} list more skills than the root says ({root['skills']:,})")

    wanted = {name: digest for listing in by_shard.values() for name, digest in listing.items()}
    if len(wanted) > MAX_SKILLS or len(wanted) != root["skills"]:
        raise _refuse(source, f"the shards of {url} list {len(wanted):,} skills, the root says {root['skills']:,}")
    to_fetch = sorted(n for n, digest in wanted.items() if n not in old_entries or state["entries"].get(n) != digest)
    fresh = mirror.bootstrap({n: wanted[n] for n in to_fetch}) if len(to_fetch) > BOOTSTRAP_AT else {}
    rest = [n for n in to_fetch if n not in fresh]
    fetched = mirror.get_many([(entry_path(n), wanted[n]) for n in rest])
    refetched = set(to_fetch)  # an entry fetched again never keeps its old ETag, even if the new answer has none
    etags = {n: e for n, e in (state.get("etags") or {}).items() if n in wanted and n not in refetched}
    etags.update({n: etag for n, (_, etag) in zip(rest, fetched, strict=True) if etag})
    fresh.update({n: parse_entry(source, mirror.url(entry_path(n)), n, body)
                  for n, (body, _) in zip(rest, fetched, strict=True)})
    header = _anchored({key: root[key] for key in HEADER_KEYS if key in root}, url)
    what = f"the sparse index of source {source.name!r} ({url})"
    check_document("registry", {"schema_version": "1.0", **header, "skills": list(fresh.values())}, what=what)
    skills = [fresh.get(n) or old_entries[n] for n in sorted(wanted)]
    registry = {"schema_version": "1.0", **header, "skills": skills}
    body = json.dumps(registry, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    if len(body) > config.registry_max_bytes:
        raise _refuse(source, f"the assembled registry is larger than registry.max_bytes ({config.registry_max_bytes:,}"
                      " bytes)", "If this registry is genuinely that large, raise registry.max_bytes in config.yaml.")
    digest = hashlib.sha256(body).hexdigest()
    write_atomic(directory / "registry.json", body, mode=0o600)
    write_atomic(directory / STATE, json.dumps({"registry_sha256": digest, "root_url": url, "shards": new_shards,
                                                "entries": dict(sorted(wanted.items())), "etags": etags},
                                               separators=(",", ":")), mode=0o600)
    now = time.time()
    stat = (directory / "registry.json").stat()
    meta = {"url": source.url, "etag": response.etag, "last_modified": response.last_modified, "sha256": digest,
            "checked_at": now, "fetched_at": now, "sparse": True, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
            "last_refresh": {"requests": mirror.requests, "bytes": mirror.downloaded, "shards": len(changed),
                             "entries": len(to_fetch)}}
    write_atomic(directory / "meta.json", json.dumps(meta, sort_keys=True, indent=2), mode=0o600)
    return registry, meta



def refresh_entry(config: Config, source: Source, cached, name: str) -> tuple[dict, dict] | None:
    """Bring one skill's entry up to date with one (conditional) GET, instead of refreshing the whole index: what an
    install of `name` from a stale cache needs. Returns (registry, meta) after storing the change, or None when this
    cannot answer (no sparse mirror, an invalid name, the entry gone or unreadable): the caller refreshes fully
    then, which reports any problem. The index's `checked_at` is left as it was: only this entry was checked."""
    from skillyard.client.store import check_name
    from skillyard.format.schemas import check_document

    try:
        check_name(name)
        registry = cached.registry() if cached is not None and cached.meta.get("sparse") else None
    except SkillyardError:
        return None
    if registry is None:
        return None
    directory = Path(config.cache_dir) / "registries" / source.name
    state = load_state(directory, cached.meta.get("sha256", ""), registry)
    etags = dict(state.get("etags") or {})
    old = next((s for s in registry.get("skills", []) if s.get("name") == name), None)
    known = canonical_bytes(old) if old is not None and etags.get(name) else None
    mirror = _Mirror(config, source, state.get("root_url") or source.url, 0)
    try:
        body, etag = mirror.get(entry_path(name), None, etags.get(name), known)
        entry = parse_entry(source, mirror.url(entry_path(name)), name, body)
        header = {key: registry[key] for key in HEADER_KEYS if key in registry}
        check_document("registry", {"schema_version": "1.0", **header, "skills": [entry]},
                       what=f"the entry of {name!r} in source {source.name!r}")
    except SkillyardError as exc:
        if getattr(exc, "kind", None) == "not-found" and old is None:
            return registry, cached.meta  # the server has no such skill, and neither has the mirror
        return None
    digest = short_hash(body)
    if etag:
        etags[name] = etag
    if digest == state["entries"].get(name) and old is not None:
        if etags != (state.get("etags") or {}):
            write_atomic(directory / STATE, json.dumps({**state, "registry_sha256": cached.meta.get("sha256"),
                                                        "etags": etags}, separators=(",", ":")), mode=0o600)
        return registry, cached.meta
    skills = sorted([s for s in registry["skills"] if s.get("name") != name] + [entry], key=lambda s: s["name"])
    registry = {**registry, "skills": skills}
    data = json.dumps(registry, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")
    if len(data) > config.registry_max_bytes:
        return None
    sha = hashlib.sha256(data).hexdigest()
    shards = dict(state["shards"])
    shards.pop(shard_of(name), None)  # its hash is unknown now: the next full refresh reads that shard again
    write_atomic(directory / "registry.json", data, mode=0o600)
    write_atomic(directory / STATE, json.dumps({**state, "registry_sha256": sha, "shards": shards,
                                                "entries": {**state["entries"], name: digest}, "etags": etags},
                                               separators=(",", ":")), mode=0o600)
    stat = (directory / "registry.json").stat()
    meta = {**cached.meta, "sha256": sha, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    write_atomic(directory / "meta.json", json.dumps(meta, sort_keys=True, indent=2), mode=0o600)
    return registry, meta
