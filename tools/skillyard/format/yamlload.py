"""A YAML loader for frontmatter: libyaml speed, strings stay strings, duplicate keys are caught.

PyYAML's safe loader would turn `updated: 2024-01-01` into a date (not JSON) and silently keep the last of two
equal keys; authors need to hear about both.
"""

from __future__ import annotations

import re
from functools import cache


class YAMLParseError(Exception):
    """PyYAML's error, re-raised so callers need not import yaml (which costs ~25 ms) to catch it."""

    def __init__(self, original: Exception):
        super().__init__(str(original))
        self.problem = getattr(original, "problem", None)
        self.problem_mark = getattr(original, "problem_mark", None)


class DuplicateKeyError(Exception):
    def __init__(self, key: str, line: int):
        super().__init__(f"duplicate key {key!r}")
        self.key = key
        self.line = line


@cache
def frontmatter_loader() -> type:
    """Safe loader without the timestamp resolver, rejecting duplicate mapping keys (built on first use)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class FrontmatterLoader(base):  # type: ignore[misc,valid-type]
        def construct_mapping(self, node, deep=False):  # noqa: D401 - PyYAML hook
            seen: set = set()
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    if key_node.value in seen:
                        raise DuplicateKeyError(key_node.value, key_node.start_mark.line + 1)
                    seen.add(key_node.value)
            return super().construct_mapping(node, deep=deep)

    FrontmatterLoader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    FrontmatterLoader.add_constructor("tag:yaml.org,2002:map", FrontmatterLoader.construct_yaml_map)
    return FrontmatterLoader


def load_with_lines(text: str) -> tuple[object, dict[str, int]]:
    """Parse one YAML document; also return the 1-based line of each top-level key."""
    simple = load_simple(text)
    return simple if simple is not None else load_with_pyyaml(text)


def load_with_pyyaml(text: str) -> tuple[object, dict[str, int]]:
    """The general path: libyaml's parser with our constructor. Raises YAMLParseError or DuplicateKeyError."""
    import yaml

    loader = frontmatter_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise YAMLParseError(exc) from exc
    finally:
        loader.dispose()
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                lines.setdefault(str(key_node.value), key_node.start_mark.line + 1)
    return data, lines


# Most frontmatter is a handful of `key: value` lines. Building a libyaml parser costs ~130 µs per document, more
# than everything else a skill's check does, so those lines are read here when -- and only when -- the result is
# certain to equal PyYAML's (a property test compares the two). Anything else goes to PyYAML.
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):( +(.*?))? *")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_SINGLE = re.compile(r"'([^']*)'")
_FLOW_ITEM = re.compile(r' *(?:"([^"\\]*)"|([A-Za-z][A-Za-z0-9_./-]*(?: [A-Za-z0-9_./-]+)*)) *(,|\])')
_RESOLVED_WORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})  # bool/null, any case
# Outside the fast path: controls and tabs, C1 controls (U+0085 is a YAML line break), U+2028/2029 (line and
# paragraph separators), surrogates, BOM and non-characters. Listed positively: a class of the allowed ranges costs
# 10 ms to compile on every start.
_UNUSUAL_CHAR = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")


def _simple_scalar(value: str) -> str | list | None:
    """The string (or list of strings) a one-line YAML value means, or None when PyYAML must decide."""
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
    plain_start = "a" <= first <= "z" or "A" <= first <= "Z" or first >= "\u00a0"
    if (not plain_start or "\t" in value or ": " in value or " #" in value or value.endswith(":")
            or value.lower() in _RESOLVED_WORDS):
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
            return None
        quoted, plain, end = match.groups()
        if plain is not None and plain.lower() in _RESOLVED_WORDS:
            return None
        items.append(quoted if quoted is not None else plain)
        position = match.end()
        if end == "]":
            return items if position == len(value) else None


def load_simple(text: str) -> tuple[dict, dict[str, int]] | None:
    """(mapping, key lines) for frontmatter made only of simple one-line `key: value` pairs, else None."""
    if "\r" in text or _UNUSUAL_CHAR.search(text):
        return None
    data: dict = {}
    lines: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip(" "):
            continue
        match = _KEY_LINE.fullmatch(line)
        if match is None:
            return None
        key = match.group(1)
        if key in data or key.lower() in _RESOLVED_WORDS:
            return None
        value = _simple_scalar(match.group(3) or "")
        if value is None:
            return None
        data[key] = value
        lines[key] = number
    return (data, lines) if data else None
