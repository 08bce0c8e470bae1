"""What every behaviour rule shares: the keyword tables a file is gated on, the per-file `Context` (the text
lowered once, its fences, headings and lines) and the vendor-host judgement (layout.py's, re-exported); the rules
are in exec_flows.py and rules.py."""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable

from skillyard.format.findings import Severity
from skillyard.format.scan import gates, layout, lowered, pattern_gate, word_set
from skillyard.format.scan import read_python as scan_python

ERROR, WARNING = Severity.ERROR, Severity.WARNING
CODE_SUFFIXES = frozenset({".py", ".pyw", ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".tsx",
                           ".jsx", ".ps1", ".psm1", ".bat", ".cmd", ".rb", ".pl", ".php", ".lua", ".command"})
# The vendor installer hosts, package indexes and well-known `npx` packages (layout.py) are re-exported here.
VENDOR_HOSTS, PACKAGE_INDEXES, NPX_PACKAGES = layout.VENDOR_HOSTS, layout.PACKAGE_INDEXES, layout.NPX_PACKAGES
_URL, _host_is_vendor, _url_note = layout.URL, layout.host_is_vendor, layout.url_note  # (layout.py)

_NEGATION = re.compile(r"\b(?:never|not|don't|dont|do not|avoid|without|instead of|rather than|refuse|warn|"
                       r"detect|flag|block|reject|watch for|look for|dangerous|malicious)\b", re.I)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]{0,300}\n.*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.M | re.S)
_HTML_BLOCK = re.compile(r"^ {0,3}<(pre|script|style|textarea)\b.*?(?:</\1\s*>|\Z)", re.M | re.S | re.I)
_HTML_BLOCK_TAG = re.compile(r"<(?:pre|script|style|textarea)\b", re.I)  # in every `_HTML_BLOCK` match
_HEADING = re.compile(r"^#{1,6}[ \t]+([^\n]{0,300})", re.M)
_LURE = re.compile(r"prereq|requirement|required|before (?:you|using|use|first)|must (?:be )?install", re.I)

Add = Callable[[str, Severity, int, object, str], None]
WINDOW = 500  # characters of context any one check reads around a match
MAX_MATCHES = 100  # candidate matches judged per rule and file (findings are capped lower, in security.scan_text)
_TOKEN_TABLE = bytes(c + 32 if 65 <= c <= 90 else c if (48 <= c <= 57 or 97 <= c <= 122 or c == 95) else 32
                     for c in range(256))
_ASCII_LOWER = {c: c + 32 for c in range(65, 91)}


# Every word any rule asks about (`_words` and `_token_of` add to it). A file's words are kept only where they are
# among these: intersecting with a set of a few hundred costs less than building a set of all of a file's words.
_ASKED: set[bytes] = set()
_asked_frozen: list[frozenset[bytes]] = [frozenset()]


def _words(*words: str) -> frozenset[bytes]:
    found = frozenset(w.encode() for w in words)
    _ASKED.update(found)
    return found


def _asked() -> frozenset[bytes]:
    if len(_asked_frozen[0]) != len(_ASKED):
        _asked_frozen[0] = frozenset(_ASKED)
    return _asked_frozen[0]


_LINE_LOCAL: dict[int, tuple[re.Pattern, re.Pattern, re.Pattern | None]] = {}  # id -> (it, line-local, candidate)


line_local = layout.line_local  # the pattern each line is searched with (`Context.finditer`)


@functools.lru_cache(maxsize=512)
def _token_of(needle: str) -> bytes:
    """The longest word in a search needle (`.ssh` -> `ssh`): if the file lacks that word, the needle cannot occur
    either. That holds where the needle's pattern keeps each of its words whole; for a stem (`gates.STEMS`: a word
    at its edge may run on, `obedezc` in `obedezcas`) only a word bounded inside the needle on both sides counts
    (`must not notice` -> `not`; a non-ASCII character bounds one, as `Context` splits words at them). A needle
    without such a word (`<|`, `obedezc`) is always looked for, a substring search (`Context._lines_of`)."""
    words = needle.encode().translate(_TOKEN_TABLE).split(b" ")
    token = max(words[1:-1] if needle in gates.STEMS else words, key=len, default=b"")
    _ASKED.add(token)
    return token


@functools.lru_cache(maxsize=256)
def _needles(words: tuple[str, ...]) -> tuple[tuple[str, bytes], ...]:
    """Each search needle with its word (`_token_of`), worked out once per needle tuple rather than per file."""
    return tuple((word, _token_of(word)) for word in words)


