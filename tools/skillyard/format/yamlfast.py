"""The YAML fast path: frontmatter made of plain one-line values, simple indented blocks, block scalars and
JSON-style flow values is read here, without libyaml, when -- and only when -- the result is certain to equal
PyYAML's (property tests in tests/format/test_yaml_fast_path.py compare the two). Anything else: None, and
`yamlload` hands the text to PyYAML with its bounds."""

from __future__ import annotations

import re

# Most frontmatter is a handful of `key: value` lines. Building a libyaml parser costs ~130 µs per document, more
# than everything else a skill's check does, so those lines are read here when -- and only when -- the result is
# certain to equal PyYAML's (a property test compares the two). Anything else goes to PyYAML.
# (Linear on any line: a lazy value before a trailing ` *` backtracked quadratically on hostile lines.)
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*+):(?: ++(.*))?")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_SINGLE = re.compile(r"'([^']*)'")
# A flow list's items: quoted without escapes, or plain words (any non-ASCII letter too: `[图像生成, 文生图]`) that
# cannot start a number or an indicator. The classes name the ASCII left out, not the Unicode let in: a class
# spanning U+00A0..U+10FFFF costs ~10 ms to compile at every start.
_FLOW_ITEM = re.compile(r' *(?:"([^"\\]*)"|([^\x00-\x40\x5b-\x60\x7b-\x9f][^\x00-\x2c\x3a-\x40\x5b-\x5e\x60\x7b-\x9f]*'
                        r'(?: [^\x00-\x2c\x3a-\x40\x5b-\x5e\x60\x7b-\x9f]+)*)) *(,|\])')
_RESOLVED_WORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})  # bool/null, any case
# Outside the fast path: controls and tabs, C1 controls (U+0085 is a YAML line break), U+2028/2029 (line and
# paragraph separators), surrogates, BOM and non-characters. Listed positively: a class of the allowed ranges costs
# 10 ms to compile on every start.
_UNUSUAL_CHAR = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


_BOOLEANS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
# A dotted version with two or more dots is a string to PyYAML (its float pattern allows one dot); with one it is a
# float, so `1.5` still goes to PyYAML.
_DOTTED_VERSION = re.compile(r"[0-9]++(?:\.[0-9]++){2,}")
# Digits joined by `-` (`2026-01-19`: no timestamps here, so a string) match none of PyYAML's number patterns (a `-`
# only leads), and neither does a value starting with a digit that holds a character no int or float can hold
# (`69k`, `3-clause BSD`): every such pattern is made of digits, `_ . : + -`, `x`/`b` and hex letters.
_DASHED_DIGITS = re.compile(r"[0-9]++(?:-[0-9]++)++")
_NOT_NUMERIC = re.compile(r"[^0-9_.:+\-a-fA-FxX]")
# The block scalar headers read here: literal or folded, clipped or stripped (no `+`, no indentation digit).
_BLOCK_HEADERS = frozenset({"|", "|-", ">", ">-"})
_JSON_DEPTH = 16  # deeper JSON-style values go to PyYAML, which applies MAX_DEPTH


def _simple_scalar(value: str) -> str | bool | list | None:
    """The string, boolean (`true`/`false` as PyYAML spells them) or list of strings a one-line YAML value means,
    or None when PyYAML must decide."""
    if not value:
        return None
    first = value[0]
    if first == '"':
        match = _DOUBLE.fullmatch(value)
        return match.group(1) if match else None
    if first == "'":
        match = _SINGLE.fullmatch(value)
        return match.group(1) if match else None
    if first == "[":
        return _simple_flow_list(value)
    if value in _BOOLEANS:
        return _BOOLEANS[value]
    if first == "{":
        return _json_flow(value)
    if "0" <= first <= "9":
        if _DOTTED_VERSION.fullmatch(value) or _DASHED_DIGITS.fullmatch(value):
            return value
        if not _NOT_NUMERIC.search(value):
            return None
    elif not ("a" <= first <= "z" or "A" <= first <= "Z" or first >= "\u00a0"):
        return None
    if "\t" in value or ": " in value or " #" in value or value.endswith(":") or value.lower() in _RESOLVED_WORDS:
        return None
    return value


def _simple_flow_list(value: str) -> list | None:
    if value == "[]":
        return []
    items: list[str] = []
    position = 1
    while True:
        match = _FLOW_ITEM.match(value, position)
        if match is None:
            return _json_flow(value)
        quoted, plain, end = match.groups()
        if plain is not None and plain.lower() in _RESOLVED_WORDS:
            return None
        items.append(quoted if quoted is not None else plain)
        position = match.end()
        if end == "]":
            return items if position == len(value) else None


class _NotSimple(Exception):
    """A JSON-style value PyYAML may read otherwise (a float, a huge integer, a repeated key)."""


def _json_number(text: str) -> int:
    if len(text) > 18:  # near or past the int64 bound: PyYAML's path applies the limit
        raise _NotSimple
    return int(text)


def _refuse(_text: str):
    raise _NotSimple


