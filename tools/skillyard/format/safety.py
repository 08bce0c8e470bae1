"""Characters that must never reach a model prompt or a web page unseen.

Invisible characters (zero-width, bidi overrides, Unicode tags) can hide instructions from a human reviewer while a
model still reads them; control characters corrupt terminals and logs.
"""

from __future__ import annotations

import re

# Zero-width and joiners, bidi embeddings/overrides/isolates and marks, word joiner family, BOM (not at the start),
# Mongolian vowel separator, Unicode "tag" characters (ASCII smuggling).
INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u061c\u180e\ufeff\U000e0000-\U000e007f]"
)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
ANGLE = re.compile("[<>]")


def describe_char(ch: str) -> str:
    import unicodedata

    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'control character')}"


def find_invisible(text: str) -> list[tuple[int, str]]:
    """(1-based line, description) of each invisible character."""
    if text.isascii():
        return []
    return [(text.count("\n", 0, m.start()) + 1, describe_char(m.group())) for m in INVISIBLE.finditer(text)]


def find_control(text: str) -> list[tuple[int, str]]:
    return [(text.count("\n", 0, m.start()) + 1, describe_char(m.group())) for m in CONTROL.finditer(text)]


def iter_strings(value: object, path: str = ""):
    """Yield (field path, string) for every string key and value in a parsed YAML structure."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if isinstance(key, str):
                yield child, key
            yield from iter_strings(item, child)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_strings(item, f"{path}[{index}]")
