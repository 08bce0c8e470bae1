"""Where things are: the Markdown code fences of a text, which of them are real, given the HTML blocks (`<pre>`, `<script>` …) around
them (`context.Context.fences` calls it), and whether a URL is on one of a list of hosts (its host itself, not a
look-alike that only contains the name), and `line_local`, the one-line form of a pattern the rules search lines with."""

from __future__ import annotations

import functools
import re


def outside_html_blocks(text: str, fences: list[tuple[int, int]], html_block: re.Pattern,
                        start: int = 0) -> list[tuple[int, int]]:
    """The fences not inside an HTML block (`<pre>`, `<script>` …), read in document order: a `<script src=…>` line
    inside a fence is code, not the start of a block that would swallow every later fence. `start`: no block begins
    before it (the line of the first block tag)."""
    kept: list[tuple[int, int]] = []
    at, pos = 0, start
    while True:
        block = html_block.search(text, pos)
        if block is None:
            return kept + fences[at:]
        while at < len(fences) and fences[at][0] < block.start():
            kept.append(fences[at])
            at += 1
        if kept and block.start() < kept[-1][1]:  # the opening tag is inside the fence just kept: code
            pos = kept[-1][1]
            continue
        pos = max(block.end(), block.start() + 1)
        while at < len(fences) and fences[at][0] < pos:
            at += 1  # a fence inside the block is text


def on_listed_host(url: str, hosts: tuple[str, ...]) -> bool:
    """`url`'s host is one of `hosts` (or a subdomain of it) and, when the entry names a path, under that path:
    `https://sh.rustup.rs/x`, not `https://sh.rustup.rs.example.invalid` nor `https://x.invalid/sh.rustup.rs`."""
    rest = url.lower().split("://", 1)[-1]
    host, _, path = rest.partition("/")
    host = host.split("@")[-1].split(":")[0]
    for entry in hosts:
        entry_host, _, entry_path = entry.partition("/")
        if (host == entry_host or host.endswith("." + entry_host)) and path.startswith(entry_path):
            return True
    return False


_FENCE_MARK = re.compile(r"```|~~~")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]{0,300}\n", re.M)


@functools.lru_cache(maxsize=64)
def _fence_close(run: str) -> re.Pattern:
    """The line that closes a fence opened with `run`, found from the newline before it (a literal first
    character, so the regex engine skips between line ends at C speed)."""
    return re.compile(r"\n {0,3}" + re.escape(run) + r"[`~]*[ \t]*$", re.M)


def fence_spans(text: str) -> list[tuple[int, int]]:
    """`context._FENCE.finditer`'s spans, found without its lazy walk through every character of every fence: each match
    starts at a line holding a fence mark within its first three characters, and ends at the first closing line
    after its opening line (or at the end of the text). The same spans, in the same order (tests/format/
    test_scan_speed.py checks them against `_FENCE`)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    tried = -1
    for mark in _FENCE_MARK.finditer(text):
        at = mark.start()
        if at < pos:
            continue
        start = text.rfind("\n", 0, at) + 1
        if start == tried or at - start > 3 or start < pos:
            continue
        tried = start
        opening = _FENCE_OPEN.match(text, start)
        if opening is None:
            continue
        close = _fence_close(opening.group(1)).search(text, opening.end() - 1)
        end = close.end() if close is not None else len(text)
        spans.append((start, end))
        pos = end
    return spans


@functools.lru_cache(maxsize=128)
def line_local(pattern: re.Pattern) -> re.Pattern:
    """`pattern` with every whitespace escape kept on one line (`\\s` outside a class becomes `[ \\t]`, and inside a
    class that is not negated, ` \\t`). The rules search line by line (`Context.finditer`), so a match that crossed a
    line end could never be found there: this makes the pattern say what is searched."""
    source, out, i, in_class, negated = pattern.pattern, [], 0, False, False
    while i < len(source):
        char = source[i]
        if char == "\\" and i + 1 < len(source):
            pair = source[i:i + 2]
            if pair == "\\s":
                out.append((" \\t" if not negated else pair) if in_class else "[ \\t]")
            else:
                out.append(pair)
            i += 2
            continue
        if char == "[" and not in_class:
            in_class, negated = True, source.startswith("^", i + 1)
        elif char == "]" and in_class and source[i - 1] not in "[^":
            in_class = False
        out.append(char)
        i += 1
    return re.compile("".join(out), pattern.flags)


def lowered_candidate(pattern: re.Pattern) -> re.Pattern | None:
    """For an IGNORECASE `pattern`, a case-sensitive one that matches the ASCII text lowered wherever `pattern`
    matches the text (at least there): its letters lowered (escapes kept) and the `\\b` that opens each top-level
    alternative dropped, so it starts with a literal or a set of first letters and the engine's prefix scan skips
    between candidates at C speed (IGNORECASE and a leading `\\b` both turn that scan off). None when that cannot
    be promised from the source: a non-ASCII or numeric escape, an inline flag, a named group, or a class range
    that holds some letters of one case but not the other."""
    source = pattern.pattern
    if not pattern.flags & re.I or not isinstance(source, str) or not source.isascii() or \
            re.search(r"\\[0-9xuUN]|\(\?[a-zA-Z<]|\(\?P", source.replace("(?<=", "").replace("(?<!", "")):
        return None
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
                    ("Z" < low_end and high_end < "a")):
                return None
        elif not in_class and char == "(":
            depth += 1
        elif not in_class and char == ")":
            depth -= 1
        out.append(char.lower())
        i += 1
    return re.compile("".join(out), pattern.flags & ~re.I)


def confirmed_matches(pattern: re.Pattern, candidate: re.Pattern, text: str, low: str, lines, limit: int):
    """`pattern`'s matches in each (start, end) line of `text`, as `finditer` gives them, found from `candidate`'s
    hits in `low` (`lowered_candidate`): each hit is confirmed by `pattern` matching at it; at most `limit`."""
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
            at = match.end() if match.end() > match.start() else match.start() + 1
