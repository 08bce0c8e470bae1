"""Look-alike letters folded to the ASCII letters they imitate, so `іgnоrе` (Cyrillic і and о) or `ｉｇｎｏｒｅ`
(fullwidth) reads as `ignore` to the rules.

One `str.translate` with a table built once: Cyrillic, Greek and Armenian letters that look like Latin ones, every
character whose compatibility form (NFKC) is one ASCII letter or digit (fullwidth forms, mathematical bold and
italic letters, circled and small-capital letters), and invisible characters dropped. Line ends are never added or
removed, so a line number in the folded text is the line in the file.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Letters of other scripts drawn like Latin ones (Unicode's confusables for the common skeletons, written out).
_LOOK_ALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "һ": "h",
    "ӏ": "l", "ь": "b", "г": "r",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y",
    "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W", "Һ": "H", "Ӏ": "I",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ω": "w", "ς": "s",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X",
    # Armenian and Latin extensions
    "օ": "o", "ս": "u", "ո": "n", "հ": "h", "զ": "q", "ց": "g", "ı": "i", "ȷ": "j", "ʀ": "r", "ɪ": "i", "ʏ": "y",
    "ᴀ": "a", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ᴊ": "j", "ᴋ": "k", "ᴍ": "m", "ᴏ": "o", "ᴘ": "p", "ᴛ": "t", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ᴢ": "z", "ɴ": "n", "ʟ": "l", "ꜱ": "s", "ɢ": "g", "ʜ": "h",
}
# Invisible characters a word can be split with (`ig\u200bnore`): dropped, which keeps every line end.
_INVISIBLE = "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c" \
             "\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
# Ranges whose compatibility forms are plain letters and digits.
_NFKC_RANGES = ((0xFF01, 0xFF5F), (0x1D400, 0x1D800), (0x2460, 0x2500), (0x2100, 0x2150), (0x1F130, 0x1F18A),
                (0x24B6, 0x24EA), (0x1D00, 0x1D80), (0x2070, 0x20A0), (0xE0020, 0xE0080))


@functools.lru_cache(maxsize=1)
def table() -> dict[int, str | None]:
    """The translation table (built on first use: about 2,500 entries)."""
    out: dict[int, str | None] = {ord(k): v for k, v in _LOOK_ALIKES.items()}
    for low, high in _NFKC_RANGES:
        for code in range(low, high):
            char = chr(code)
            form = unicodedata.normalize("NFKC", char)
            if len(form) == 1 and form.isascii() and form.isprintable() and form != "\n":
                out[code] = form
            elif 0xE0020 <= code < 0xE0080:  # tag characters spell ASCII invisibly
                out[code] = chr(code - 0xE0000)
    for char in _INVISIBLE:
        out[ord(char)] = None
    return out


@functools.lru_cache(maxsize=1)
def _suspects() -> tuple[frozenset[str], frozenset[str]]:
    """(letters of other scripts that look Latin, forms nobody writes prose in: fullwidth, mathematical, small
    capitals, tags)."""
    scripts = frozenset(_LOOK_ALIKES)
    return scripts, frozenset(chr(c) for c in table() if c > 127 and chr(c) not in scripts and chr(c) not in _INVISIBLE)


_ASCII = bytes(range(128))


def fold(text: str, raw: bytes | None = None) -> str | None:
    """`text` with look-alike letters made ASCII and invisible characters dropped, or None when nothing is
    disguised (the common case). A Cyrillic or Greek letter counts only beside a Latin one (`іgnore`): a Russian
    sentence or a formula's α is no disguise. The non-ASCII characters are collected with one `bytes.translate` and
    compared as a set, and the neighbour test is one regex over the few letters present, all at C speed."""
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    if raw.isascii():
        return None
    others = set(raw.translate(None, _ASCII).decode("utf-8", "ignore"))
    scripts, forms = _suspects()
    present = scripts.intersection(others)
    if forms.isdisjoint(others):
        if not present:
            return None
        letters = "".join(sorted(present))
        if not re.search(f"[A-Za-z][{letters}]|[{letters}][A-Za-z]", text):
            return None
    # `str.translate` with a 2,500-entry table looks each character up; only the few table characters present are
    # replaced instead, one `str.replace` each (every key is non-ASCII and every value ASCII or nothing, so no
    # replacement makes a key again: the text `translate` gives)
    folded, marks = text, table()
    for char in others:
        if ord(char) in marks:
            folded = folded.replace(char, marks[ord(char)] or "")
    return folded if folded != text else None
