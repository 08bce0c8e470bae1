"""A Python pattern rewritten as a byte pattern for `hyperscan` that matches wherever the original may match in the
same text's UTF-8 bytes, searched line by line (`Context.finditer`): a superset, never fewer matches.

Read from Python's own parse of the pattern (`re._parser`), not from its text, so every construct is one the
translator knows or the pattern is refused (`Unsupported`; it is then not gated). How each keeps the superset:
- a character Python may match outside ASCII (`.`, `\\w`, `\\S`, a negated class, a class holding non-ASCII) takes
  one to four bytes (`{1,4}`; a repeat of one such atom `{m,n}` becomes `{m,4n}`): UTF-8 spends up to four bytes on
  a character, and the bounds count characters; an upper bound over 16 is dropped (`{0,300}` is `*`);
- `\\w`, `\\d`, `\\s` and classes naming non-ASCII characters also take any byte from 0x80 (a letter, digit or space of
  another script), and `\\s` the controls 0x1c–0x1f Python counts as spaces;
- a non-ASCII literal is its UTF-8 bytes; under IGNORECASE, the bytes of each character Python's matcher takes for
  it (`ñ` or `Ñ`, `ß` or `ẞ`, `case_variants`), as the engine folds ASCII only;
- anchors: `^`/`\\A` at any line start, `$`/`\\Z` at any line end (a line's end is the searched string's end);
  word boundaries and lookarounds are dropped (a dropped condition only adds matches);
- `(?i:…)` is kept; inside `(?-i:…)` the engine still ignores case (more matches); back references,
  conditionals and other inline flags are refused.
tests/format/test_scan_pattern_gate.py draws matches of every registered pattern (hypothesis `from_regex`, Unicode
text) and checks the rewritten pattern finds each.
"""

from __future__ import annotations

import re
from re import _constants as sre  # noqa: PLC2701 - Python's own parse of a pattern: the exact reading
from re import _parser

_HIGH = "\\x80-\\xff"
# Python's `\s` in a str pattern: ASCII whitespace, the separators 0x1c-0x1f and (non-ASCII) any Unicode space.
_SPACE = "\\t\\n\\x0b\\x0c\\r \\x1c-\\x1f"
_CATEGORY_IN = {  # inside a positive class: the ASCII members, plus every high byte (another script's letters)
    sre.CATEGORY_WORD: "0-9A-Za-z_" + _HIGH, sre.CATEGORY_DIGIT: "0-9" + _HIGH, sre.CATEGORY_SPACE: _SPACE + _HIGH,
    sre.CATEGORY_NOT_WORD: "\\x00-\\x2f\\x3a-\\x40\\x5b-\\x5e\\x60\\x7b-\\x7f" + _HIGH,
    sre.CATEGORY_NOT_DIGIT: "\\x00-\\x2f\\x3a-\\x7f" + _HIGH,
    sre.CATEGORY_NOT_SPACE: "\\x00-\\x08\\x0e-\\x1b\\x21-\\x7f" + _HIGH,
}
_CATEGORY_OUT = {  # inside a negated class: the ASCII members only (so every high byte stays allowed)
    sre.CATEGORY_WORD: "0-9A-Za-z_", sre.CATEGORY_DIGIT: "0-9", sre.CATEGORY_SPACE: _SPACE,
}


class Unsupported(ValueError):
    """A construct the translator does not rewrite: the pattern is not gated."""


def byte_pattern(pattern: re.Pattern) -> str:
    """The engine's byte pattern for `pattern` (see the module docstring); raises `Unsupported`."""
    if not isinstance(pattern.pattern, str):
        raise Unsupported("not a str pattern")
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    return _sequence(list(parsed), bool(pattern.flags & re.IGNORECASE))


def _byte(value: int) -> str:
    char = chr(value)
    return char if char.isascii() and char.isalnum() else f"\\x{value:02x}"


# The non-ASCII letters IGNORECASE matches to ASCII ones (`gates.FOLDS_TO_ASCII`): a pattern naming one is refused.
_FOLDING = frozenset({0x130, 0x131, 0x17F, 0x212A})


def _literal(code: int, ignore_case: bool) -> str:
    """One literal character, as one unit (grouped when it is several bytes)."""
    if code < 128:
        return _byte(code)
    if ignore_case:
        if code in _FOLDING:
            raise Unsupported(f"U+{code:04X} folds onto ASCII")
        variants = case_variants(code)
        if variants is None:  # a Python without the matcher's tables: any character outside ASCII (sound, looser)
            return f"(?:[{_HIGH}]{{2,4}})"
        return "(?:" + "|".join(_utf8(char) for char in variants) + ")"  # its other cases: other bytes
    return "(?:" + _utf8(chr(code)) + ")"


def _utf8(char: str) -> str:
    return "".join(_byte(b) for b in char.encode("utf-8", "surrogatepass"))


_LOWERED: list[tuple[int, ...]] = []  # the code points the matcher lowers to another one, found on first need
_VARIANTS: dict[int, tuple[str, ...]] = {}


