"""The errors jsonschema would report for a document, for the common shapes of invalid frontmatter, without
importing jsonschema.

One in five real-world skills has frontmatter our schema rejects (a missing `description`, a name that is not a
slug, `metadata` values that are not strings); importing jsonschema and building its validator costs about 0.1 s
per process, more than checking the whole skill. This walks the schema the way jsonschema's Draft 2020-12
validator does for the keywords whose errors the findings are made from (type, required, pattern, min/maxLength,
enum, minimum/maximum, descending through properties, additionalProperties and items). A keyword it does not
report on is only allowed when it passes (asked of the compiled quick check, format/fastcheck.py); when one fails,
or a value is not a plain YAML/JSON type, it answers None and the caller asks jsonschema. A property test keeps
the two in agreement.
"""

from __future__ import annotations

from collections import deque

from skillyard.format.ecmaregex import compile_pattern
from skillyard.format.fastcheck import _ROOTS, TYPES, _equal, compile_schema
from skillyard.format.record import Record

PLAIN = (str, int, float, bool, type(None), list, dict)
WALKED = frozenset({"type", "required", "pattern", "minLength", "maxLength", "enum", "minimum", "maximum",
                    "properties", "additionalProperties", "items"})
SKIPPED = frozenset({"$schema", "$id", "title", "description", "default", "examples", "$comment", "then", "else",
                     "$defs"})


class _Unknown(Exception):
    """A keyword failed that this module does not report on, or a value is not a plain type: ask jsonschema."""


class SchemaError(Record):
    """The attributes of jsonschema's ValidationError that rules.schema_findings reads."""

    FIELDS = ("validator", "validator_value", "instance", "message", "absolute_path", "absolute_schema_path")

    def __init__(self, validator: str, validator_value: object, instance: object, message: str,
                 absolute_path: deque | None = None, absolute_schema_path: deque | None = None):
        self.validator = validator
        self.validator_value = validator_value
        self.instance = instance
        self.message = message
        self.absolute_path = deque() if absolute_path is None else absolute_path
        self.absolute_schema_path = deque() if absolute_schema_path is None else absolute_schema_path


def quick_errors(root: dict, document: object) -> list[SchemaError] | None:
    """jsonschema's errors for `document` against `root` (order aside: the findings are sorted), or None when
    only jsonschema can tell."""
    out: list[SchemaError] = []
    try:
        _walk(root, root, document, (), (), out)
    except (_Unknown, RecursionError, KeyError, TypeError):
        return None
    return out


def _pattern(rule: str):
    return compile_pattern(rule).search  # ECMA-262's meaning, as the schema says (compiled once, cached there)


_PASSES: dict[tuple[int, str], tuple[object, object]] = {}


def _passes(root: dict, schema: dict, key: str, value: object) -> bool:
    """Whether keyword `key` of `schema` (with its `then`/`else` for `if`) accepts `value`, by the quick check."""
    cached = _PASSES.get((id(schema), key))
    if cached is None or cached[0] is not schema:
        part = {key: schema[key]}
        if key == "if":
            part.update({k: schema[k] for k in ("then", "else") if k in schema})
        _ROOTS.append(root)
        try:
            cached = _PASSES[(id(schema), key)] = (schema, compile_schema(part))
        finally:
            _ROOTS.pop()
    _ROOTS.append(root)
    try:
        return cached[1](value) is True
    except Exception:  # noqa: BLE001 - any trouble in the quick check: jsonschema decides
        return False
    finally:
        _ROOTS.pop()


def _is_type(value: object, name: str) -> bool:
    return TYPES[name](value)


def _walk(root: dict, schema: object, value: object, path: tuple, schema_path: tuple, out: list) -> None:
    if type(value) not in PLAIN:
        raise _Unknown
    if schema is True:
        return
    if not isinstance(schema, dict):
        raise _Unknown

    def fail(keyword: str, message: str = "") -> None:
        out.append(SchemaError(keyword, schema[keyword], value, message, deque(path),
                               deque((*schema_path, keyword))))

    for key, rule in schema.items():
        if key in SKIPPED or key.startswith("x-"):
            continue
        if key not in WALKED:
            if not _passes(root, schema, key, value):
                raise _Unknown
        elif key == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not any(_is_type(value, name) for name in names):
                fail(key)
        elif key == "required":
            if isinstance(value, dict):
                for name in rule:
                    if name not in value:
                        fail(key, f"{name!r} is a required property")
        elif key == "pattern":
            if isinstance(value, str) and _pattern(rule)(value) is None:
                fail(key)
        elif key in ("minLength", "maxLength"):
            if isinstance(value, str) and (len(value) < rule if key == "minLength" else len(value) > rule):
                fail(key)
        elif key == "enum":
            if not any(_equal(value, option) for option in rule):
                fail(key)
        elif key in ("minimum", "maximum"):
            if _is_type(value, "number") and (value < rule if key == "minimum" else value > rule):
                fail(key)
        elif key == "properties":
            if isinstance(value, dict):
                for name, sub in rule.items():
                    if name in value:
                        _walk(root, sub, value[name], (*path, name), (*schema_path, key, name), out)
        elif key == "additionalProperties":
            if isinstance(value, dict):
                if "patternProperties" in schema:
                    raise _Unknown
                known = schema.get("properties", {})
                extras = [name for name in value if name not in known]
                if extras and rule is False:
                    raise _Unknown
                if isinstance(rule, dict):
                    for name in extras:
                        _walk(root, rule, value[name], (*path, name), (*schema_path, key), out)
        elif key == "items":
            if "prefixItems" in schema:
                raise _Unknown
            if isinstance(value, list):
                for index, item in enumerate(value):
                    _walk(root, rule, item, (*path, index), (*schema_path, key), out)