_PLANS: dict[tuple[str, ...], tuple] = {}
# The characters whose lowercase is one character other than them yet neither that one's capital nor its title form
# (all of Unicode: tests/format/test_scan_speed.py). A needle's character `c` is in the text lowered only where the
# text holds `c`, `c.upper()`, `c.title()` or one of these.
_IRREGULAR_LOWER = {"\u03f4": "\u03b8", "\u1e9e": "\u00df", "\u2126": "\u03c9", "\u212a": "k", "\u212b": "\u00e5"}
_ASCII_BYTES = bytes(range(128))


def _cases(needle: str) -> tuple[frozenset[str], ...]:
    """For each non-ASCII character of `needle`, the characters of a text that lower to it."""
    return tuple(frozenset({c, c.upper(), c.title(), *(k for k, v in _IRREGULAR_LOWER.items() if v == c)})
                 for c in dict.fromkeys(needle) if not c.isascii())


def _plan(words: tuple[str, ...]) -> tuple:
    """(the needles without a word, always looked for; each word's needles; the words; each non-ASCII needle's
    `_cases`) for `Context._gated`, worked out once per needle tuple: a file's words then pick the needles to search
    with one intersection, and its characters the non-ASCII ones."""
    if len(_PLANS) > 512:  # bounded, should a caller build needle tuples per file
        _PLANS.clear()
    by_token: dict[bytes, tuple[str, ...]] = {}
    for word, token in _needles(words):
        by_token[token] = by_token.get(token, ()) + (word,)
    cased = {w: _cases(w) for w in words if not w.isascii()}
    wordless = by_token.pop(b"", ())
    stems = tuple(w for w in wordless if w in gates.STEMS and w.isascii())
    always = tuple(w for w in wordless if w not in stems)
    _PLANS[words] = (always, stems, by_token, frozenset(by_token), cased)
    return _PLANS[words]


_encoded = functools.lru_cache(maxsize=1024)(str.encode)  # a needle's bytes, worked out once


# Word sets the rules below test (built once, not per file).
_CHMOD_OR_PROCESS = _words("chmod", "process", "hdiutil", "installer", "msiexec")
_DOTENV_LIBRARIES = _words("dotenv", "load_dotenv", "dotenvx")
_HTTP_SCHEMES = _words("http", "https")
_BASH_OR_ALLOW = _words("bash", "allow")
_APPLY_WORD = _words("apply")
_SAFETY_NOUNS = _words("longer", "safety", "security")
_NOW_OR_NEW = _words("now", "new")
_PROMPT_WORD = _words("prompt")
_REVEAL_VERBS = _words("reveal", "print", "output")
_NPX_WORD = _words("npx")
_YES_FLAGS = _words("y", "yes")
_INDEX_WORDS = _words("index", "registry", "trusted", "pip_index_url", "pip_extra_index_url")


_fence_spans = layout.fence_spans  # the fence spans of a text (tests/format/test_scan_speed.py)


