"""A quick yes/no check of a document against one of our schemas, for the common case of valid input.

jsonschema costs ~300 µs per frontmatter; this interpreter of the keywords our schemas use answers "valid" in a
tenth of that. It reads the same schema files (they stay the single source of truth), answers None for anything it
does not know, and a "no" or None always falls back to jsonschema for the exact errors. A property test keeps the
two in agreement.
"""

from __future__ import annotations

import json
import re
from functools import cache

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


@cache
def _pattern(text: str) -> re.Pattern:
    return re.compile(text)


def _equal(a: object, b: object) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return a == b


def _valid(schema: object, value: object) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise Unsupported
    for key, rule in schema.items():
        if key in ANNOTATIONS or key.startswith("x-") or key in ("then", "else"):
            continue
        if key == "type":
            names = rule if isinstance(rule, list) else [rule]
            if not any(TYPES[name](value) for name in names):
                return False
        elif key == "properties":
            if isinstance(value, dict) and not all(_valid(rule[k], value[k]) for k in rule if k in value):
                return False
        elif key == "required":
            if isinstance(value, dict) and not all(k in value for k in rule):
                return False
        elif key == "additionalProperties":
            if isinstance(value, dict):
                known = schema.get("properties", {})
                if "patternProperties" in schema:
                    raise Unsupported
                if not all(_valid(rule, v) for k, v in value.items() if k not in known):
                    return False
        elif key == "items":
            if isinstance(value, list) and not all(_valid(rule, v) for v in value):
                return False
        elif key in ("minItems", "maxItems", "minLength", "maxLength"):
            sized = isinstance(value, list if key.endswith("Items") else str)
            if sized and ((len(value) < rule) if key.startswith("min") else (len(value) > rule)):
                return False
        elif key == "uniqueItems":
            if rule and isinstance(value, list):
                if all(isinstance(v, str) for v in value):
                    if len(set(value)) != len(value):
                        return False
                    continue
                if any(isinstance(v, float) for v in value):
                    raise Unsupported
                seen = [json.dumps(v, sort_keys=True) for v in value]
                if len(set(seen)) != len(seen):
                    return False
        elif key == "pattern":
            if isinstance(value, str) and not _pattern(rule).search(value):
                return False
        elif key == "enum":
            if not any(_equal(value, option) for option in rule):
                return False
        elif key == "const":
            if not _equal(value, rule):
                return False
        elif key in ("minimum", "maximum"):
            if TYPES["number"](value) and ((value < rule) if key == "minimum" else (value > rule)):
                return False
        elif key == "oneOf":
            if sum(1 for option in rule if _valid(option, value)) != 1:
                return False
        elif key == "anyOf":
            if not any(_valid(option, value) for option in rule):
                return False
        elif key == "allOf":
            if not all(_valid(option, value) for option in rule):
                return False
        elif key == "if":
            branch = schema.get("then", True) if _valid(rule, value) else schema.get("else", True)
            if not _valid(branch, value):
                return False
        else:
            raise Unsupported
    return True


def quick_valid(schema: dict, value: object) -> bool | None:
    """True or False when sure, None when the schema uses a keyword this checker does not know."""
    try:
        return _valid(schema, value)
    except (Unsupported, KeyError, TypeError):
        return None