def _json_pairs(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _NotSimple
    return out


def _json_flow(value: str) -> dict | list | None:
    """A one-line flow value written as JSON (`metadata: {"clawdbot": {"requires": {"bins": ["curl"]}}}`): JSON
    without escapes, floats or repeated keys is YAML that means the same, so it is read with the JSON parser."""
    if "\\" in value:
        return None
    import json

    try:
        loaded = json.loads(value, parse_float=_refuse, parse_int=_json_number, parse_constant=_refuse,
                            object_pairs_hook=_json_pairs)
    except (ValueError, _NotSimple, RecursionError):
        return None
    return loaded if isinstance(loaded, (dict, list)) and _depth(loaded) <= _JSON_DEPTH else None


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def load_simple(text: str) -> tuple[dict, dict[str, int]] | None:
    """(mapping, key lines) for frontmatter made only of simple one-line `key: value` pairs, where a key with no
    value may hold one indented block: a list of `- value` lines or a mapping of `key: value` lines, all at the same
    indentation (`metadata:`, `allowed-tools:`). Anything else: None."""
    loaded = load_simple_with_flows(text)
    return None if loaded is None else loaded[:2]


def load_simple_with_flows(text: str) -> tuple[dict, dict[str, int], list[tuple[int, str]]] | None:
    """`load_simple`'s answer and its flow collections as `flow_collections` gives them: on this path the only
    ones are one-line values that start with `[` or `{`."""
    if "\r" in text or _UNUSUAL_CHAR.search(text):
        return None
    data: dict = {}
    lines: dict[str, int] = {}
    flows: list[tuple[int, str]] = []
    block_key: str | None = None  # the key whose indented block is being read
    block: list | dict | None = None
    indent = 0
    scalar_key: str | None = None  # the key whose block scalar (`|`, `>-`...) is being read
    scalar_rows: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if scalar_key is not None:
            if not line or line[0] == " ":
                scalar_rows.append(line)
                continue
            value = _block_scalar(data[scalar_key], scalar_rows)
            if value is None:
                return None
            data[scalar_key], scalar_key = value, None
        if not line.strip(" "):
            continue
        if line[0] == " ":
            if block_key is None:
                return None  # an indented line after a value: a continuation PyYAML must read
            spaces = len(line) - len(line.lstrip(" "))
            if block is None:
                indent = spaces
                block = [] if line.startswith("- ", spaces) else {}
            if spaces != indent or not _block_line(line[spaces:], block, number, flows):
                return None
            continue
        if block_key is not None:
            if not block:
                return None  # `key:` with nothing under it is null to PyYAML
            data[block_key], block_key, block = block, None, None
        match = _KEY_LINE.fullmatch(line)
        if match is None:
            return None
        key = match.group(1)
        if key in data or key.lower() in _RESOLVED_WORDS:
            return None
        lines[key] = number
        if match.group(2) is None or not match.group(2).strip(" "):
            block_key = key
            data[key] = None  # a placeholder keeping the key's place (and catching a duplicate)
            continue
        written = match.group(2).rstrip(" ")
        if written in _BLOCK_HEADERS:
            scalar_key, scalar_rows = key, []
            data[key] = written  # the header, until the block is read
            continue
        value = _simple_scalar(written)
        if value is None:
            return None
        _note_flow(value, number, flows)
        data[key] = value
    if scalar_key is not None:  # text that ends inside a block scalar: only after a final line break
        value = _block_scalar(data[scalar_key], scalar_rows) if text.endswith("\n") else None
        if value is None:
            return None
        data[scalar_key] = value
    if block_key is not None:
        if not block:
            return None
        data[block_key] = block
    return (data, lines, flows) if data else None


def _block_scalar(header: str, rows: list[str]) -> str | None:
    """A top-level block scalar's text from its lines (indentation included; '' for an empty line), when every
    text line has the first one's indentation and no line holds only spaces; otherwise None (PyYAML reads it).
    Literal (`|`) keeps the line breaks; folded (`>`) joins lines with a space and keeps one break per empty
    line between them; clipped keeps one final break, stripped (`-`) none. Trailing empty lines are dropped."""
    while rows and not rows[-1]:
        rows.pop()
    if not rows or not rows[0]:
        return None  # empty, or empty lines before the text: left to PyYAML
    indent = len(rows[0]) - len(rows[0].lstrip(" "))
    pad = rows[0][:indent]
    texts: list[str | None] = []
    for row in rows:
        if not row:
            texts.append(None)
        elif len(row) > indent and row.startswith(pad) and row[indent] != " ":
            texts.append(row[indent:])
        else:
            return None  # a more-indented line, a line of spaces, or one less indented: not this simple form
    if header[0] == "|":
        out = "\n".join(row if row is not None else "" for row in texts)
    else:
        parts = [texts[0]]
        empty = 0
        for row in texts[1:]:
            if row is None:
                empty += 1
                continue
            parts.append("\n" * empty if empty else " ")
            parts.append(row)
            empty = 0
        out = "".join(parts)
    return out if header.endswith("-") else out + "\n"


def _note_flow(value: object, number: int, flows: list[tuple[int, str]]) -> None:
    """The flow collections of a one-line value (a simple scalar is a list or mapping only when written `[...]`
    or `{...}`), outermost first, as libyaml's events start them."""
    if isinstance(value, list):
        flows.append((number - 1, "list" if value else "empty list"))
        for item in value:
            _note_flow(item, number, flows)
    elif isinstance(value, dict):
        flows.append((number - 1, "mapping" if value else "empty mapping"))
        for item in value.values():
            _note_flow(item, number, flows)


def _block_line(line: str, block: list | dict, number: int, flows: list[tuple[int, str]]) -> bool:
    """Add one line of an indented block (already without its indentation) to it; False when PyYAML must read it."""
    if isinstance(block, list):
        if not line.startswith("- "):
            return False
        value = _simple_scalar(line[2:].rstrip(" "))
        if value is None:
            return False
        _note_flow(value, number, flows)
        block.append(value)
        return True
    match = _KEY_LINE.fullmatch(line)
    if match is None or match.group(2) is None:
        return False
    key = match.group(1)
    value = _simple_scalar(match.group(2).rstrip(" "))
    if value is None or key in block or key.lower() in _RESOLVED_WORDS:
        return False
    _note_flow(value, number, flows)
    block[key] = value
    return True
