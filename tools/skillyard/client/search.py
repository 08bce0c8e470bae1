"""Full-text search over the cached registries, with SQLite FTS5 (in the standard library).

The index is one SQLite file, `<cache_dir>/search/<key>.sqlite`, where `key` is a digest of the cached registries
(source name, priority, registry sha256) and the analyzer version: it is rebuilt only when a registry changed, so
a warm `skill search` opens it without parsing any registry.json.

Matching: the words are looked for in the name, then in name or tags, then anywhere, and hits are ranked in that
order (then by source priority, then name); every word also matches as a prefix ("inv") and, when nothing matches as
typed, from four letters on with one typo ("invoise"; two from eight letters on; the first letter must be right).
All query words must match; when none does, any word may. Text is split into words by our own parser (letters and
digits, lower-cased) before FTS5 sees it, the same way for the index and the query: SQLite's tokenizers use older
Unicode tables than Python's, and two parsers would disagree on some characters. ASCII text, most of a registry, is
the exception: FTS5's `ascii` tokenizer splits it exactly as our parser does, so it is handed over as is (the
words table is contentless and keeps no column sizes: it holds only the index, the text shown is in `skills`, and
nothing is ranked by BM25). CJK scripts have no spaces, so runs
of CJK characters are written out as single characters plus overlapping pairs, and a query is matched by its pairs:
"发票" finds "处理发票". Rows are stored in rank order, so a query reads only the matches it returns: the cost of
a query does not grow with the registry.

Why not whoosh (used until 0.1): no release since 2016 and its forks are unmaintained or unproven; measured on the
same 10,000-skill data, FTS5 builds the index and answers queries tens of times faster (benchmarks/README.md).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import os
import re
import sqlite3
import tempfile
from pathlib import Path

from skillyard.client.cache import CacheEntry, stderr_warn, sync
from skillyard.client.config import Config
from skillyard.client.search_rows import TAG_SEPARATOR, row
from skillyard.client.search_rows import tag_text as _tag_text  # noqa: F401 (importable from here as before)
from skillyard.errors import SkillyardError
from skillyard.format.record import Record  # not a dataclass: that import is ~15 ms of a warm search

ANALYZER_VERSION = "fts5-5"
NAME_WEIGHT, TAGS_WEIGHT, DESCRIPTION_WEIGHT = 4.0, 2.0, 1.0  # a hit's score: where its words are found
_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(r"[^\W_]+")
MAX_QUERY_WORDS = 32
# FTS5 keeps this much new index in memory before writing a segment (default 1 MiB): a registry's index is then
# written once, not as dozens of segments merged again and again (~0.3 s of a 50,000-skill build).
FTS_HASH_BYTES = 64 * 1024 * 1024


@functools.cache
def _cjk_patterns() -> tuple[re.Pattern, re.Pattern, re.Pattern, re.Pattern]:
    """(TOKEN_RE, CJK_RE, _ANY_CJK, CJK_RUNS), compiled on the first non-ASCII text: compiling the CJK ranges takes
    ~15 ms, a sixth of a warm `skill search`, and most queries and entries are ASCII."""
    return (re.compile(rf"([{_CJK}]+)|((?:(?![{_CJK}])[^\W_])+)"), re.compile(rf"^[{_CJK}]+$"),
            re.compile(f"[{_CJK}]"), re.compile(f"([{_CJK}]+)"))


def __getattr__(name: str):
    """TOKEN_RE, CJK_RE and _ANY_CJK stay importable (PEP 562), compiled when first asked for."""
    if name in _CJK_NAMES:
        return _cjk_patterns()[_CJK_NAMES.index(name)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_CJK_NAMES = ("TOKEN_RE", "CJK_RE", "_ANY_CJK")


def tokens(text: str, mode: str = "index") -> list[str]:
    """Lower-cased words; CJK runs as pairs plus single characters when indexing, pairs only when querying (a
    one-character run stays a single character)."""
    text = text.lower()
    if text.isascii() or not _cjk_patterns()[2].search(text):
        return _WORD.findall(text)  # the common case, in C
    # Split at CJK runs (odd items): the text between them holds no CJK, so its words are _WORD's, found in C (as
    # TOKEN_RE's second group would, one match at a time).
    parts = _cjk_patterns()[3].split(text)
    out = _WORD.findall(parts[0])
    for i in range(1, len(parts), 2):
        run = parts[i]
        out += [run[j:j + 2] for j in range(len(run) - 1)]
        if mode != "query" or len(run) == 1:
            out += run
        out += _WORD.findall(parts[i + 1])
    return out


def _indexed(text: str) -> str:
    """Our own words, joined by spaces: FTS5's `ascii` tokenizer splits only there (every other character of a word
    is a token character for it), so the index holds exactly the words the query parser makes."""
    return " ".join(tokens(text))


def _fts_text(text: str) -> str:
    """What FTS5 is given for `text`. ASCII text as is: the `ascii` tokenizer then finds exactly our words (ASCII
    letters and digits, case-folded; `_` and every other ASCII character separate), without a Python pass over
    most of the registry; other text as our own words (_indexed)."""
    return text if text.isascii() else _indexed(text)


class Hit(Record):
    """One search result; `shadowed`: a higher-priority source has a skill with the same name; `pointer`: the
    skill lives in its own repository (a pointer entry); `verified`: for a pointer, whether a maintainer of the
    registry approved its pin (None for the registry's own skills, whose files are its own)."""

    FIELDS = ("name", "version", "source", "description", "tags", "score", "shadowed", "pointer", "verified")

    def __init__(self, name: str, version: str, source: str, description: str, tags: list[str], score: float,
                 shadowed: bool = False, kind: str = ""):
        self.name, self.version, self.source, self.description = name, version, source, description
        self.tags, self.score, self.shadowed = tags, score, shadowed
        self.pointer = bool(kind)
        self.verified = (kind == "verified") if kind else None


def index_key(entries: list[CacheEntry]) -> str:
    facts = [ANALYZER_VERSION] + [[e.source.name, e.source.priority, e.sha256] for e in entries]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:20]


