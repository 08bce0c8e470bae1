"""A file's asked words (`Context.words`) found in one pass of the multi-literal engine, not by splitting the file.

`Context` keeps the words of a file (maximal runs of ASCII letters, digits and `_`, lowered) that some rule asks
about. Splitting a whole file makes an object of every word it holds (millions over the real folders) to keep a few
dozen: ~16% of a scan. With every byte outside a word made a space (one `bytes.translate`) and a space added at each
end, a word `w` is one of the file's words exactly when ` w ` occurs: a literal, and `hyperscan` finds every asked
word's literal in one pass, each reported once: over the real folders 0.13 s where the split took 0.38 s, and ~7 µs
where it took ~11 µs for a file of a few hundred bytes. Only a very short file is split (there the engine's fixed
cost per call is more). Both give the same set (tests/format/test_scan_word_set.py).

A word first asked about after the engine was built (a needle's word, `context._token_of`, on its first use: three
over the real folders) is looked for with one `in` of its literal, in every later file (`words_in`) and in the file
that first asks about it (`has_word`). Once `REBUILD_AFTER` files have been read so, the engine is built again with
them, and kept (named by the words it was first built for, holding those it learned): the next run starts with them.
"""

from __future__ import annotations

import hashlib
import platform
import threading

from skillyard.format.scan import gates

ENGINE_FROM = 512  # bytes; below this a split costs less than an engine call (measured: 256 to 1024 cost the same)
REBUILD_AFTER = 100  # files read with late words before the engine is built again with them (~25 ms)
USE = True  # tests turn it off to compare with the split

# [database, per-thread scratch, its words, their set, the name it is kept under, files read with late words since]
_engine: list = []
_lock = threading.Lock()
_late: dict[int, tuple] = {}  # id(asked set) -> (it, its words the engine lacks, each as ` word `)


def words_in(raw: bytes, asked: frozenset[bytes], table: bytes) -> tuple[frozenset[bytes], bytes | None]:
    """(the words of `raw` among `asked`, its spaced translation or None): `table` maps each byte of a word to itself
    lowered and every other byte to a space."""
    if not USE or gates._hyperscan is None or len(raw) < ENGINE_FROM:
        return asked.intersection(raw.translate(table).split()), None
    with _lock:
        engine = _engine or _build(asked)
    database, local, words, known = engine[:4]
    if getattr(local, "database", None) is not database:
        local.scratch, local.database = gates._hyperscan.Scratch(database), database
    spaced = b" " + raw.translate(table) + b" "
    found: set[int] = set()
    database.scan(spaced, match_event_handler=lambda at, start, end, flags, context: found.add(at),
                  scratch=local.scratch)
    present = {words[at] for at in found}
    late = _late.get(id(asked))
    if late is None or late[0] is not asked or late[1] is not known:
        if len(_late) > 64:  # bounded: the asked set grows a few times a run
            _late.clear()
        late = _late[id(asked)] = (asked, known, tuple((w, b" " + w + b" ") for w in asked - known
                                                       if w and _is_word(w)))
    if late[2]:  # words first asked about after the engine was built: one `in` each, until it learns them
        present.update(w for w, literal in late[2] if literal in spaced)
        engine[5] += 1
        if engine[5] >= REBUILD_AFTER:
            with _lock:
                _build(asked | known, engine[4])
    return asked.intersection(present), spaced  # (a kept engine may know words not asked about yet)


def has_word(word: bytes, spaced: bytes) -> bool:
    """Whether `word` is one of the words of the file whose spaced translation is `spaced` (a word asked about after
    the engine was built); a needle that is not a word (empty, or holding a separator) never is, as in a split."""
    return bool(word) and _is_word(word) and (b" " + word + b" ") in spaced


def _is_word(word: bytes) -> bool:
    return all(c == 95 or 48 <= c <= 57 or 97 <= c <= 122 for c in word)


def _build(asked: frozenset[bytes], name: str | None = None) -> list:
    """The engine for the asked words that are words (a needle such as `e-mail` or the empty one never is, so it is
    answered absent, as a split answers), kept between runs like the stems' matcher (`gates._build_matcher`) under
    `name`, or one named by these words; a kept engine that knows all of them (and perhaps more) is used."""
    from skillyard import recache

    hs = gates._hyperscan
    wanted = frozenset(w for w in asked if w and _is_word(w))
    if name is None:
        digest = hashlib.sha256(repr((sorted(wanted), hs.__version__, platform.machine())).encode()).hexdigest()
        name = f"hyperscan-words.{digest[:24]}.db"

    def make() -> tuple[tuple[bytes, ...], object]:
        words = tuple(sorted(wanted))
        database = hs.Database(mode=hs.HS_MODE_BLOCK)
        database.compile(expressions=[b"".join(b"\\x%02x" % c for c in b" " + w + b" ") for w in words],
                         ids=list(range(len(words))), elements=len(words),
                         flags=[hs.HS_FLAG_SINGLEMATCH] * len(words))
        return words, database

    def dump(made) -> bytes:
        return b" ".join(made[0]) + b"\n" + hs.dumpb(made[1])

    def load(blob: bytes):
        head, _, body = blob.partition(b"\n")
        return tuple(head.split(b" ")), hs.loadb(body, mode=hs.HS_MODE_BLOCK)

    def check(made) -> bool:
        words, database = made
        if not wanted <= set(words) or not all(_is_word(w) and w for w in words):
            return False
        seen: set[int] = set()
        database.scan(b" " + b"  ".join(words) + b" ", match_event_handler=lambda at, *_: seen.add(at),
                      scratch=hs.Scratch(database))
        return len(seen) == len(words)

    words, database = recache.stored(name, make, dump, load, check)
    _engine[:] = [database, threading.local(), words, frozenset(words), name, 0]
    return _engine
