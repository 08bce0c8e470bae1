"""The one bounded YAML loader for everything from outside: libyaml speed, strings stay strings, duplicate keys are
caught, and no document can cost more than its size.

PyYAML's safe loader would turn `updated: 2024-01-01` into a date (not JSON) and silently keep the last of two
equal keys; authors need to hear about both. It also expands aliases (a few hundred bytes of anchors become
gigabytes: "billion laughs") and accepts any nesting depth, which later recursion (JSON, schema checks) cannot.
So every document is bounded before it is built: its size in bytes, then -- on the composed node graph, where
aliases are still shared nodes and nothing has been expanded -- its depth, node count, aliases, tags and numbers.
"""

from __future__ import annotations

import math
from collections import deque
from functools import cache

from skillyard.format.yamlfast import load_simple, load_simple_with_flows

MAX_BYTES = 64 * 1024  # frontmatter; skill.yaml (which may hold the whole prompt) passes its own cap
MAX_DEPTH = 32  # nested lists/mappings, the top-level mapping being 1
MAX_NODES = 10_000  # scalars, lists and mappings together
PREPASS_BYTES = 16 * 1024  # above this, nodes are counted on the event stream before any node is built
INT_RANGE = 2**63  # integers must fit int64: the registry's JSON readers are not all Python
_CORE = "tag:yaml.org,2002:"
ALLOWED_TAGS = frozenset(_CORE + t for t in ("str", "int", "float", "bool", "null", "seq", "map", "merge"))
_KIND_OF_TAG = {_CORE + t: ("sequence" if t == "seq" else "mapping" if t == "map" else "scalar")
               for t in ("str", "int", "float", "bool", "null", "seq", "map", "merge")}
_CHECKED_SCALARS = frozenset(_CORE + t for t in ("int", "float", "bool"))


class YAMLParseError(Exception):
    """PyYAML's error, re-raised so callers need not import yaml (which costs ~25 ms) to catch it."""

    def __init__(self, original: Exception):
        super().__init__(str(original))
        self.problem = getattr(original, "problem", None)
        self.problem_mark = getattr(original, "problem_mark", None)


class YAMLLimitError(YAMLParseError):
    """A document outside the bounds (size, depth, nodes) or the JSON data model (aliases, tags, numbers).

    A YAMLParseError, so a caller that only knows "bad YAML" still refuses it; `rule`, `line` (1-based within the
    YAML text, or None) and `fix` let a validator report it precisely.
    """

    def __init__(self, rule: str, message: str, fix: str, line: int | None = None):
        Exception.__init__(self, message)
        self.rule, self.message, self.fix, self.line = rule, message, fix, line
        self.problem, self.problem_mark = message, None


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


def check_size(text: str, max_bytes: int = MAX_BYTES) -> None:
    """Refuse text over `max_bytes` of UTF-8 before anything parses it."""
    if len(text) * 4 > max_bytes and (size := len(text.encode("utf-8", "surrogatepass"))) > max_bytes:
        raise YAMLLimitError("yaml-too-large", f"The YAML is {size:,} bytes; at most {max_bytes:,} are allowed.",
                             "Keep only metadata here and move long text into the Markdown body or references/.")


def load_with_lines(text: str, *, max_bytes: int = MAX_BYTES) -> tuple[object, dict[str, int]]:
    """Parse one YAML document; also return the 1-based line of each top-level key.

    Raises YAMLLimitError (bounds), YAMLParseError (syntax) or DuplicateKeyError; never anything else.
    """
    check_size(text, max_bytes)
    simple = load_simple(text) if len(text) <= PREPASS_BYTES else None  # small text cannot exceed the node cap
    return simple if simple is not None else load_with_pyyaml(text, max_bytes=max_bytes)


def safe_load(text: str, *, max_bytes: int = MAX_BYTES) -> object:
    """`yaml.safe_load` with the same bounds, for files other than skills (client config): raises yaml.YAMLError."""
    import yaml

    try:
        return load_with_lines(text, max_bytes=max_bytes)[0]
    except (YAMLParseError, DuplicateKeyError) as exc:
        raise yaml.YAMLError(str(exc)) from None


def load_with_pyyaml(text: str, *, max_bytes: int = MAX_BYTES) -> tuple[object, dict[str, int]]:
    """The general path: libyaml's parser, the bounds, then our constructor."""
    import yaml

    check_size(text, max_bytes)
    if len(text) > PREPASS_BYTES:
        _count_events(text)
    loader = frontmatter_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        _check_nodes(node, loader, text)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own limit (1000), far above ours
            raise _depth_error(getattr(exc, "problem_mark", None)) from None
        raise YAMLParseError(exc) from exc
    except (YAMLParseError, DuplicateKeyError):
        raise
    except Exception as exc:  # noqa: BLE001 - PyYAML's constructors fail this way on values like `!!bool maybe`
        raise YAMLLimitError("yaml-value", f"A value does not match its tag ({type(exc).__name__}).",
                             "Remove the `!!` tag or write a value of that type.") from None
    finally:
        loader.dispose()
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                lines.setdefault(str(key_node.value), key_node.start_mark.line + 1)
    return data, lines


def _depth_error(mark) -> YAMLLimitError:
    return YAMLLimitError("yaml-depth", f"The YAML nests lists and mappings more than {MAX_DEPTH} levels deep.",
                          "Flatten the structure: metadata needs a few levels at most.",
                          mark.line + 1 if mark is not None else None)


