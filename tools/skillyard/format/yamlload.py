"""A YAML loader for frontmatter: libyaml speed, strings stay strings, duplicate keys are caught.

PyYAML's safe loader would turn `updated: 2024-01-01` into a date (not JSON) and silently keep the last of two
equal keys; authors need to hear about both.
"""

from __future__ import annotations

import yaml

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class DuplicateKeyError(yaml.YAMLError):
    def __init__(self, key: str, line: int):
        super().__init__(f"duplicate key {key!r}")
        self.key = key
        self.line = line


class FrontmatterLoader(_Base):  # type: ignore[misc,valid-type]
    """Safe loader without the timestamp resolver, rejecting duplicate mapping keys."""

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


def load_with_lines(text: str) -> tuple[object, dict[str, int]]:
    """Parse one YAML document; also return the 1-based line of each top-level key."""
    loader = FrontmatterLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, {}
        data = loader.construct_document(node)
    finally:
        loader.dispose()
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                lines.setdefault(str(key_node.value), key_node.start_mark.line + 1)
    return data, lines
