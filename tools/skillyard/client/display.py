"""Printing registry text on a terminal: registry content is untrusted, so control characters (escape
sequences that could rewrite the screen or the clipboard) are replaced before anything is shown."""

from __future__ import annotations

import re
import shutil

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def clean(text: object, *, single_line: bool = True) -> str:
    """`text` as a string without control, bidi-override or invisible characters (newlines kept unless
    single_line). Invisible ones (zero-width, tag characters that spell hidden ASCII, variation-selector runs) are
    shown as U+FFFD, so a registry's description cannot hide text from the person reading it."""
    value = _CONTROL.sub("\ufffd", str(text))
    if not value.isascii():
        from skillyard.format.safety import INVISIBLE

        value = INVISIBLE.sub("\ufffd", value)
    if single_line:
        value = " ".join(value.split())
    return value


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


def table(rows: list[list[str]], *, last_flexible: bool = True) -> list[str]:
    """Left-aligned columns; the last column is clipped to the terminal width."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    total = terminal_width()
    for row in rows:
        head = "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:-1]))
        line = (head + "  " if head else "") + row[-1]
        if last_flexible:
            line = clip(line, max(total, len(head) + 12))
        lines.append(line.rstrip())
    return lines
