"""Issue 34 item 7: `Context.finditer` finds an IGNORECASE pattern's matches from candidates searched
case-sensitively in the lowered text (scan/lowered.py); the matches must be exactly those of the pattern searched
line by line, for every scanner pattern that gets a candidate, in ASCII and non-ASCII text (and text holding a letter
IGNORECASE folds onto ASCII, which keeps the plain search), and the source forms that cannot be promised must be
refused (capital ranges reaching past the letters, inline flags, numeric escapes)."""

from __future__ import annotations

import gc
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.scan import context as scan_context
from skillyard.format.scan import judge  # noqa: F401  (imports every rule module: their patterns are compiled)
from skillyard.format.scan import lowered as scan_lowered


def _scanner_patterns() -> list[re.Pattern]:
    found = {id(p): p for p in gc.get_objects() if isinstance(p, re.Pattern) and p.flags & re.I
             and isinstance(p.pattern, str)}
    return [p for p in found.values() if scan_lowered.lowered_candidate(scan_context.line_local(p)) is not None]


PATTERNS = _scanner_patterns()
# words from the patterns themselves, in random case, among separators: text where the patterns match often
WORDS = sorted({w for p in PATTERNS for w in re.findall(r"[a-z]{2,}", p.pattern.lower())})


def _plain(ctx_text: str, pattern: re.Pattern) -> list[tuple[int, int, str]]:
    local, out, at = scan_context.line_local(pattern), [], 0
    for line in ctx_text.split("\n"):
        out += [(m.start(), m.end(), m.group()) for m in local.finditer(ctx_text, at, at + len(line))]
        at += len(line) + 1
    return out[:scan_context.MAX_MATCHES]


class _EveryLine(scan_context.Context):
    """A context whose rules' words are on every line: `finditer` searches them all, as `_plain` does."""

    def lines_with(self, words):
        spans, at = [], 0
        for line in self.text.split("\n"):
            spans.append((at, at + len(line)))
            at += len(line) + 1
        return spans


def _fast(text: str, pattern: re.Pattern) -> list[tuple[int, int, str]]:
    ctx = _EveryLine(text, "x.md", "markdown")
    return [(m.start(), m.end(), m.group()) for m in ctx.finditer(pattern, ("x",))]


def test_most_ignorecase_patterns_get_a_candidate():
    assert len(PATTERNS) >= 40


# separators and the non-ASCII characters that matter: word letters of other scripts and cases (`É`, `ß`, `Ω`),
# a dash and quotes (UCS-2 text), an emoji (UCS-4), the letters that fold onto ASCII (`İ`, `ı`, `ſ`, Kelvin `K`),
# and `ẞ`, whose lowercase is one character while `İ`'s is two (the lowered copy falls back to ASCII lowering)
PIECE = st.one_of(st.sampled_from(WORDS).map(str.upper), st.sampled_from(WORDS),
                  st.sampled_from(WORDS).map(str.title),
                  st.sampled_from([" ", "  ", "\n", ".", "-", "/", "_", "'", "\"", ":", "|", "(", ")", "$", "~", "1",
                                   "É", "é", "ß", "ẞ", "Ω", "—", "\u201c", "\u2019", "\U0001f600", "\u00a0",
                                   "\u0130", "\u0131", "\u017f", "\u212a"]))
JOINER = st.sampled_from([" ", "", "\n"])