def case_variants(code: int) -> tuple[str, ...] | None:
    """Every character Python's IGNORECASE matching takes for the literal `code`, in code point order. The matcher
    compares lowercase forms (`_sre.unicode_tolower`, its own simple mapping) and also takes a lowercase form's extra
    cases (`re._casefix`: `ß`/`ẞ`, `ς`/`σ`): so every character that lowers to one of those forms, or is one.
    tests/format/test_scan_pattern_gate.py checks each literal of the registered patterns against the matcher run
    over every code point. Asked only when the engine's database is built (it is kept between runs). None on a
    Python whose matcher lacks these (private) tables."""
    found = _VARIANTS.get(code)
    if found is None:
        try:
            import _sre
            from re import _casefix  # noqa: PLC2701 - the matcher's own table of extra cases

            _sre.unicode_tolower, _casefix._EXTRA_CASES  # noqa: B018 - both there, or the looser spelling
        except (ImportError, AttributeError):
            return None
        if not _LOWERED:
            _LOWERED.append(tuple(x for x in range(0x110000) if _sre.unicode_tolower(x) != x))
        low = _sre.unicode_tolower(code)
        forms = {low, *_casefix._EXTRA_CASES.get(low, ())}
        chosen = {x for x in _LOWERED[0] if _sre.unicode_tolower(x) in forms}
        chosen.update(x for x in forms if _sre.unicode_tolower(x) == x)
        found = _VARIANTS[code] = tuple(chr(x) for x in sorted(chosen | {code}))
    return found


def _class(items: list, ignore_case: bool) -> tuple[str, bool]:
    """(the byte class, whether it may match a character outside ASCII)."""
    negated = bool(items) and items[0][0] is sre.NEGATE
    members: list[str] = []
    wide = negated
    for op, av in items[1:] if negated else items:
        if op is sre.LITERAL:
            if av < 128:
                members.append(_byte(av))
            elif ignore_case and av in _FOLDING:
                raise Unsupported(f"U+{av:04X} folds onto ASCII")
            elif not negated:
                wide = True
        elif op is sre.RANGE:
            low, high = av
            if ignore_case and any(low <= code <= high for code in _FOLDING):
                raise Unsupported("a range holding a letter that folds onto ASCII")
            if low < 128:
                members.append(f"{_byte(low)}-{_byte(min(high, 127))}")
            if high >= 128 and not negated:
                wide = True
        elif op is sre.CATEGORY:
            if negated:
                if av not in _CATEGORY_OUT:  # `[^\W]`: a word character, of any script
                    raise Unsupported(f"negated class with {av}")
                members.append(_CATEGORY_OUT[av])
            else:
                members.append(_CATEGORY_IN[av])
                wide = True
        else:
            raise Unsupported(f"class member {op}")
    if wide and not negated:
        members.append(_HIGH)
    body = "".join(members)
    if not body:
        return ("[\\x00-\\xff]" if negated else "(?!)"), negated
    return f"[{'^' if negated else ''}{body}]", wide


def _atom(op, av, ignore_case: bool) -> tuple[str, bool]:
    """(one item's byte pattern, whether it is one character that may lie outside ASCII, 1-4 bytes)."""
    if op is sre.LITERAL:
        return _literal(av, ignore_case), False
    if op is sre.NOT_LITERAL:
        return (f"[^{_byte(av)}]" if av < 128 else "[\\x00-\\xff]"), True
    if op is sre.ANY:
        return ".", True
    if op is sre.IN:
        return _class(av, ignore_case)
    if op is sre.CATEGORY:
        return _class([(sre.CATEGORY, av)], ignore_case)
    raise Unsupported(str(op))


def _sequence(items: list, ignore_case: bool) -> str:
    out = []
    for op, av in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.CATEGORY):
            text, wide = _atom(op, av, ignore_case)
            out.append(f"{text}{{1,4}}" if wide else text)
        elif op is sre.BRANCH:
            out.append("(?:" + "|".join(_sequence(list(branch), ignore_case) for branch in av[1]) + ")")
        elif op is sre.SUBPATTERN:
            _, add_flags, del_flags, inner = av
            if (add_flags | del_flags) & ~re.IGNORECASE:
                raise Unsupported("inline flags other than `i`")
            if add_flags and not ignore_case:  # `(?i:…)` in a pattern without IGNORECASE
                out.append("(?i:" + _sequence(list(inner), True) + ")")
            else:  # `(?-i:…)`: matched without case by the engine, so more matches, never fewer
                out.append("(?:" + _sequence(list(inner), ignore_case and not del_flags) + ")")
        elif op is sre.ATOMIC_GROUP:
            out.append("(?:" + _sequence(list(av), ignore_case) + ")")
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, inner = av
            inner = list(inner)
            wide = False
            if len(inner) == 1 and inner[0][0] in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.CATEGORY):
                text, wide = _atom(*inner[0], ignore_case)
            else:
                text = "(?:" + _sequence(inner, ignore_case) + ")"
            if wide and high != sre.MAXREPEAT:  # one character in one to four bytes: the bound in bytes
                high *= 4
            out.append(text + _bounds(low, high))
        elif op is sre.AT:
            if av in (sre.AT_BEGINNING, sre.AT_BEGINNING_LINE, sre.AT_BEGINNING_STRING):
                out.append("^")
            elif av in (sre.AT_END, sre.AT_END_LINE, sre.AT_END_STRING):
                out.append("$")
            # a word boundary (or its negation) is dropped: only more matches
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            continue  # lookarounds dropped: only more matches
        else:
            raise Unsupported(str(op))
    return "".join(out)


# Upper bounds above this are dropped (`{0,300}` becomes `*`): more matches, and a far smaller, faster database (the
# engine counts a bounded repeat position by position).
_LOOSE_ABOVE = 16


def _bounds(low: int, high: int) -> str:
    if high != sre.MAXREPEAT and high > _LOOSE_ABOVE:
        high = sre.MAXREPEAT
    if high == sre.MAXREPEAT:
        return "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
    return "" if (low, high) == (1, 1) else f"{{{low},{high}}}"