SCHEMA = """
CREATE VIRTUAL TABLE words USING fts5(name, tags, description, prefix='2 3', detail='column', tokenize='ascii',
                                      content='', columnsize=0);
CREATE VIRTUAL TABLE vocabulary USING fts5vocab(words, row);
CREATE TABLE skills(id INTEGER PRIMARY KEY, name TEXT NOT NULL, name_id TEXT NOT NULL, version TEXT NOT NULL,
                    source TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL, priority INTEGER NOT NULL,
                    shadowed INTEGER NOT NULL, kind TEXT NOT NULL);
CREATE TABLE terms(first TEXT NOT NULL, length INTEGER NOT NULL, term TEXT NOT NULL,
                   PRIMARY KEY (first, length, term)) WITHOUT ROWID;
CREATE TEMP TABLE fts_text(id INTEGER PRIMARY KEY, name TEXT NOT NULL, tags TEXT NOT NULL, description TEXT NOT NULL);
"""
SKILLS_INDEX = "CREATE INDEX skills_name_id ON skills(name_id)"  # made after the rows: faster than kept up to date
# FTS5 reads each skill's text from the skills table, in one statement (no Python per row), except where a row's
# FTS5 text is not its shown text (non-ASCII text, as our own words: see _fts_text), kept in fts_text.
FILL_WORDS = """
INSERT INTO words(rowid, name, tags, description)
SELECT s.id, coalesce(x.name, s.name), coalesce(x.tags, s.tags), coalesce(x.description, s.description)
FROM skills AS s LEFT JOIN temp.fts_text AS x ON x.id = s.id ORDER BY s.id
"""


