"""Which of the searched patterns cannot match a file at all, from one pass of a compiled multi-pattern engine.

Most of the scan's cost on a harmless file is `Context.finditer` looking for needles, listing lines and running a
rule's pattern over them, only to find nothing: over the real folders a file holds a possible match of about one
searched pattern in six. `hyperscan` (already the gates' multi-needle matcher) compiles every pattern registered
here (`searched`, beside its definition) into one database in *prefilter* mode, which may report a match where there
is none but never misses one; one scan of a file's bytes then names every pattern that may match, and `finditer`
returns at once for the others.

Soundness, the whole point, rests on four things (tests/format/test_scan_pattern_gate.py checks each):
- what is compiled is what `finditer` runs: the line-local form (`layout.line_local`), searched line by line with
  the line's end as the string's end, rewritten by `pattern_bytes` into a byte pattern that matches wherever
  Python may match, in any script (its docstring says how), and compiled in prefilter mode (more matches, never
  fewer);
- text holding a letter IGNORECASE folds onto ASCII (`ctx.folds`: `ſ`, `ı`, `K`) is not gated, and a pattern naming
  one is refused;
- a pattern the engine or the translator refuses is simply not gated (its steps run as before);
- `SKILLYARD_SCAN_GATES=0` (`gates.ENABLED`) turns this gate off with the others, so the gate comparisons
  (tests/format/test_scan_gates*.py) compare findings with and without it.

Without `hyperscan` (platforms without a wheel) nothing is gated here: the same findings, more time.
"""

from __future__ import annotations

import re
import threading

from skillyard.format.scan import gates, layout, pattern_bytes

_REGISTERED: dict[int, re.Pattern] = {}  # id -> the pattern (kept alive, so the id is never reused)
_state: list = []  # [database or None, {id(pattern): engine id}, per-thread scratch], built on first use
_lock = threading.Lock()
USE = True  # tests turn it off to compare


def searched(pattern: re.Pattern) -> re.Pattern:
    """Register a pattern `Context.finditer` searches (at import: scan/searched.py lists them): from the next
    database build on, a file it cannot match skips it. Returns the pattern."""
    if isinstance(pattern.pattern, str) and id(pattern) not in _REGISTERED:
        _REGISTERED[id(pattern)] = pattern
        _state.clear()
    return pattern


def engine_source(pattern: re.Pattern) -> str | None:
    """The byte pattern the engine searches for `pattern`'s line-local form (`pattern_bytes`), or None when it
    cannot be gated soundly."""
    try:
        return pattern_bytes.byte_pattern(layout.line_local(pattern))
    except pattern_bytes.Unsupported:
        return None


def _flags(pattern: re.Pattern) -> int:
    hs = gates._hyperscan
    flags = hs.HS_FLAG_PREFILTER | hs.HS_FLAG_MULTILINE | hs.HS_FLAG_SINGLEMATCH | hs.HS_FLAG_ALLOWEMPTY
    if pattern.flags & re.IGNORECASE:
        flags |= hs.HS_FLAG_CASELESS
    if pattern.flags & re.DOTALL:
        flags |= hs.HS_FLAG_DOTALL
    return flags


def _database(entries: list[tuple[int, bytes, int]]):
    """One block-mode database of (engine id, byte pattern, flags) entries; raises `hyperscan.error` on a refusal."""
    hs = gates._hyperscan
    database = hs.Database(mode=hs.HS_MODE_BLOCK)
    database.compile(expressions=[e[1] for e in entries], ids=[e[0] for e in entries], elements=len(entries),
                     flags=[e[2] for e in entries])
    return database


def _compiles(entry: tuple[int, bytes, int]) -> bool:
    try:
        _database([entry])
    except gates._hyperscan.error:
        return False
    return True