@given(JOINER, st.lists(PIECE, max_size=40), st.integers(min_value=0))
@settings(max_examples=400, deadline=None)
def test_candidate_search_finds_the_same_matches(joiner, pieces, which):
    text = joiner.join(pieces)
    for pattern in (PATTERNS[which % len(PATTERNS)], PATTERNS[(which // len(PATTERNS)) % len(PATTERNS)]):
        assert _fast(text, pattern) == _plain(text, pattern), pattern.pattern


def test_every_scanner_pattern_on_its_own_words_in_capitals():
    text = " ".join(WORDS)
    for variant in (text, text.upper(), text.title(), text.replace(" ", "\n"), "Ω—" + text.title(),
                    text.upper().replace("S", "\u017f"), "\U0001f600 " + text.replace(" ", "\u00a0")):
        for pattern in PATTERNS:
            assert _fast(variant, pattern) == _plain(variant, pattern), pattern.pattern


def test_refused_sources():
    refuse = [r"[!-Z]x", r"(?-i:a)b", r"\x41b", r"(a)\1", r"(?P<n>a)"]
    for source in refuse:
        assert scan_lowered.lowered_candidate(re.compile(source, re.I)) is None, source
    assert scan_lowered.lowered_candidate(re.compile(r"\bfoo", 0)) is None  # case-sensitive already
    made = scan_lowered.lowered_candidate(re.compile(r"\b(?:Ab|c\b)|\bDAN\S[A-Z]", re.I))
    assert made is not None and made.pattern == r"(?:ab|c\b)|dan\S[a-z]" and not made.flags & re.I


def test_a_capital_range_reaching_past_the_letters_would_differ():
    # why `[!-Z]` is refused: IGNORECASE lets it take `b`, the lowered text's `b` is outside it
    assert re.fullmatch(r"[!-Z]", "b", re.I) and not re.fullmatch(r"[!-z]".replace("z", "Z"), "b")


def test_empty_matches_follow_finditer():
    pattern = re.compile(r"(?:abc)?|X", re.I)  # never a scanner pattern: the empty-match rule of `finditer`
    candidate = scan_lowered.lowered_candidate(pattern)
    for text in ("xabcx", "ABCX x", "", "x\nabc"):
        fast = [(m.start(), m.group()) for m in scan_lowered.confirmed_matches(pattern, candidate, text, text.lower(),
                                                                               [(0, len(text))], 100)]
        assert fast == [(m.start(), m.group()) for m in pattern.finditer(text)], text


def test_lowering_keeps_what_a_lowered_candidate_needs_in_all_of_unicode():
    """Outside the four folding letters, no non-ASCII character matches an ASCII letter under IGNORECASE or lowers
    onto ASCII, and its one-character lowercase is a word character, digit or space exactly when it is."""
    folding = {"\u0130", "\u0131", "\u017f", "\u212a"}
    letter = re.compile("[a-z]", re.I)
    kinds = (re.compile(r"\w"), re.compile(r"\d"), re.compile(r"\s"))
    for point in range(0x80, 0x110000):
        char = chr(point)
        if char in folding or 0xD800 <= point <= 0xDFFF:
            continue
        assert not letter.match(char), hex(point)
        low = char.lower()
        if len(low) == 1:
            assert not low.isascii(), hex(point)
            assert [bool(k.match(char)) for k in kinds] == [bool(k.match(low)) for k in kinds], hex(point)


# The non-ASCII letters of the scanner's patterns (Spanish, French, German, Cyrillic, CJK …) and every character
# IGNORECASE matches to one of them (`ᲀ` for `в`, a final `Σ` lowering to `ς`)
OTHER_LETTERS = sorted({c for p in PATTERNS for c in p.pattern if not c.isascii() and c.isalpha()})
OTHER_WORDS = sorted({w for p in PATTERNS for w in re.findall(r"[^\W\d_]{2,}", p.pattern) if not w.isascii()})


def test_non_ascii_letters_become_every_lowercase_ignorecase_matches_them_to():
    """For each non-ASCII letter of a scanner pattern, every character of Unicode that IGNORECASE matches to it
    lowers (as `str.lower` lowers it alone) to one of the letter's `_cases`."""
    assert len(OTHER_LETTERS) > 20
    any_letter = re.compile("[" + "".join(OTHER_LETTERS) + "]", re.I)
    for point in range(0x80, 0x110000):
        char = chr(point)
        if 0xD800 <= point <= 0xDFFF or not any_letter.match(char) or char == "\u0130":
            continue
        for letter in OTHER_LETTERS:
            if re.fullmatch(letter, char, re.I):
                assert char.lower() in scan_lowered._cases(letter), (letter, hex(point))


OTHER_PIECE = st.one_of(st.sampled_from(OTHER_WORDS), st.sampled_from(OTHER_WORDS).map(str.upper),
                        st.sampled_from(OTHER_WORDS).map(str.title), st.sampled_from(WORDS),
                        st.sampled_from([" ", "\n", "'", "\u2019", "ᲀ", "ᲂ", "ᲃ", "ΟΔΟΣ", "σ", "ς", "\u0130", "É",
                                         "\U0001f600", "-", "."]))


@given(JOINER, st.lists(OTHER_PIECE, max_size=40), st.integers(min_value=0))
@settings(max_examples=400, deadline=None)
def test_candidate_search_of_patterns_with_other_scripts_finds_the_same_matches(joiner, pieces, which):
    others = [p for p in PATTERNS if not p.pattern.isascii()]
    assert others
    text = joiner.join(pieces)
    pattern = others[which % len(others)]
    assert _fast(text, pattern) == _plain(text, pattern), pattern.pattern