def build_index(path: Path, rows) -> None:
    """Write a fresh index of `rows` (source name, priority, skill dict) into the SQLite file `path`."""
    _build(path, [(source_name, priority, row(skill)) for source_name, priority, skill in rows])


def _build(path: Path, rows) -> None:
    """build_index of rows whose skills are search_rows.row()s (name, description, version, tags, kind)."""
    rows = sorted(rows, key=lambda r: (-r[1], str(r[2][0]), r[0]))  # (priority, name) order
    skills, fts_text = _table_rows(rows)
    db = sqlite3.connect(path)
    try:
        db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;" + SCHEMA)
        with contextlib.suppress(sqlite3.OperationalError):  # an SQLite without the option builds the same index
            db.execute("INSERT INTO words(words, rank) VALUES ('hashsize', ?)", (FTS_HASH_BYTES,))
        with db:
            db.executemany("INSERT INTO skills VALUES (?,?,?,?,?,?,?,?,?,?)", skills)
            db.execute(SKILLS_INDEX)
            db.executemany("INSERT INTO temp.fts_text VALUES (?,?,?,?)", fts_text)
            db.execute(FILL_WORDS)
            db.execute("INSERT INTO words(words) VALUES ('optimize')")
            # The vocabulary by first letter and length, for near spellings (see _near_terms).
            db.execute("INSERT INTO terms SELECT substr(term, 1, 1), length(term), term FROM vocabulary")
    finally:
        db.close()


def _table_rows(rows) -> tuple[list[tuple], list[tuple]]:
    """The rows of the skills table, numbered in `rows`' order, and the FTS5 text of those whose text is not all
    ASCII (see _fts_text)."""
    skills, fts_text = [], []
    best: dict[str, int] = {}  # the first (highest) priority each name is seen with
    for number, (source_name, priority, (name, description, version, tags, kind)) in enumerate(rows, 1):
        skills.append((number, name, name.lower(), version, source_name, description, tags, priority,
                       int(priority < best.setdefault(name, priority)), kind))
        if not (name.isascii() and tags.isascii() and description.isascii()):
            fts_text.append((number, _fts_text(name), _fts_text(tags), _fts_text(description)))
    return skills, fts_text


def _rows(entries: list[CacheEntry], warn, max_bytes: int):
    """(source name, priority, search_rows.row()) of every skill of the cached registries: from each one's
    search-rows extract when the registry is not parsed yet (client/search_rows.py), else from the registry, whose
    extract is then written for next time."""
    from skillyard.client import search_rows

    for entry in entries:
        parsed = entry._registry is not None  # by this command's refresh, which wrote the extract too
        skills = None if parsed else search_rows.read(entry.directory, entry.sha256, max_bytes)
        if skills is None:
            skills = search_rows.rows_of(entry.registry(warn))
            if not parsed and entry.loaded_sha256:
                search_rows.write_rows(entry.directory, entry.loaded_sha256, skills)
        for skill in skills:
            yield entry.source.name, entry.source.priority, skill


def open_index(config: Config, entries: list[CacheEntry], warn=stderr_warn) -> sqlite3.Connection:
    """The index for exactly these cached registries, building it (atomically) if needed."""
    root = config.cache_dir / "search"
    key = index_key(entries)
    target = root / f"{key}.sqlite"
    if not target.is_file():
        root.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".build-", suffix=".sqlite", dir=root)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            tmp.unlink()
            with _collector_paused():
                _build(tmp, _rows(entries, warn, config.registry_max_bytes))
            os.replace(tmp, target)  # another process building the same key writes identical content
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        for old in root.iterdir():  # older indexes, and builds a killed process left behind an hour ago
            if old.name != target.name and (not old.name.startswith(".build-") or _older_than(old, 3600)):
                _remove(old)
    return sqlite3.connect(target.as_uri() + "?mode=ro", uri=True)


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cycle collector: parsing a large registry and building its rows makes millions of objects,
    and each collection would walk them all again (a quarter of a 50,000-skill build); none of them form cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _older_than(path: Path, seconds: float) -> bool:
    import time

    try:
        return path.stat().st_mtime < time.time() - seconds
    except OSError:
        return False


