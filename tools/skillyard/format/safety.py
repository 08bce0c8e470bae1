"""Characters that must never reach a model prompt or a web page unseen.

Invisible characters (zero-width, bidi overrides, Unicode tags) can hide instructions from a human reviewer while a
model still reads them; control characters corrupt terminals and logs.
"""

from __future__ import annotations

import re

# Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt, 4,174 code points: unchanged since Unicode
# 7.0): characters a renderer shows as nothing. Zero-width spaces and joiners, bidi marks, embeddings, overrides and
# isolates, the soft hyphen, Hangul fillers, variation selectors, interlinear and musical format controls, and the
# whole tag plane (ASCII smuggling). Unassigned members are included so a future assignment stays caught.
DEFAULT_IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
# Not default-ignorable, but drawn as blank space by every common font: the braille blank.
BLANK_LOOKING = "\u2800"
# Characters that take an emoji or text presentation selector (U+FE0E/U+FE0F) in emoji-variation-sequences.txt,
# as ranges wide enough to hold all of them: keycap bases, (c), (R), !!, ?!, TM, (i), arrows, technical and
# geometric symbols, dingbats, CJK marks and the emoji planes. One selector after one of these is ordinary emoji.
EMOJI_BASE = (
    "#*0-9\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf\u2934\u2935"
    "\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
_IGNORABLE_BUT_PRESENTATION = DEFAULT_IGNORABLE.replace("\ufe00-\ufe0f", "\ufe00-\ufe0d")
# Every default-ignorable or blank-looking character, except U+FE0E/U+FE0F directly after an emoji base (one
# selector: a second one follows a selector, not a base, so runs of selectors - variation-selector smuggling,
# one byte per selector - are caught from the second on, and every U+FE00-FE0D and U+E0100-E01EF always is).
INVISIBLE = re.compile(
    f"[{_IGNORABLE_BUT_PRESENTATION}{BLANK_LOOKING}]|(?<![{EMOJI_BASE}])[\ufe0e\ufe0f]"
)
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
ANGLE = re.compile("[<>]")


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` safe for a terminal or a CI log: control characters (but newline and tab), bidi controls and invisible
    characters become `\\uXXXX` (a carriage return `\\r`), so a hostile name in a message can neither move the
    cursor, recolour the terminal, reorder what is shown, nor hide part of itself. `one_line` also writes newlines
    and tabs as `\\n` and `\\t`, for a value printed inside a line, which must not start a forged one."""
    text = CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text.replace("\r", "\\r"))
    if one_line:
        text = text.replace("\n", "\\n").replace("\t", "\\t")
    if text.isascii():
        return text
    return INVISIBLE.sub(lambda m: "".join(f"\\u{ord(c):04x}" for c in m.group()), text)


def finding_text(finding) -> tuple[str, str, str]:
    """(where, message, fix) of a finding, each one safe line for a terminal: findings quote what hostile files say."""
    where = visible(finding.file or "", one_line=True) + (f":{finding.line}" if finding.line else "")
    return where, visible(finding.message, one_line=True), visible(finding.fix or "", one_line=True)


def describe_char(ch: str) -> str:
    import unicodedata

    fallback = "control character" if unicodedata.category(ch) == "Cc" else "unassigned code point"
    return f"U+{ord(ch):04X} {unicodedata.name(ch, fallback)}"


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


def hidden_in_values(data: object) -> list[tuple[str, str, str]]:
    """(field path, rule, character) for each parsed string holding a control or invisible character. The raw-text
    checks see `\\u200b` or `\\x07` in a quoted YAML string only as an escape: the value it becomes is checked here."""
    found = []
    for path, value in iter_strings(data):
        match = CONTROL.search(value)
        if match:
            found.append((path, "control-character", match.group()))
        match = None if value.isascii() else INVISIBLE.search(value)
        if match:
            found.append((path, "invisible-unicode", match.group()))
    return found
