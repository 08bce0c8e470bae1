"""Full-text search over the cached registries with whoosh.

The index lives in `<cache_dir>/search/<key>/`, where `key` is a digest of the cached registries (source name,
priority, registry sha256) and the analyzer version: it is rebuilt only when a registry changed, so a warm
`skill search` opens it without parsing any registry.json.

Matching: name is weighted above tags above description; every word also matches as a prefix ("inv") and,
from four letters on, with one typo ("invoise", two from seven letters on). Text in CJK scripts has no spaces,
so runs of CJK characters are indexed as single characters plus overlapping pairs, and a query is matched by
its pairs: "发票" finds "处理发票". All query words must match; when none does, any word may.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from skillyard.client.cache import CacheEntry, stderr_warn, sync
from skillyard.client.config import Config
from skillyard.errors import SkillyardError

with warnings.catch_warnings():  # whoosh 2.7 has invalid escape sequences that newer Pythons warn about
    warnings.simplefilter("ignore")
    from whoosh import index as whoosh_index
    from whoosh import query as Q
    from whoosh.analysis import LowercaseFilter, Token, Tokenizer
    from whoosh.fields import ID, STORED, TEXT, Schema

ANALYZER_VERSION = "mixed-cjk-2"
FIELD_WEIGHTS = (("name", 4.0), ("tags", 2.0), ("description", 1.0))
_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
TOKEN_RE = re.compile(rf"([{_CJK}]+)|((?:(?![{_CJK}])[^\W_])+)")
CJK_RE = re.compile(rf"^[{_CJK}]+$")


class MixedTokenizer(Tokenizer):
    """Words for alphabetic text; CJK runs as unigrams + bigrams when indexing, bigrams when querying."""

    def __eq__(self, other):
        return type(other) is type(self)

    def __hash__(self):
        return hash(type(self))

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pos = start_pos
        for match in TOKEN_RE.finditer(value):
            if match.group(1):
                run, base = match.group(1), match.start(1)
                pieces = [(run[i:i + 2], i) for i in range(len(run) - 1)]
                if mode != "query" or len(run) == 1:
                    pieces += [(ch, i) for i, ch in enumerate(run)]
            else:
                pieces, base = [(match.group(2), 0)], match.start(2)
            for text, offset in pieces:
                token.text = text
                token.boost = 1.0
                token.stopped = False
                if keeporiginal:
                    token.original = text
                if positions:
                    token.pos = pos
                    pos += 1
                if chars:
                    token.startchar = start_char + base + offset
                    token.endchar = token.startchar + len(text)
                yield token


def analyzer():
    return MixedTokenizer() | LowercaseFilter()


def schema() -> Schema:
    text = analyzer()
    return Schema(key=ID(stored=True, unique=True), name_id=ID, name=TEXT(analyzer=text, stored=True),
                  tags=TEXT(analyzer=text), description=TEXT(analyzer=text, stored=True),
                  source=ID(stored=True), version=STORED, tag_list=STORED, priority=STORED)


@dataclass
class Hit:
    name: str
    version: str
    source: str
    description: str
    tags: list[str]
    score: float
    shadowed: bool = False  # a higher-priority source has a skill with the same name

    def to_dict(self) -> dict:
        return asdict(self)


def index_key(entries: list[CacheEntry]) -> str:
    facts = [ANALYZER_VERSION] + [[e.source.name, e.source.priority, e.sha256] for e in entries]
    return hashlib.sha256(json.dumps(facts).encode()).hexdigest()[:20]


def build_index(directory: Path, rows) -> None:
    """Write a fresh index of `rows` (source name, priority, skill dict) into `directory` (created)."""
    directory.mkdir(parents=True, exist_ok=True)
    ix = whoosh_index.create_in(str(directory), schema())
    writer = ix.writer(limitmb=256)
    for source_name, priority, skill in rows:
        tags = [str(t) for t in skill.get("tags") or []]
        writer.add_document(key=f"{source_name}\x00{skill['name']}", name_id=skill["name"].lower(),
                            name=skill["name"], tags=" ".join(tags), description=skill.get("description", ""),
                            source=source_name, version=skill.get("version", ""), tag_list=tags, priority=priority)
    writer.commit()


def _rows(entries: list[CacheEntry], warn):
    for entry in entries:
        for skill in entry.registry(warn).get("skills", []):
            yield entry.source.name, entry.source.priority, skill


def open_index(config: Config, entries: list[CacheEntry], warn=stderr_warn):
    """The index for exactly these cached registries, building it (atomically) if needed."""
    root = config.cache_dir / "search"
    key = index_key(entries)
    target = root / key
    if not (target / "complete").exists():
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
        try:
            build_index(tmp, _rows(entries, warn))
            (tmp / "complete").write_text(key)
            try:
                os.rename(tmp, target)
            except OSError:  # another process won the race; its index is identical
                shutil.rmtree(tmp, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        for old in root.iterdir():
            if old.name != key and not old.name.startswith(".build-"):
                shutil.rmtree(old, ignore_errors=True)
    return whoosh_index.open_dir(str(target))


def _word_query(word: str, fuzzy: bool) -> Q.Query:
    parts: list[Q.Query] = []
    cjk = bool(CJK_RE.match(word))
    for field, weight in FIELD_WEIGHTS:
        parts.append(Q.Term(field, word, boost=weight * 2))
        if not cjk and len(word) >= 2:
            parts.append(Q.Prefix(field, word, boost=weight))
        if fuzzy and not cjk and len(word) >= 4:
            parts.append(Q.FuzzyTerm(field, word, boost=weight * 0.5, maxdist=2 if len(word) >= 7 else 1,
                                     prefixlength=1))
    return Q.Or(parts)


def build_query(text: str, *, fuzzy: bool = True) -> tuple[Q.Query, Q.Query]:
    """(all words must match, any word may match) for a query string."""
    words = list(dict.fromkeys(t.text for t in analyzer()(text, mode="query")))
    if not words:
        raise SkillyardError(f"nothing to search for in {text!r}", "Give a word, e.g. `skill search pdf`.",
                             exit_code=2)
    exact = Q.Term("name_id", text.strip().lower(), boost=20.0)
    per_word = [_word_query(w, fuzzy) for w in words]
    return Q.Or([exact, Q.And(per_word)]), Q.Or([exact, *per_word])


def query_index(ix, text: str, *, limit: int = 20, source: str | None = None) -> list[Hit]:
    """Best matches first (score, then source priority, then name); each name's top source is not shadowed."""
    strict, loose = build_query(text)
    restrict = Q.Term("source", source) if source else None
    with ix.searcher() as searcher:
        results = searcher.search(strict, limit=None if limit is None else limit * 3, filter=restrict)
        if results.is_empty():
            results = searcher.search(loose, limit=None if limit is None else limit * 3, filter=restrict)
        hits = [(hit.score, hit["priority"], hit.fields()) for hit in results]
    best_priority: dict[str, int] = {}
    if hits and not source:
        with ix.searcher() as searcher:
            for _, _, fields in hits:
                name = fields["name"]
                if name not in best_priority:
                    best_priority[name] = max(doc["priority"] for doc in searcher.documents(name_id=name.lower()))
    ordered = sorted(hits, key=lambda h: (-round(h[0], 6), -h[1], h[2]["name"]))
    out = [Hit(f["name"], f["version"], f["source"], f["description"], list(f["tag_list"]), round(score, 4),
               shadowed=priority < best_priority.get(f["name"], priority))
           for score, priority, f in ordered]
    return out[:limit] if limit is not None else out


def search(config: Config, text: str, *, limit: int = 20, source: str | None = None, offline: bool = False,
           refresh: bool = False, warn=stderr_warn) -> list[Hit]:
    """Sync the caches (see cache.sync), open or build the index, run the query."""
    if source:
        config.source(source)
    entries = sync(config, offline=offline, refresh=refresh, warn=warn)
    ix = open_index(config, entries, warn)
    try:
        return query_index(ix, text, limit=limit, source=source)
    finally:
        with contextlib.suppress(Exception):
            ix.close()
