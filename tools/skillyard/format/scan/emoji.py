"""How emoji are written (joiners between emoji, the tag letters of subdivision flags), so invisible characters
inside them are not taken for hidden text (`judge`'s invisible-character check)."""

from __future__ import annotations

import re

from skillyard.format import safety


def all_positions(text: str, char: str) -> list[int]:
    """Every index of `char` in `text`."""
    positions, index = [], text.find(char)
    while index >= 0:
        positions.append(index)
        index = text.find(char, index + 1)
    return positions


_EMOJI = re.compile(f"[{safety.EMOJI_BASE.replace('#*0-9', '')}\ufe0f]")
_TAG_LETTERS = frozenset(chr(c) for c in [*range(0xE0030, 0xE003A), *range(0xE0061, 0xE007B)])


def in_emoji_sequence(text: str, index: int) -> bool:
    """A zero-width joiner between two emoji (👨‍👩‍👧) or a tag character of a subdivision flag (🏴 + tag letters + the
    cancel tag, as in the flag of Scotland): how emoji are written, not hidden text."""
    char = text[index]
    if char == "\u200d":
        return 0 < index < len(text) - 1 and bool(_EMOJI.match(text, index - 1)) and bool(_EMOJI.match(text, index + 1))
    start = index
    while start > 0 and start > index - 8 and text[start - 1] in _TAG_LETTERS:
        start -= 1
    end = index
    while end < len(text) and end < index + 8 and text[end] in _TAG_LETTERS:
        end += 1
    return start > 0 and text[start - 1] == "\U0001f3f4" and end < len(text) and text[end] == "\U000e007f" \
        and 2 <= end - start <= 6 and (char in _TAG_LETTERS or index == end)
