"""Issue 34 item 7: `Context.finditer` finds an IGNORECASE pattern's matches in ASCII text from candidates searched
case-sensitively in the lowered text (`context.lowered_candidate`); the matches must be exactly those of the
pattern searched line by line, for every scanner pattern that gets a candidate and for the source forms that must be
refused (capital ranges reaching past the letters, inline flags, numeric escapes)."""

from __future__ import annotations

import gc
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.scan import context as scan_context
from skillyard.format.scan import layout as scan_layout
from skillyard.format.scan import judge  # noqa: F401  (imports every rule module: their patterns are compiled)


def _scanner_patterns() -> list[re.Pattern]:
    found = {id(p): p for p in gc.get_objects() if isinstance(p, re.Pattern) and p.flags & re.I
             and isinstance(p.pattern, str)}
    return [p for p in found.values() if scan_layout.lowered_candidate(scan_context.line_local(p)) is not None]


PATTERNS = _scanner_patterns()
# words from the patterns themselves, in random case, among separators: text where the patterns match often
WORDS = sorted({w for p in PATTERNS for w in re.findall(r"[a-z]{2,}", p.pattern.lower())})


def _plain(ctx_text: str, pattern: re.Pattern) -> list[tuple[int, int, str]]:
    local, out, at = scan_context.line_local(pattern), [], 0
    for line in ctx_text.split("\n"):
        out += [(m.start(), m.end(), m.group()) for m in local.finditer(ctx_text, at, at + len(line))]
        at += len(line) + 1
    return out[:scan_context.MAX_MATCHES]


def _fast(text: str, pattern: re.Pattern) -> list[tuple[int, int, str]]:
    ctx = scan_context.Context(text, "x.md", "markdown")
    return [(m.start(), m.end(), m.group()) for m in ctx.finditer(pattern, ("",))]


def test_most_ignorecase_patterns_get_a_candidate():
    assert len(PATTERNS) >= 40


PIECE = st.one_of(st.sampled_from(WORDS).map(str.upper), st.sampled_from(WORDS),
                  st.sampled_from(WORDS).map(str.title), st.sampled_from([" ", "  ", "\n", ".", "-", "/", "_", "'",
                                                                          "\"", ":", "|", "(", ")", "$", "~", "1"]))


@given(st.lists(PIECE, max_size=40).map(" ".join), st.integers(min_value=0))
@settings(max_examples=600, deadline=None)
def test_candidate_search_finds_the_same_matches(text, which):
    pattern = PATTERNS[which % len(PATTERNS)]
    assert _fast(text, pattern) == _plain(text, pattern)


def test_every_scanner_pattern_on_its_own_words_in_capitals():
    text = " ".join(WORDS)
    for variant in (text, text.upper(), text.title(), text.replace(" ", "\n")):
        for pattern in PATTERNS:
            assert _fast(variant, pattern) == _plain(variant, pattern), pattern.pattern


def test_refused_sources():
    refuse = [r"[!-Z]x", r"(?-i:a)b", r"\x41b", r"(a)\1", r"(?P<n>a)"]
    for source in refuse:
        assert scan_layout.lowered_candidate(re.compile(source, re.I)) is None, source
    assert scan_layout.lowered_candidate(re.compile(r"\bfoo", 0)) is None  # case-sensitive already
    made = scan_layout.lowered_candidate(re.compile(r"\b(?:Ab|c\b)|\bDAN\S[A-Z]", re.I))
    assert made is not None and made.pattern == r"(?:ab|c\b)|dan\S[a-z]" and not made.flags & re.I


def test_a_capital_range_reaching_past_the_letters_would_differ():
    # why `[!-Z]` is refused: IGNORECASE lets it take `b`, the lowered text's `b` is outside it
    assert re.fullmatch(r"[!-Z]", "b", re.I) and not re.fullmatch(r"[!-z]".replace("z", "Z"), "b")