class Context:
    """One file being scanned: its text, lowered copy (for keyword gates), kind and lazily computed layout."""

    def __init__(self, text: str, file: str, markup: str | None, raw: bytes | None = None, skill_name: str = "",
                 homes: tuple[str, ...] = ()):
        self.text = text
        self.skill_name = skill_name.lower()
        self.homes = homes  # the skill's declared homepage/repository (vendor.declared_homes)
        if raw is None:
            raw = text.encode("utf-8", "surrogatepass")
        self.raw = raw
        # The file's words, lowered (ASCII letters, digits and `_`; everything else separates), kept where some rule
        # asks about them (`asked`; `word_set` finds them). Every rule first asks this set whether its keywords occur.
        self.asked = _asked()
        self.words, self._spaced = word_set.words_in(raw, self.asked, _TOKEN_TABLE)
        self._low: str | None = None
        self._low_bytes: bytes | None = None
        self._ascii: bool | None = None
        self._without_urls: str | None = None
        self._gates: dict[str, bool] = {}
        self._raw_found: dict[int, bool] = {}
        self._mark_found: dict[bytes, bool] = {}
        self._needle_lines: dict[str, set[tuple[int, int]]] = {}  # rules share needles: each is searched once
        self._folds: bool | None = None
        self._others: frozenset[str] | bool | None = None
        self._low_found: dict[bytes, bool] = {}
        self._stems: tuple[frozenset[bytes], frozenset[bytes]] | bool | None = None  # the stems the file holds (`gates.stems_in`), or False
        suffix = file[file.rfind("."):].lower() if "." in file.rsplit("/", 1)[-1] else ""
        self.code = suffix in CODE_SUFFIXES
        self.python = suffix in (".py", ".pyw")
        self.file = file.lower()
        self.prose = not self.code  # Markdown, plain text and config: instructions an agent reads
        self.markdown = markup == "markdown"
        self._fences: list[tuple[int, int]] | None = None
        self._fence_starts: list[int] | None = None
        self._facts: scan_python.Facts | None | bool = False
        self._headings: list[tuple[int, str]] | None = None
        self._pattern_hits = pattern_gate.UNSEEN  # the searched patterns that may match (`pattern_gate.possible`)

    @property
    def fences(self) -> list[tuple[int, int]]:
        if self._fences is None:
            self._fences = _fence_spans(self.text) \
                if self.markdown and ("```" in self.text or "~~~" in self.text) else []
            # inside `<pre>` … `</pre>` (an HTML block) a fence is text; no block starts before its first tag's line
            tag = _HTML_BLOCK_TAG.search(self.text) if self._fences and "<" in self.text else None
            if tag is not None:
                self._fences = layout.outside_html_blocks(self.text, self._fences, _HTML_BLOCK,
                                                          self.text.rfind("\n", 0, tag.start()) + 1)
        return self._fences

    @property
    def gates_off(self) -> bool:
        """A rule's own word gates are skipped: the switch is off (`gates.ENABLED`) or a letter folds (`folds`)."""
        return not gates.ENABLED or self.folds

    def has(self, words: frozenset[bytes]) -> bool:
        """Whether any of `words` (lowercase, whole words, made by `_words`) occurs in the file."""
        return not self.words.isdisjoint(words)

    def _has_token(self, token: bytes) -> bool:
        if token in self.asked:
            return token in self.words
        # A word first asked about after this file's words were kept (a needle's first use): looked for again.
        if self._spaced is not None:
            return word_set.has_word(token, self._spaced)
        return token in frozenset(self.raw.translate(_TOKEN_TABLE).split())

    @property
    def without_urls(self) -> str:
        """The text with every URL blanked (computed once): where a tool's name counts as named."""
        if self._without_urls is None:
            self._without_urls = _URL.sub(" ", self.text)
        return self._without_urls

    @property
    def low(self) -> str:
        """The text lowered, position for position (a few characters such as İ lower to two; then only ASCII is)."""
        if self._low is None:
            low = self.text.lower()
            self._low = low if len(low) == len(self.text) else self.text.translate(_ASCII_LOWER)
        return self._low

    def gate(self, name: str) -> bool:
        """Whether one of the anchored gate patterns (`GATES`, each starting with one literal character, so the
        regex engine skips between candidates at C speed) matches: computed once per file."""
        found = self._gates.get(name)
        if found is None:
            found = self._gates[name] = GATES[name].search(self.text) is not None
        return found

    def raw_has(self, marks: tuple[bytes, ...]) -> bool:
        """Whether one of the module-level `marks` occurs in the file's bytes, searched once per file: the prose
        families ask the same mark tests again for each place they judge (`_possible`, then `_hits`)."""
        found = self._raw_found.get(id(marks))
        if found is None:  # the sets overlap (`<|` is in three): in a long file each mark is searched for once
            known, raw = self._mark_found, self.raw
            found = self._raw_found[id(marks)] = any(mark in raw for mark in marks) if len(raw) < 4096 else any(
                known[mark] if mark in known else known.setdefault(mark, mark in raw) for mark in marks)
        return found

    def low_has(self, needles: tuple[bytes, ...]) -> bool:
        """Whether a lowercase ASCII needle occurs in the bytes ASCII-lowered, each searched once (`gates.Bytes`)."""
        if self._low_bytes is None:
            self._low_bytes = self.raw.lower()
        if self._stems is None:
            self._stems = gates.stems_in(self.raw) or False
        if self._stems is not False and gates.covered(needles, self._stems[1]):  # type: ignore[index]
            return not self._stems[0].isdisjoint(needles)  # type: ignore[index]
        return any(self.stem_has(n) for n in needles)

    def stem_has(self, stem: bytes) -> bool:
        """Whether the lowercase ASCII `stem` (a `gates.STEMS` needle, which may run on into longer words) occurs in
        the bytes ASCII-lowered: cached per file and shared with `low_has` and `_lines_of` (`gates.stem_found`)."""
        known = self._low_found.get(stem)
        return gates.stem_found(self, stem) if known is None else known

    def lines_with(self, words: tuple[str, ...]) -> list[tuple[int, int]]:
        """(start, end) of each line holding one of the lowercase `words`, found with `find` (C speed); only
        the words whose own word occurs in the file are looked for (`_gated`), each once per file (rules share
        needles). ASCII text is searched as its bytes lowered (positions are the same, and lowering bytes is
        several times cheaper than lowering a `str`)."""
        spans = [self._lines_of(w) for w in self._gated(words)]
        return sorted(spans[0] if len(spans) == 1 else set().union(*spans))

    def _gated(self, words: tuple[str, ...]) -> list[str]:
        """The needles of `words` whose own word the file holds (or that have none), one set intersection (`_plan`),
        less the non-ASCII ones lacking a character (in every case that lowers to it) among the text's (`others`)."""
        plan = _PLANS.get(words)
        always, stems, by_token, tokens, cased = plan if plan is not None else _plan(words)
        if not gates.ENABLED or self.folds:  # gates off, or a letter IGNORECASE folds onto ASCII: every needle
            return list(words)
        if tokens <= self.asked:
            present = self.words.intersection(tokens)
        else:  # a word first asked about after this file's words were kept (a needle's first use): read them again
            present = tokens.intersection(self.raw.translate(_TOKEN_TABLE).split()) if self._spaced is None else \
                {token for token in tokens if self._has_token(token)}
        needles = [*always, *(w for token in present for w in by_token[token])]
        if stems:  # a stem with no word bounded inside it: kept where its bytes occur (one cached `in`, `stem_has`)
            needles += [w for w in stems if self.stem_has(_encoded(w))]
        others = self.others if cased else None
        if others is not None:
            needles = [w for w in needles if w not in cased or all(not c.isdisjoint(others) for c in cased[w])]
        return needles

    @property
    def others(self) -> frozenset[str] | None:
        """The distinct non-ASCII characters of a mostly-ASCII text (collected once), or None when more than one
        byte in eight is not ASCII (there most needles' characters occur: each is looked for)."""
        if self._others is None:
            rest = self.raw.translate(None, _ASCII_BYTES)
            self._others = frozenset(rest.decode("utf-8", "ignore")) if len(rest) * 8 <= len(self.raw) else False
        return None if self._others is False else self._others  # type: ignore[return-value]

    def _lines_of(self, word: str) -> set[tuple[int, int]]:
        """The (start, end) of every line holding `word` (lowercase), searched once per file. An ASCII word is
        looked for in the bytes with ASCII lowered, in non-ASCII text too: only `İ` and the Kelvin sign lower onto
        ASCII (`folds`), so elsewhere it occurs where it does in the lowered text; each line found is then counted
        in characters (lowering the whole text as a `str` costs several times more). After a line holding it the
        search goes on at the next line (so the empty word, found everywhere, is on every line)."""
        spans = self._needle_lines.get(word)
        if spans is not None:
            return spans
        if self._low_found.get(_encoded(word)) is False:  # already found absent (`stem_has`, `low_has`)
            return set()
        if self._ascii is None:
            self._ascii = self.text.isascii()
        as_bytes = self._ascii or (word.isascii() and not self.folds)
        if as_bytes:
            if self._low_bytes is None:
                self._low_bytes = self.raw.lower()
            low, needle, newline = self._low_bytes, _encoded(word), b"\n"
        else:
            low, needle, newline = self.low, word, "\n"  # type: ignore[assignment]
        spans = set()
        size = len(low)
        at = low.find(needle)  # type: ignore[arg-type]
        byte_at = char_at = 0  # a byte offset and its character offset, moved forward line by line
        while at >= 0:
            start = low.rfind(newline, 0, at) + 1  # type: ignore[arg-type]
            end = low.find(newline, at)  # type: ignore[arg-type]
            end = size if end < 0 else end
            at = low.find(needle, end + 1) if end < size else -1  # type: ignore[arg-type]
            if as_bytes and not self._ascii:  # one decode to the line's end; the line starts after its last `\n`
                passed = self.raw[byte_at:end].decode("utf-8", "surrogatepass")
                start = char_at + passed.rfind("\n") + 1
                byte_at, char_at = end, char_at + len(passed)
                end = char_at
            spans.add((start, end))
        self._needle_lines[word] = spans
        return spans

    @property
    def folds(self) -> bool:
        """Whether the text holds a letter IGNORECASE folds onto ASCII (`gates.folds_to_ascii`): never gated."""
        if self._folds is None:
            self._folds = gates.folds_to_ascii(self.raw)
        return self._folds

    def may_hold(self, needles: tuple[bytes, ...]) -> bool:
        """False only when the text holds none of the lowercase ASCII `needles` in any case: then an IGNORECASE
        pattern every match of which holds one cannot match. Text with a letter IGNORECASE folds onto ASCII (the
        Kelvin sign matches `k`: `folds`) always may, and so does any with the gates off."""
        if self._ascii is None:
            self._ascii = self.text.isascii()
        if not self._ascii and (not gates.ENABLED or self.folds):
            return True
        return self.low_has(needles)

    def finditer(self, pattern: re.Pattern, words: tuple[str, ...], also: tuple[str, ...] = ()):
        """`pattern`'s matches, run only over the lines that hold one of `words` (every match of a line-local
        pattern holds one), and not at all where the one-pass engine (`pattern_gate`) saw none. At most
        `MAX_MATCHES` are looked at (judging each reads its line: a long line repeating a keyword would cost its
        length per match). With `also`, only the lines that hold one of those too (a match holds one of each)."""
        if pattern_gate.cannot_match(self, pattern):
            return
        if also:  # every match also holds one of `also` on its line: the lines of the side with fewer needles,
            first, wanted = self._gated(also), self._gated(words)  # then each kept when it holds one of the other
            if len(wanted) < len(first):  # side's too (the same lines either way; no needle spans a line end)
                first, wanted = wanted, first
            spans = [self._lines_of(w) for w in first] if wanted else []
            lines = sorted(spans[0] if len(spans) == 1 else set().union(*spans))
            if lines:
                if self._ascii:
                    low, wanted = self._low_bytes, [_encoded(w) for w in wanted]  # type: ignore[misc]
                    lines = [(a, b) for a, b in lines if any(w in low[a:b] for w in wanted)]  # type: ignore[operator]
                elif self.folds or not all(w.isascii() for w in wanted):
                    low = self.low
                    lines = [(a, b) for a, b in lines if any(w in low[a:b] for w in wanted)]
                else:  # each line lowered on its own: the same ASCII letters as in the whole text lowered
                    text = self.text
                    lines = [(a, b) for a, b in lines if any(w in text[a:b].lower() for w in wanted)]
        else:
            lines = self.lines_with(words)
        if not lines:
            return
        seen, local = 0, _LINE_LOCAL.get(id(pattern))
        if local is None or local[0] is not pattern:  # a pattern's hash reads its whole compiled code: ~10 µs
            if len(_LINE_LOCAL) > 256:  # bounded, should a caller ever pass patterns it builds per file
                _LINE_LOCAL.clear()
            local_pattern = line_local(pattern)
            local = _LINE_LOCAL[id(pattern)] = (pattern, local_pattern, lowered.lowered_candidate(local_pattern))
        pattern, candidate = local[1], local[2]
        if candidate is not None and not self.folds:  # (`lowered` says why any other text will do)
            yield from lowered.confirmed_matches(pattern, candidate, self.text, self.low, lines, MAX_MATCHES)
            return
        for start, end in lines:
            for match in pattern.finditer(self.text, start, end):
                yield match
                seen += 1
                if seen >= MAX_MATCHES:
                    return

    @property
    def facts(self) -> scan_python.Facts | None:
        """The script's `ast` facts (Python only), parsed once for every rule."""
        if self._facts is False:
            self._facts = scan_python.analyse(self.text) if self.python else None
        return self._facts  # type: ignore[return-value]

    def in_fence(self, index: int) -> bool:
        """Whether `index` is inside a code fence: the fences are in order and never overlap, so only the last one
        starting at or before it can hold it (found by bisection, not by trying each)."""
        fences = self.fences
        if not fences:
            return False
        if self._fence_starts is None:
            self._fence_starts = [start for start, _ in fences]
        at = bisect_right(self._fence_starts, index) - 1
        return at >= 0 and index < fences[at][1]

    def _line_start(self, index: int) -> int:
        """Where `index`'s line starts, looking back at most `WINDOW` characters (lines longer than that are
        judged on their last `WINDOW` characters, so no check costs more than that)."""
        return max(self.text.rfind("\n", max(0, index - WINDOW), index) + 1, index - WINDOW)

    def in_code_span(self, index: int) -> bool:
        start = self._line_start(index)
        return self.text.count("`", start, index) % 2 == 1

    def quoted(self, index: int) -> bool:
        """Inside quotation marks on its line, in prose: a skill quoting an attack, not making one. In JSON, YAML and
        TOML the quotes are the syntax of every value, which the agent reads as text: no quotation there."""
        if self.code or self.in_fence(index) or self.file.endswith((".json", ".yaml", ".yml", ".toml", ".jsonl")):
            return False
        before = self.text[self._line_start(index):index]
        return (before.count('"') % 2 == 1) or before.count("\u201c") > before.count("\u201d") or \
            (before.count("'") % 2 == 1 and before.rstrip().endswith("'")) or any(  # other languages' quotes
                before.count(o) > before.count(c) for o, c in ("\u00ab\u00bb", "\u2039\u203a", "\u201e\u201c", "\u300c\u300d", "\u300e\u300f"))

    def as_code(self, index: int) -> bool:
        """Whether the text at `index` is code (a script, a fence, a code span) rather than prose."""
        return self.code or self.in_fence(index) or self.in_code_span(index)

    def heading(self, index: int) -> str:
        if self._headings is None:
            self._headings = [(m.start(), m.group(1)) for m in _HEADING.finditer(self.text)] if "#" in self.text else []
        title = ""
        for at, text in self._headings:
            if at > index:
                break
            title = text
        return title

    def block(self, index: int, lines: int = 6) -> tuple[int, int]:
        """The instruction around `index`: its paragraph in prose (up to `lines` lines each way), the file in code."""
        if self.code:
            return 0, len(self.text)
        start = end = index
        for _ in range(lines):
            prev = self.text.rfind("\n", 0, start - 1) if start > 0 else -1
            if prev < 0:
                start = 0
                break
            if not self.text[prev + 1:start].strip() or self.text.startswith("#", prev + 1):
                break
            start = prev + 1
        start = self.text.rfind("\n", 0, start) + 1 if start else 0
        for _ in range(lines):
            nxt = self.text.find("\n", end + 1)
            if nxt < 0:
                end = len(self.text)
                break
            if not self.text[end:nxt].strip() and end != index:
                break
            end = nxt
        return start, end

    def line_at(self, index: int) -> str:
        end = self.text.find("\n", index, index + WINDOW)
        return self.text[self._line_start(index):end if end >= 0 else min(len(self.text), index + WINDOW)]

    def sentence(self, index: int) -> str:
        start = max(self._line_start(index), self.text.rfind(". ", max(0, index - WINDOW), index) + 1)
        end = self.text.find("\n", index, index + WINDOW)
        return self.text[start:end if end >= 0 else min(len(self.text), index + WINDOW)]

    def negated(self, index: int) -> bool:
        """A prose sentence that forbids or warns about the thing ("never read .env files"); code is never negated."""
        if self.code or self.in_fence(index):
            return False
        start = max(self._line_start(index), self.text.rfind(". ", max(0, index - WINDOW), index))
        return bool(_NEGATION.search(self.text, start, index))

    def lured(self, index: int) -> bool:
        """Under a "Prerequisites"-style heading, or in a paragraph that insists the step is required."""
        if _LURE.search(self.heading(index)):
            return True
        start, end = self.block(index, 3)
        return bool(re.search(r"\b(?:required|must install|will not work|won't work|cannot work|needs? the helper)\b",
                              self.text[start:end], re.I))


GATES = gates.PATTERNS  # the anchored gate patterns (`Context.gate`), in gates.py


_DISCUSS = re.compile(r"\b(?:detect|flag|watch for|look for|such as|e\.g\.|for example|attacks?|injections?|"
                      r"phrases? like|patterns? like|never follow|attempts? to)\b", re.I)
# A heading over a catalogue of attacks ("Instruction Override Patterns", "Prompt Injection Attacks").
_DISCUSS_HEADING = re.compile(r"\b(?:patterns?|attacks?|injections?|red flags|examples of|threats?)\b", re.I)


def _discussed(ctx: Context, index: int) -> bool:
    """A security skill describing an attack ("flag phrases such as …") rather than making one."""
    start = max(ctx.text.rfind("\n\n", max(0, index - 4 * WINDOW), index), index - 4 * WINDOW, 0)
    return bool(_DISCUSS.search(_URL.sub(" ", ctx.text[start:index + 200]))) or \
        bool(ctx.markdown and _DISCUSS_HEADING.search(ctx.heading(index)))
