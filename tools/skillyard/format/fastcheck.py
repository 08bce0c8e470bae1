"""A quick yes/no check of a document against one of our schemas, for the common case of valid input.

jsonschema costs ~300 µs per frontmatter; this compiler turns the keywords our schemas use into nested Python
closures once, which then answer "valid" in a few microseconds. It reads the same schema files (they stay the single
source of truth), answers None for anything it does not know, and a "no" or None always falls back to jsonschema for
the exact errors. A property test keeps the two in agreement.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from skillyard.format.ecmaregex import compile_pattern

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "default", "examples", "$comment"})
TYPES = {
    "string": lambda v: isinstance(v, str),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


class Unsupported(Exception):
    pass


def _equal(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return a == b


Check = Callable[[object], bool]


def _always(value: object) -> bool:
    return True


def _never(value: object) -> bool:
    return False


def _unsupported(value: object) -> bool:
    raise Unsupported


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]

    def check(value: object) -> bool:
        for one in checks:  # noqa: SIM110 - a plain loop is faster than all() over a generator here
            if not one(value):
                return False
        return True

    return check


def compile_schema(schema: object) -> Check:
    """A function answering whether a value satisfies `schema`; it raises Unsupported when it reaches a keyword this
    module does not implement (so the caller can fall back, exactly as before the keyword is reached)."""
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):
        return _unsupported
    checks: list[Check] = []
    for key, rule in schema.items():
        if key in ANNOTATIONS or key.startswith("x-") or key in ("then", "else", "$defs"):
            continue
        try:
            checks.append(_KEYWORDS[key](rule, schema))
        except KeyError:
            checks.append(_unsupported)
    return _all_of(checks)


_ROOTS: list[dict] = []  # the schema being compiled, for its local `$ref`s


def _ref(rule, schema) -> Check:
    """A local reference (`#/$defs/name`), compiled on first use (so a recursive one terminates); a reference to
    another file is not supported (jsonschema answers)."""
    if not isinstance(rule, str) or not rule.startswith("#/") or not _ROOTS:
        return _unsupported
    root = node = _ROOTS[-1]
    for part in rule[2:].split("/"):
        if not isinstance(node, dict) or part not in node:
            return _unsupported
        node = node[part]
    compiled: list[Check] = []

    def check(value: object) -> bool:
        if not compiled:
            _ROOTS.append(root)
            try:
                compiled.append(compile_schema(node))
            finally:
                _ROOTS.pop()
        return compiled[0](value)

    return check


def _type(rule, schema) -> Check:
    tests = [TYPES[name] for name in (rule if isinstance(rule, list) else [rule])]
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _properties(rule, schema) -> Check:
    compiled = {name: compile_schema(sub) for name, sub in rule.items()}

    def check(value: object) -> bool:
        if isinstance(value, dict):
            for name, item in value.items():
                one = compiled.get(name)
                if one is not None and not one(item):
                    return False
        return True

    return check


def _required(rule, schema) -> Check:
    return lambda value: not isinstance(value, dict) or all(name in value for name in rule)


def _additional(rule, schema) -> Check:
    if "patternProperties" in schema:
        return lambda value: _unsupported(value) if isinstance(value, dict) else True
    known = frozenset(schema.get("properties", {}))
    one = compile_schema(rule)
    if one is _always:
        return _always
    return lambda value: not isinstance(value, dict) or all(one(v) for k, v in value.items() if k not in known)


def _items(rule, schema) -> Check:
    one = compile_schema(rule)
    return lambda value: not isinstance(value, list) or all(one(v) for v in value)


def _dependent_required(rule, schema) -> Check:
    """`dependentRequired`: when an object has a listed name, it has every name that name requires."""
    pairs = [(name, tuple(needed)) for name, needed in rule.items()]
    return lambda value: not isinstance(value, dict) or all(
        all(other in value for other in needed) for name, needed in pairs if name in value)


def _size(key: str) -> Callable:
    kind = list if key.endswith("Items") else str
    if key.startswith("min"):
        return lambda rule, schema: lambda value: not isinstance(value, kind) or len(value) >= rule
    return lambda rule, schema: lambda value: not isinstance(value, kind) or len(value) <= rule


def _unique(rule, schema) -> Check:
    if not rule:
        return _always

    def check(value: object) -> bool:
        if not isinstance(value, list):
            return True
        if all(isinstance(v, str) for v in value):
            return len(set(value)) == len(value)
        if any(isinstance(v, float) for v in value):
            raise Unsupported
        seen = [json.dumps(v, sort_keys=True) for v in value]
        return len(set(seen)) == len(seen)

    return check


def _pattern(rule, schema) -> Check:
    search = compile_pattern(rule).search  # ECMA-262's meaning, as the schema says
    return lambda value: not isinstance(value, str) or search(value) is not None


def _enum(rule, schema) -> Check:
    return lambda value: any(_equal(value, option) for option in rule)


def _const(rule, schema) -> Check:
    return lambda value: _equal(value, rule)


def _bound(key: str) -> Callable:
    number = TYPES["number"]
    if key == "minimum":
        return lambda rule, schema: lambda value: not number(value) or value >= rule
    return lambda rule, schema: lambda value: not number(value) or value <= rule


def _one_of(rule, schema) -> Check:
    options = [compile_schema(option) for option in rule]
    return lambda value: sum(1 for option in options if option(value)) == 1


def _any_of(rule, schema) -> Check:
    options = [compile_schema(option) for option in rule]
    return lambda value: any(option(value) for option in options)


def _all_of_keyword(rule, schema) -> Check:
    return _all_of([compile_schema(option) for option in rule])


def _if(rule, schema) -> Check:
    condition = compile_schema(rule)
    then, otherwise = compile_schema(schema.get("then", True)), compile_schema(schema.get("else", True))
    return lambda value: then(value) if condition(value) else otherwise(value)


_KEYWORDS: dict[str, Callable] = {
    "type": _type, "properties": _properties, "required": _required, "additionalProperties": _additional,
    "items": _items, "minItems": _size("minItems"), "maxItems": _size("maxItems"), "minLength": _size("minLength"),
    "maxLength": _size("maxLength"), "uniqueItems": _unique, "pattern": _pattern, "enum": _enum, "const": _const,
    "minimum": _bound("minimum"), "maximum": _bound("maximum"), "oneOf": _one_of, "anyOf": _any_of,
    "allOf": _all_of_keyword, "if": _if, "$ref": _ref, "dependentRequired": _dependent_required,
}
_COMPILED: dict[int, tuple[object, Check]] = {}


def quick_valid(schema: dict, value: object) -> bool | None:
    """True or False when sure, None when the schema uses a keyword this checker does not know."""
    cached = _COMPILED.get(id(schema))
    if cached is None or cached[0] is not schema:
        _ROOTS.append(schema)
        try:
            cached = _COMPILED[id(schema)] = (schema, compile_schema(schema))
        finally:
            _ROOTS.pop()
    try:
        return cached[1](value)
    except (Unsupported, KeyError, TypeError):
        return None
