"""Case-insensitive patterns searched without IGNORECASE (issue 34): an IGNORECASE pattern, or one opening with
`\\b`, turns off the regex engine's prefix scan, so it tries every position of a line in Python's matcher loop. Its
`lowered_candidate` (letters lowered, the opening `\\b`s dropped, no IGNORECASE) is searched in the text lowered,
where the engine skips between candidate starts at C speed, and each candidate is confirmed by the pattern itself
matching there (`confirmed_matches`): the matches are `finditer`'s, found for a fraction of the cost.

Why the lowered text is enough: it holds a character's lowercase at the character's own position (`Context.low`),
and outside the four letters IGNORECASE folds onto ASCII (`gates.FOLDS_TO_ASCII`, checked by `Context.folds`) no
non-ASCII character matches an ASCII letter under IGNORECASE, none lowers onto ASCII, and lowering keeps whether a
character is a word character, digit or space (tests/format/test_scan_lowered.py checks all of Unicode)."""

from __future__ import annotations

import re

_REFUSED = re.compile(r"\\[0-9xuUN]|\(\?[-a-zA-Z<]")
try:  # the characters IGNORECASE matches beyond those with the same simple lowercase (`ſ` for `s`, `ᲀ` for `в`)
    from _sre import unicode_tolower as _simple_lower
    from re._casefix import _EXTRA_CASES
except ImportError:  # another Python: patterns with non-ASCII letters keep the plain search
    _simple_lower, _EXTRA_CASES = None, None


def _cases(char: str) -> str | None:
    """The lowered text's characters where IGNORECASE matches non-ASCII `char`: its simple lowercase and the extra
    cases of that (each a lowercase; `str.lower` differs from the simple one only for `İ`, which `Context.folds`
    catches, and for a final `Σ`, whose `ς` is among `σ`'s extra cases). None on a Python without the tables."""
    if _simple_lower is None:
        return None
    low = _simple_lower(ord(char))
    return "".join(dict.fromkeys(chr(c) for c in (low, *_EXTRA_CASES.get(low, ()))))


def lowered_candidate(pattern: re.Pattern) -> re.Pattern | None:
    """For an IGNORECASE `pattern`, a case-sensitive one that matches the text lowered wherever `pattern` matches the
    text (and maybe elsewhere): its letters lowered (escapes kept; a non-ASCII letter becomes every lowercase
    IGNORECASE matches it to, `_cases`) and the `\\b` that opens each top-level alternative dropped. None when that
    cannot be promised from the source: a non-ASCII or numeric escape, an inline flag, a named group, a range with a
    non-ASCII end, or a class range that holds some letters of one case but not the other."""
    source = pattern.pattern
    if not pattern.flags & re.I or not isinstance(source, str) or \
            _REFUSED.search(source.replace("(?<=", "").replace("(?<!", "")) or \
            (not source.isascii() and (_simple_lower is None or re.search(r"[^\x00-\x7f]-|-[^\x00-\x7f]|\\[^\x00-\x7f]", source))):
        return None  # (a range with a non-ASCII end is refused: its cases are not one range)
    out: list[str] = []
    i, in_class, depth = 0, False, 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            if source.startswith("\\b", i) and not in_class and depth == 0 and (not out or out[-1] == "|"):
                i += 2  # a top-level alternative's opening `\b`: dropped (the pattern itself confirms it)
                continue
            out.append(source[i:i + 2])
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class and source[i - 1] not in "[^":
            in_class = False
        elif in_class and char == "-" and source[i - 1] not in "[^" and i + 1 < len(source) and \
                source[i + 1] not in "]\\":
            low_end, high_end = source[i - 1], source[i + 1]
            if not (low_end.isalpha() and high_end.isalpha() and low_end.islower() == high_end.islower() or
                    low_end.isdigit() and high_end.isdigit() or high_end < "A" or low_end > "z" or
                    (low_end > "Z" and high_end < "a")):
                return None
        elif not in_class and char == "(":
            depth += 1
        elif not in_class and char == ")":
            depth -= 1
        if char.isascii():
            out.append(char.lower())
        else:  # every character IGNORECASE lets stand for it, lowered: one of them, or all of them inside a class
            cases = _cases(char)
            out.append(cases if in_class or len(cases) == 1 else f"[{cases}]")  # type: ignore[arg-type]
        i += 1
    return re.compile("".join(out), pattern.flags & ~re.I)


def confirmed_matches(pattern: re.Pattern, candidate: re.Pattern, text: str, low: str, lines, limit: int):
    """`pattern`'s matches in each (start, end) line of `text`, as `finditer` gives them, found from `candidate`'s
    hits in `low` (`lowered_candidate`), each confirmed by `pattern` matching at it; at most `limit`. After an empty
    match the rest of its line is left to `finditer` itself (its rule for what may follow an empty match)."""
    seen = 0
    for start, end in lines:
        at = start
        while True:
            hint = candidate.search(low, at, end)
            if hint is None:
                break
            match = pattern.match(text, hint.start(), end)
            if match is None:
                at = hint.start() + 1
                continue
            yield match
            seen += 1
            if seen >= limit:
                return
            if match.end() == match.start():
                rest = pattern.finditer(text, match.start(), end)
                next(rest)  # the same empty match
                for match in rest:
                    yield match
                    seen += 1
                    if seen >= limit:
                        return
                break
            at = match.end()