def _translator_digest() -> str:
    """What the engine's patterns depend on besides the registered ones: the translator's and the line-local
    rewrite's own code (their source files, read as bytes) and the Unicode version (case variants)."""
    import hashlib
    import unicodedata

    digest = hashlib.sha256(unicodedata.unidata_version.encode())  # (case variants: `pattern_bytes.case_variants`)
    for module in (pattern_bytes, layout):
        with open(module.__file__, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


def _build() -> list:
    """The database of every registered pattern the engine takes, kept between runs (recache.stored: named by a
    digest of the patterns, the translator's code, hyperscan's version and the machine, so a kept one is used
    without translating anything). A pattern the engine refuses (or the translator) is left out."""
    import hashlib
    import json
    import platform

    from skillyard import recache

    hs = gates._hyperscan
    by_original: dict[tuple[str, int], list[int]] = {}
    for key, pattern in _REGISTERED.items():
        by_original.setdefault((pattern.pattern, pattern.flags), []).append(key)
    originals = sorted(by_original)

    def make():
        entries: list[tuple[int, bytes, int]] = []
        for index, original in enumerate(originals):
            pattern = _REGISTERED[by_original[original][0]]
            source = engine_source(pattern)
            if source is not None:
                entries.append((index, source.encode(), _flags(pattern)))
        try:
            database = _database(entries) if entries else None
        except hs.error:  # one is refused: find which, and build without them
            entries = [e for e in entries if _compiles(e)]
            database = _database(entries) if entries else None
        return [e[0] for e in entries], database

    def dump(made) -> bytes:
        kept, database = made
        return json.dumps(kept).encode() + b"\n" + (hs.dumpb(database) if database is not None else b"")

    def load(blob: bytes):
        head, _, body = blob.partition(b"\n")
        kept = json.loads(head)
        return kept, (hs.loadb(body, mode=hs.HS_MODE_BLOCK) if kept else None)

    def check(made) -> bool:
        kept, database = made
        if not isinstance(kept, list) or not all(isinstance(k, int) and 0 <= k < len(originals) for k in kept):
            return False
        if database is not None:
            database.scan(b"", match_event_handler=lambda *_: None, scratch=hs.Scratch(database))
        return True

    about = (originals, _translator_digest(), hs.__version__, platform.machine())
    digest = hashlib.sha256(repr(about).encode()).hexdigest()
    kept, database = recache.stored(f"hyperscan-patterns.{digest[:24]}.db", make, dump, load, check)
    engine_ids = {key: index for index in kept for key in by_original[originals[index]]}
    state = [database, engine_ids, threading.local()]
    _state[:] = state
    return state


UNSEEN = object()  # a context's `_pattern_hits` before its first ask


def possible(ctx) -> tuple[dict[int, int], frozenset[int]] | None:
    """(the registered patterns' engine ids, the ids of those that may match `ctx`'s text), found in one scan;
    None where nothing is gated (the gates off, a letter that folds onto ASCII, no `hyperscan`)."""
    if not USE or gates._hyperscan is None or not gates.ENABLED or ctx.folds:
        return None
    with _lock:
        database, engine_ids, local = _state or _build()
    if database is None:
        return None
    if getattr(local, "database", None) is not database:
        local.scratch, local.database = gates._hyperscan.Scratch(database), database
    found: set[int] = set()
    database.scan(ctx.raw, match_event_handler=lambda at, start, end, flags, context: found.add(at),
                  scratch=local.scratch)
    return engine_ids, frozenset(found)


def _hits(ctx) -> tuple[dict[int, int], frozenset[int]] | None:
    """`possible` for `ctx`, worked out on its first ask and kept in it."""
    hits = ctx._pattern_hits
    if hits is UNSEEN:
        hits = ctx._pattern_hits = possible(ctx)
    return hits


_GROUPS: dict[int, tuple] = {}  # id(pattern tuple) -> (it, the engine ids it was worked out for, its ids or None)


def none_can_match(ctx, patterns: tuple[re.Pattern, ...]) -> bool:
    """Whether none of `patterns` (a module-level tuple) can match `ctx`'s text: a step that searches only these
    stops before working out its needles. One set test: the tuple's engine ids are worked out once (None when one
    of them is not gated: then nothing is known)."""
    hits = _hits(ctx)
    if hits is None:
        return False
    engine_ids, found = hits
    group = _GROUPS.get(id(patterns))
    if group is None or group[0] is not patterns or group[1] is not engine_ids:
        if len(_GROUPS) > 256:  # bounded, should a caller build pattern tuples per file
            _GROUPS.clear()
        ids = [engine_ids.get(id(pattern)) for pattern in patterns]
        group = _GROUPS[id(patterns)] = (patterns, engine_ids, None if None in ids else frozenset(ids))
    return group[2] is not None and found.isdisjoint(group[2])


def cannot_match(ctx, pattern: re.Pattern) -> bool:
    """Whether `pattern` (registered with `searched`) has no match anywhere in `ctx`'s text, line by line: the
    engine's pass (once per context) found none. False whenever that is not known. (Only registered patterns have
    engine ids, and they are kept alive, so no other object can share one's `id`.)"""
    hits = _hits(ctx)
    if hits is None:
        return False
    engine_id = hits[0].get(id(pattern))
    return engine_id is not None and engine_id not in hits[1]
