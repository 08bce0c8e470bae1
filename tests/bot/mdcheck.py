"""What GitHub would render outside inline code spans, per CommonMark's code span rule: a run of N backticks
opens a span that the next run of exactly N backticks closes (an unmatched run is literal text). Tests use it to
assert that untrusted text only ever appears inside code, where no link, mention, image or HTML is rendered."""

from __future__ import annotations

import re

_RUN = re.compile(r"`+")


def split_code(markdown: str) -> tuple[str, list[str]]:
    """(the text outside code spans, the code spans' contents). Fenced blocks (```sh lines) count as code too."""
    outside: list[str] = []
    spans: list[str] = []
    lines = markdown.split("\n")
    in_fence = False
    for line in lines:
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            spans.append(line)
            continue
        pos = 0
        while True:
            match = _RUN.search(line, pos)
            if match is None:
                outside.append(line[pos:])
                break
            outside.append(line[pos:match.start()])
            size = len(match.group())
            close = next((m for m in _RUN.finditer(line, match.end()) if len(m.group()) == size), None)
            if close is None:
                outside.append(match.group())
                pos = match.end()
                continue
            spans.append(line[match.end():close.start()])
            pos = close.end()
        outside.append("\n")
    return "".join(outside), spans


def outside_code(markdown: str) -> str:
    return split_code(markdown)[0]