def _nodes_error(line: int | None) -> YAMLLimitError:
    return YAMLLimitError("yaml-too-many-nodes", f"The YAML has more than {MAX_NODES:,} values.",
                          "Keep only metadata here; long lists belong in a file under references/.", line)


def _count_events(text: str) -> None:
    """For large text: count nodes on libyaml's event stream (constant memory), before any node is built."""
    import yaml

    loader = frontmatter_loader()(text)
    count = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, yaml.NodeEvent):
                count += 1
                if count > MAX_NODES:
                    raise _nodes_error(event.start_mark.line + 1)
            if isinstance(event, yaml.StreamEndEvent):
                break
    except yaml.YAMLError:
        return  # the real parse reports it with its usual message
    finally:
        loader.dispose()


def _check_nodes(root, loader, text: str) -> None:
    """Walk the composed graph (without recursion) and refuse what must never be built or published.

    Runs on every non-trivial frontmatter, so it stays lean: node kinds by `id`, numbers checked only when tagged so.
    """
    seen: set[int] = set()
    queue = deque([(root, 1)])  # breadth first: an alias is met at its shallowest use, before any depth limit
    count = 0
    while queue:
        node, depth = queue.popleft()
        key = id(node)
        if key in seen:  # an alias: the composer shares the anchored node instead of copying it
            raise YAMLLimitError("yaml-alias", "The YAML uses an alias (`*name`), which repeats another value.",
                                 "Write the value out instead of using `&anchor` and `*alias`.", _alias_line(text))
        seen.add(key)
        count += 1
        if count > MAX_NODES:
            raise _nodes_error(node.start_mark.line + 1)
        tag = node.tag
        if tag not in ALLOWED_TAGS:
            raise YAMLLimitError("yaml-tag", f"The YAML uses the tag `{tag}`.",
                                 "Remove the tag: values are plain strings, numbers, booleans, lists and mappings.",
                                 node.start_mark.line + 1)
        if node.id != _KIND_OF_TAG[tag]:  # `!!map x`, `!!str [1]`
            raise YAMLLimitError("yaml-value", f"The tag `{tag}` does not fit this value.",
                                 "Remove the `!!` tag.", node.start_mark.line + 1)
        if node.id == "scalar":
            if tag in _CHECKED_SCALARS:
                _check_scalar(node, loader, node.start_mark.line + 1)
            continue
        if depth > MAX_DEPTH:
            raise _depth_error(node.start_mark)
        depth += 1
        if node.id == "sequence":
            queue.extend([(child, depth) for child in node.value])
        else:
            for key_node, value_node in node.value:
                queue.append((key_node, depth))
                queue.append((value_node, depth))


def _check_scalar(node, loader, line: int) -> None:
    """A number must be one JSON can hold; an explicitly tagged bool or number must be one."""
    kind = node.tag[len(_CORE):]
    if kind == "bool":
        if node.value.lower() not in loader.bool_values:
            raise YAMLLimitError("yaml-value", f"`{node.value[:40]}` is not a boolean.", "Write true or false.", line)
        return
    try:
        value = INT_RANGE if len(node.value) > 80 else getattr(loader, f"construct_yaml_{kind}")(node)
    except (ValueError, IndexError, OverflowError):  # an explicit `!!int x` or `!!float ""`
        raise YAMLLimitError("yaml-value", f"`{node.value[:40]}` is not a valid {kind}.", "Quote the value.",
                             line) from None
    if kind == "float" and not math.isfinite(value):
        raise YAMLLimitError("yaml-value", f"`{node.value[:40]}` is not a finite number, which JSON cannot hold.",
                             "Quote it or write a finite number.", line)
    if kind == "int" and not -INT_RANGE <= value < INT_RANGE:
        raise YAMLLimitError("yaml-value", "An integer is outside the 64-bit range registry readers support.",
                             "Quote it to keep it as text.", line)


def flow_collections(text: str) -> list[tuple[int, str]]:
    """(0-based line, "list"/"mapping"/"empty list"/"empty mapping") of each flow collection, from the event stream.

    Flow style (`[a, b]`, `{a: b}`, `[]`) is valid YAML but not the strict YAML the standard's reference reads.
    Called only on text already loaded (so bounded and valid) that holds a `[` or `{`. Text the fast path reads
    is answered by it (a property test holds the two answers equal); the rest by libyaml's event stream."""
    simple = load_simple_with_flows(text) if len(text) <= PREPASS_BYTES else None
    if simple is not None:
        return simple[2]
    return flow_collections_from_events(text)


def flow_collections_from_events(text: str) -> list[tuple[int, str]]:
    import yaml

    found: list[tuple[int, str]] = []
    loader = frontmatter_loader()(text)
    try:
        while (event := loader.get_event()) is not None and not isinstance(event, yaml.StreamEndEvent):
            if isinstance(event, yaml.CollectionStartEvent) and event.flow_style:
                kind = "list" if isinstance(event, yaml.SequenceStartEvent) else "mapping"
                following = loader.peek_event()
                if isinstance(following, yaml.CollectionEndEvent):
                    kind = "empty " + kind
                found.append((event.start_mark.line, kind))
    except yaml.YAMLError:
        return found
    finally:
        loader.dispose()
    return found


def _alias_line(text: str) -> int | None:
    """The 1-based line of the first alias, from the event stream (only on the error path)."""
    import yaml

    loader = frontmatter_loader()(text)
    try:
        while (event := loader.get_event()) is not None and not isinstance(event, yaml.StreamEndEvent):
            if isinstance(event, yaml.AliasEvent):
                return event.start_mark.line + 1
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None