def _remove(path: Path) -> None:
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)  # an index folder written by an older version
    else:
        path.unlink(missing_ok=True)


def _within(word: str, term: str, maxdist: int) -> bool:
    """Levenshtein distance of `word` and `term` is at most `maxdist` (rows stop as soon as every cell exceeds it)."""
    previous = list(range(len(term) + 1))
    for i, a in enumerate(word, 1):
        current = [i]
        for j, b in enumerate(term, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        if min(current) > maxdist:
            return False
        previous = current
    return previous[-1] <= maxdist


def _near_terms(db: sqlite3.Connection, word: str) -> list[str]:
    """Indexed terms within edit distance 1 (2 from eight letters on) of `word` that start with its first letter."""
    maxdist = 2 if len(word) >= 8 else 1
    first, letters = word[0], set(word)
    rows = db.execute("SELECT term FROM terms WHERE first = ? AND length BETWEEN ? AND ?",
                      (first, len(word) - maxdist, len(word) + maxdist))
    # Each edit adds or removes at most one letter of the set of letters used, a substitution both: a cheap filter
    # (C-speed set operations) before the exact distance.
    return [term for (term,) in rows
            if term != word and len(letters.symmetric_difference(term)) <= 2 * maxdist and _within(word, term, maxdist)]


def _quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _word_query(word: str, db: sqlite3.Connection | None = None) -> str:
    """One word as an FTS5 expression: exact (CJK, one letter) or as a prefix, plus near spellings if `db`."""
    cjk = not word.isascii() and bool(_cjk_patterns()[1].match(word))
    parts = [_quoted(word) if cjk or len(word) < 2 else _quoted(word) + "*"]
    if db is not None and not cjk and len(word) >= 4:
        parts += [_quoted(near) for near in _near_terms(db, word)]
    return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"


def query_words(text: str) -> list[str]:
    words = list(dict.fromkeys(tokens(text, mode="query")))[:MAX_QUERY_WORDS]
    if not words:
        raise SkillyardError(f"nothing to search for in {text!r}", "Give a word, e.g. `skill search pdf`.",
                             exit_code=2)
    return words


# Where the words are found, best first: every word in the name, then in name or tags, then anywhere. A hit's
# score is its tier's weight, +20 for a name equal to the whole query.
TIERS = ((NAME_WEIGHT, "{name}", None), (TAGS_WEIGHT, "{name tags}", "{name}"),
         (DESCRIPTION_WEIGHT, None, "{name tags}"))
EXACT_BONUS = 20.0
_TIER_QUERY = """
SELECT words.rowid FROM words JOIN skills AS s ON s.id = words.rowid
WHERE words MATCH :match AND (:source IS NULL OR s.source = :source) AND words.rowid NOT IN (SELECT value FROM
      json_each(:seen))
ORDER BY words.rowid LIMIT :limit
"""


def _tier_match(expression: str, columns: str | None, excluded: str | None) -> str:
    match = f"{columns} : ({expression})" if columns else f"({expression})"
    return f"{match} NOT {excluded} : ({expression})" if excluded else match


def _ranked_ids(db: sqlite3.Connection, expression: str, exact: str, source: str | None,
                limit: int) -> list[tuple[int, float]]:
    """(skill id, score) of the best `limit` matches of an FTS5 expression. Rows are stored in (priority, name)
    order, so each tier reads only as many matches as it returns, whatever the registry's size."""
    ranked: list[tuple[int, float]] = []
    named = [skill_id for (skill_id,) in db.execute(
        "SELECT id FROM skills WHERE name_id = ? AND (? IS NULL OR source = ?) ORDER BY id", (exact, source, source))]
    for skill_id in named:  # a skill named exactly as the query comes first, scored by its own tier
        for weight, columns, _ in TIERS:
            hit = db.execute("SELECT 1 FROM words WHERE words MATCH ? AND rowid = ?",
                             (_tier_match(expression, columns, None), skill_id)).fetchone()
            if hit:
                ranked.append((skill_id, weight + EXACT_BONUS))
                break
    for weight, columns, excluded in TIERS:
        if len(ranked) >= limit:
            break
        seen = json.dumps([skill_id for skill_id, _ in ranked])
        rows = db.execute(_TIER_QUERY, {"match": _tier_match(expression, columns, excluded), "source": source,
                                        "seen": seen, "limit": limit - len(ranked)})
        ranked += [(skill_id, weight) for (skill_id,) in rows]
    return ranked[:limit]


def query_index(db: sqlite3.Connection, text: str, *, limit: int = 20, source: str | None = None) -> list[Hit]:
    """Best matches first: a skill named exactly as the query, then by where the words are found (name, tags,
    description), then source priority, then name; `shadowed` marks names a higher-priority source also has.
    Tries, in order until something matches: every word exactly/as prefix, every word allowing typos, any word
    allowing typos."""
    words = query_words(text)
    exact = text.strip().lower()
    ranked: list[tuple[int, float]] = []
    for attempt in ("all", "all-fuzzy", "any-fuzzy"):
        per_word = [_word_query(w, db if attempt != "all" else None) for w in words]
        expression = (" OR " if attempt == "any-fuzzy" else " AND ").join(per_word)
        ranked = _ranked_ids(db, expression, exact, source, limit)
        if ranked or len(words) == 1 and attempt == "all-fuzzy":
            break
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    rows = {row[0]: row[1:] for row in db.execute(
        f"SELECT id, name, version, source, description, tags, shadowed, kind FROM skills WHERE id IN ({marks})",  # noqa: S608
        [skill_id for skill_id, _ in ranked])}
    return [Hit(*rows[skill_id][:4], rows[skill_id][4].split(TAG_SEPARATOR) if rows[skill_id][4] else [], score,
                shadowed=bool(rows[skill_id][5]), kind=rows[skill_id][6])
            for skill_id, score in ranked]


def search(config: Config, text: str, *, limit: int = 20, source: str | None = None, offline: bool = False,
           refresh: bool = False, warn=stderr_warn) -> list[Hit]:
    """Sync the caches (see cache.sync), open or build the index, run the query."""
    if source:
        config.source(source)
    entries = sync(config, offline=offline, refresh=refresh, warn=warn)
    path = config.cache_dir / "search" / f"{index_key(entries)}.sqlite"
    for attempt in (1, 2):
        db = open_index(config, entries, warn)
        try:
            return query_index(db, text, limit=limit, source=source)
        except sqlite3.DatabaseError as exc:  # a damaged index file (a disk error, a stray write): build it again
            if attempt == 2:
                raise SkillyardError(f"{path}: the search index cannot be read ({exc})",
                                     f"Delete {path.parent} and search again.") from None
            _remove(path)
        finally:
            db.close()
    return []


def did_you_mean(config: Config, name: str, *, limit: int = 3) -> list[str]:
    """Skill names the search finds for a name that is in no registry (a typo): what `skill install` suggests.
    Only cached registries are read (never the network), and any failure means no suggestion, never an error."""
    from skillyard.client.cache import read_meta

    cached = [s for s in config.sources if read_meta(config, s) is not None]
    if not cached or not name.strip():
        return []
    quiet = lambda message: None  # noqa: E731 - the error being reported is the one that matters
    try:
        entries = sync(config, offline=True, sources=cached, warn=quiet)
        db = open_index(config, entries, quiet)
        try:
            hits = query_index(db, name.replace("-", " ").replace("_", " "), limit=limit * 3)
        finally:
            db.close()
    except (SkillyardError, sqlite3.DatabaseError, OSError):
        return []
    return [n for n in dict.fromkeys(h.name for h in hits) if n != name][:limit]
