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
that first asks about it (`has_word`).
"""

from __future__ import annotations

import hashlib
import platform
import threading

from skillyard.format.scan import gates

ENGINE_FROM = 512  # bytes; below this a split costs less than an engine call (measured: 256 to 1024 cost the same)
USE = True  # tests turn it off to compare with the split

_engine: list = []  # [database, per-thread scratch, its words, the set it answers for], built on first use
_lock = threading.Lock()
_late: dict[int, tuple] = {}  # id(asked set) -> (it, its words the engine was not built with)


def words_in(raw: bytes, asked: frozenset[bytes], table: bytes) -> tuple[frozenset[bytes], frozenset[bytes], bytes | None]:
    """(the set of words answered for, the file's words among them, the spaced translation or None) for `raw`:
    `table` maps each byte of a word to itself lowered and every other byte to a space."""
    if not USE or gates._hyperscan is None or len(raw) < ENGINE_FROM:
        return asked, asked.intersection(raw.translate(table).split()), None
    with _lock:
        database, local, words, covered = _engine or _build(asked)
    if getattr(local, "database", None) is not database:
        local.scratch, local.database = gates._hyperscan.Scratch(database), database
    spaced = b" " + raw.translate(table) + b" "
    found: set[int] = set()
    database.scan(spaced, match_event_handler=lambda at, start, end, flags, context: found.add(at),
                  scratch=local.scratch)
    present = {words[at] for at in found}
    if asked is not covered:  # words first asked about after the engine was built: one `in` each
        late = _late.get(id(asked))
        if late is None or late[0] is not asked:
            if len(_late) > 64:  # bounded: the asked set grows a few times a run
                _late.clear()
            late = _late[id(asked)] = (asked, tuple(w for w in asked - covered if w and _is_word(w)))
        present.update(w for w in late[1] if b" " + w + b" " in spaced)
    return asked, frozenset(present), spaced


def has_word(word: bytes, spaced: bytes) -> bool:
    """Whether `word` is one of the words of the file whose spaced translation is `spaced` (a word asked about after
    the engine was built); a needle that is not a word (empty, or holding a separator) never is, as in a split."""
    return bool(word) and _is_word(word) and (b" " + word + b" ") in spaced


def _is_word(word: bytes) -> bool:
    return all(c == 95 or 48 <= c <= 57 or 97 <= c <= 122 for c in word)


def _build(asked: frozenset[bytes]) -> list:
    """The engine for the asked words that are words (a needle such as `e-mail` or the empty one never is, so it is
    answered absent, as a split answers), kept between runs like the stems' matcher (`gates._build_matcher`)."""
    from skillyard import recache

    hs = gates._hyperscan
    words = tuple(sorted(w for w in asked if w and _is_word(w)))
    flags = hs.HS_FLAG_SINGLEMATCH

    def make():
        database = hs.Database(mode=hs.HS_MODE_BLOCK)
        database.compile(expressions=[b"".join(b"\\x%02x" % c for c in b" " + w + b" ") for w in words],
                         ids=list(range(len(words))), elements=len(words), flags=[flags] * len(words))
        return database

    def check(database) -> bool:
        seen: set[int] = set()
        database.scan(b" " + b"  ".join(words) + b" ", match_event_handler=lambda at, *_: seen.add(at),
                      scratch=hs.Scratch(database))
        return len(seen) == len(words)

    digest = hashlib.sha256(repr((words, flags, hs.__version__, platform.machine())).encode()).hexdigest()
    database = recache.stored(f"hyperscan-words.{digest[:24]}.db", make, hs.dumpb,
                              lambda blob: hs.loadb(blob, mode=hs.HS_MODE_BLOCK), check)
    _engine[:] = [database, threading.local(), words, asked]
    return _engine
