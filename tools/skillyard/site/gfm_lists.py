"""Make GitHub-style lists read the same in Python-Markdown.

Authors write SKILL.md for GitHub, where a list may start right after a paragraph line and nested items are indented
by two spaces. Python-Markdown needs a blank line before a list and four spaces per level, so without this step
"Steps:\\n- one\\n- two" renders as one paragraph and nested items flatten. This rewrites only list structure:
fenced code keeps every byte, and lines outside lists are untouched. Pure: text in, text out.
"""

from __future__ import annotations

import re

_ITEM = re.compile(r"^( *)(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_BLOCK_START = ("#", ">", "|", "<", "    ", "\t")


def _is_thematic_break(line: str) -> bool:
    stripped = line.replace(" ", "")
    return len(stripped) >= 3 and len(set(stripped)) == 1 and stripped[0] in "-*_"


def _is_item(line: str) -> bool:
    return _ITEM.match(line) is not None and not _is_thematic_break(line)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def github_lists(body: str) -> str:
    """The body with a blank line before each list that interrupts a paragraph, and two-space nesting widened to
    Python-Markdown's four."""
    lines = body.split("\n")
    out: list[str] = []
    index = 0
    previous = "blank"  # what the last emitted line was: blank, text (a paragraph) or other
    while index < len(lines):
        line = lines[index]
        fence = _FENCE.match(line)
        if fence:
            end = _fence_end(lines, index, fence.group(1))
            out.extend(lines[index:end])
            index, previous = end, "other"
            continue
        if _is_item(line) and _indent(line) <= 3:
            end = _list_end(lines, index)
            if previous == "text":
                out.append("")
            out.extend(_widen(lines[index:end]))
            index, previous = end, "other"
            continue
        out.append(line)
        if not line.strip():
            previous = "blank"
        elif line.startswith(_BLOCK_START) or _is_thematic_break(line):
            previous = "other"
        else:
            previous = "text"
        index += 1
    return "\n".join(out)


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    """The index after the fence that closes the one opened at `start` (or the end of the text)."""
    for index in range(start + 1, len(lines)):
        close = _FENCE.match(lines[index])
        if close and close.group(1)[0] == marker[0] and len(close.group(1)) >= len(marker) \
                and not lines[index].strip()[len(close.group(1)):].strip():
            return index + 1
    return len(lines)


def _list_end(lines: list[str], start: int) -> int:
    """The index after a list block: items, their indented or lazy continuation lines, and blank lines between
    items; it ends at a blank line followed by an unindented line that is not an item."""
    index = start + 1
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            following = next((n for n in range(index + 1, len(lines)) if lines[n].strip()), None)
            if following is None or (_indent(lines[following]) == 0 and not _is_item(lines[following])):
                return index
        elif _indent(line) == 0 and not _is_item(line) and (line.startswith(_BLOCK_START[:4])
                                                             or _is_thematic_break(line)):
            return index  # a heading, quote, table or rule after a list item starts a new block
        index += 1
    return index


def _widen(block: list[str]) -> list[str]:
    """Double the indentation inside a list that nests by two spaces (GitHub style); leave four-space lists."""
    nested = [_indent(line) for line in block if _is_item(line) and _indent(line) > 0]
    if not nested or all(width % 4 == 0 for width in nested):
        return block
    out: list[str] = []
    index = 0
    while index < len(block):
        line = block[index]
        fence = _FENCE.match(line)
        if fence:  # code moves as a whole: its own indentation is content
            end = _fence_end(block, index, fence.group(1))
            shift = " " * _indent(line)
            out.extend(shift + code if code.strip() else code for code in block[index:end])
            index = end
            continue
        out.append(" " * _indent(line) + line if line.strip() else line)
        index += 1
    return out
