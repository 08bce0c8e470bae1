"""JSON Schema `pattern`s are ECMA-262 regular expressions; run as Python ones they accept more than they say.

Python's `$` also matches before a final line feed (so `^[a-z]+$` accepted a name "pdf\\n"), its `\\d` and `\\w` take
every script's digits and letters where ECMA-262 takes ASCII, its `.` takes a carriage return, and its `\\s` is
another set. Every schema pattern we check a document against is compiled here, with ECMA-262's meaning (no flags,
as JSON Schema uses them): `$` is the end of the text, `.` any character but a line terminator, `\\d` `\\w` `\\b` ASCII,
`\\s` ECMA-262's white space and line terminators. A construct with no such translation raises ValueError, so a
schema that needs one fails loudly in the tests instead of matching differently.
"""

from __future__ import annotations

import re
from functools import lru_cache

# ECMA-262 WhiteSpace and LineTerminator (what `\s` matches), as regex source for inside a character class.
_SPACE = r"\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_LINE_END = r"\n\r\u2028\u2029"


def python_source(pattern: str) -> str:
    """The Python regex source (for re.ASCII) that matches what the ECMA-262 `pattern` matches."""
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if index + 1 == len(pattern):
                raise ValueError(f"pattern {pattern!r} ends with a lone backslash")
            escaped = pattern[index + 1]
            if escaped == "s":
                out.append(_SPACE if in_class else f"[{_SPACE}]")
            elif escaped == "S":
                if in_class:
                    raise ValueError(f"pattern {pattern!r}: `\\S` inside a character class has no translation")
                out.append(f"[^{_SPACE}]")
            else:
                out.append(char + escaped)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
            out.append(char)
        elif char == "[":
            if pattern.startswith(("[]", "[^]"), index):  # ECMA-262: match nothing / anything; Python reads them apart
                raise ValueError(f"pattern {pattern!r}: `[]` and `[^]` have no translation")
            in_class = True
            out.append(char)
            if pattern.startswith("[^", index):
                out.append("^")
                index += 1
        elif char == "$":
            out.append(r"\Z")
        elif char == ".":
            out.append(f"[^{_LINE_END}]")
        else:
            out.append(char)
        index += 1
    return "".join(out)


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The compiled translation of an ECMA-262 pattern; use `.search`, as JSON Schema's `pattern` is unanchored."""
    return re.compile(python_source(pattern), re.ASCII)
