"""Full-text search over the cached registries with whoosh.

The index lives in `<cache_dir>/search/<key>/`, where `key` is a digest of the cached registries (source name,
priority, registry sha256) and the analyzer version: it is rebuilt only when a registry changed, so a warm
`skill search` opens it without parsing any registry.json.

Matching: name is weighted above tags above description; every word also matches as a prefix ("inv") and,
from four letters on, with one typo ("invoise", two from eight letters on). Text in CJK scripts has no spaces,
so runs of CJK characters are indexed as single characters plus overlapping pairs, and a query is matched by
its pairs: "发票" finds "处理发票". All query words must match; when none does, any word may.
"""

from __future__ import annotations

import contextlib
import functools
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
    from whoosh import scoring
    from whoosh.analysis import LowercaseFilter, Token, Tokenizer
    from whoosh.automata import lev
    from whoosh.codec.base import Automata
    from whoosh.fields import ID, STORED, TEXT, Schema

ANALYZER_VERSION = "mixed-cjk-4"
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
    # phrase=False: no positions are needed (no phrase queries), which makes building the index much cheaper
    return Schema(name_id=ID,
                  name=TEXT(analyzer=text, stored=True, phrase=False), tags=TEXT(analyzer=text, phrase=False),
                  description=TEXT(analyzer=text, stored=True, phrase=False),
                  source=ID(stored=True), version=STORED, tag_list=STORED, priority=STORED, shadowed=STORED)


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
    rows = list(rows)
    best: dict[str, int] = {}
    for _, priority, skill in rows:
        best[skill["name"]] = max(priority, best.get(skill["name"], priority))
    for source_name, priority, skill in rows:
        tags = [str(t) for t in skill.get("tags") or []]
        writer.add_document(name_id=skill["name"].lower(),
                            name=skill["name"], tags=" ".join(tags), description=skill.get("description", ""),
                            source=source_name, version=skill.get("version", ""), tag_list=tags, priority=priority,
                            shadowed=priority < best[skill["name"]])
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


@functools.lru_cache(maxsize=256)
def _dfa(word: str, maxdist: int):
    return lev.levenshtein_automaton(word, maxdist, 1).to_dfa()


def _near_terms(reader, field: str, word: str) -> list[str]:
    """Indexed terms of `field` within edit distance 1 (2 from eight letters on) of `word`, same first letter."""
    maxdist = 2 if len(word) >= 8 else 1
    return [t for t in Automata.find_matches(_dfa(word, maxdist), reader.cursor(field)) if t != word]


def _word_query(word: str, reader=None) -> Q.Query:
    """One word: exact or prefix in every field (name > tags > description), plus near spellings if `reader`."""
    cjk = bool(CJK_RE.match(word))
    parts: list[Q.Query] = [Q.Term("name", word, boost=FIELD_WEIGHTS[0][1])]
    for field, weight in FIELD_WEIGHTS:
        parts.append(Q.Term(field, word, boost=weight) if cjk or len(word) < 2 else Q.Prefix(field, word, boost=weight))
        if reader is not None and not cjk and len(word) >= 4:
            parts += [Q.Term(field, near, boost=weight * 0.5) for near in _near_terms(reader, field, word)]
    return Q.Or(parts)


def query_words(text: str) -> list[str]:
    words = list(dict.fromkeys(t.text for t in analyzer()(text, mode="query")))
    if not words:
        raise SkillyardError(f"nothing to search for in {text!r}", "Give a word, e.g. `skill search pdf`.",
                             exit_code=2)
    return words


def query_index(ix, text: str, *, limit: int = 20, source: str | None = None) -> list[Hit]:
    """Best matches first (score, then source priority, then name); `shadowed` marks names a higher-priority
    source also has. Tries, in order until something matches: every word exactly/as prefix, every word allowing
    typos, any word allowing typos."""
    words = query_words(text)
    exact = Q.Term("name_id", text.strip().lower(), boost=20.0)
    restrict = Q.Term("source", source) if source else None
    with ix.searcher(weighting=scoring.TF_IDF()) as searcher:  # field lengths barely matter for short texts
        reader = searcher.reader()
        hits = []
        for attempt in ("all", "all-fuzzy", "any-fuzzy"):
            per_word = [_word_query(w, reader if attempt != "all" else None) for w in words]
            combined = Q.And(per_word) if attempt != "any-fuzzy" else Q.Or(per_word)
            # optimize=False: whoosh 2.7's block-quality skipping can loop forever in UnionMatcher.skip_to_quality
            # (whoosh-community/whoosh#446), which a two-word query with one unknown word triggered here.
            results = searcher.search(Q.Or([exact, combined]), limit=limit, filter=restrict, optimize=False)
            hits = [(hit.score, hit.fields()) for hit in results]
            if hits:
                break
    ordered = sorted(hits, key=lambda h: (-round(h[0], 6), -h[1]["priority"], h[1]["name"]))
    out = [Hit(f["name"], f["version"], f["source"], f["description"], list(f["tag_list"]), round(score, 4),
               shadowed=bool(f.get("shadowed")))
           for score, f in ordered]
    return out[:limit]


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
