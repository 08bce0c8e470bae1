#!/usr/bin/env python3
"""Check JSON documents: syntax (with line and column), duplicate keys, and an optional JSON Schema.

Standard library only. The schema support is a documented subset of JSON Schema 2020-12 (see
references/schema-subset.md); keywords outside it are reported once as "unsupported" instead of being silently
ignored. Exit codes: 0 all valid, 1 some document invalid, 2 usage or unreadable schema.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

SUPPORTED = {
    "$schema", "$id", "$defs", "definitions", "$ref", "$comment", "title", "description", "default", "examples",
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "minProperties", "maxProperties",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "format", "deprecated", "readOnly", "writeOnly",
}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


class DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key)
        out[key] = value
    return out


def pointer(path: tuple) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path) if path else "/"


def _equal(a, b) -> bool:
    """JSON equality: 1 == 1.0, but True != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


class Validator:
    def __init__(self, root: dict | bool) -> None:
        self.root = root
        self.unsupported: set[str] = set()

    def resolve(self, ref: str):
        if not ref.startswith("#"):
            raise ValueError(f"only local references (#/...) are supported, not {ref!r}")
        node = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise ValueError(f"reference {ref!r} does not resolve")
            node = node[part]
        return node

    def errors(self, value, schema, path: tuple = ()) -> list[tuple[str, str]]:
        if schema is True:
            return []
        if schema is False:
            return [(pointer(path), "no value is allowed here")]
        out: list[tuple[str, str]] = []
        here = pointer(path)
        self.unsupported |= {k for k in schema if k not in SUPPORTED and not k.startswith("x-")}
        if "$ref" in schema:
            out += self.errors(value, self.resolve(schema["$ref"]), path)
        if "type" in schema:
            wanted = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(TYPES[t](value) for t in wanted if t in TYPES):
                return out + [(here, f"expected {' or '.join(wanted)}, got {_kind(value)}")]
        if "enum" in schema and not any(_equal(value, e) for e in schema["enum"]):
            out.append((here, f"{_show(value)} is not one of {_show(schema['enum'])}"))
        if "const" in schema and not _equal(value, schema["const"]):
            out.append((here, f"must equal {_show(schema['const'])}"))
        if isinstance(value, dict):
            out += self._object(value, schema, path)
        elif isinstance(value, list):
            out += self._array(value, schema, path)
        elif isinstance(value, str):
            if len(value) < schema.get("minLength", 0):
                out.append((here, f"shorter than {schema['minLength']} characters"))
            if "maxLength" in schema and len(value) > schema["maxLength"]:
                out.append((here, f"longer than {schema['maxLength']} characters"))
            if "pattern" in schema and not re.search(schema["pattern"], value):
                out.append((here, f"{_show(value)} does not match pattern {schema['pattern']!r}"))
        elif TYPES["number"](value):
            out += self._number(value, schema, here)
        for sub in schema.get("allOf", []):
            out += self.errors(value, sub, path)
        if "anyOf" in schema and not any(not self.errors(value, s, path) for s in schema["anyOf"]):
            out.append((here, "matches none of the anyOf alternatives"))
        if "oneOf" in schema:
            matches = sum(not self.errors(value, s, path) for s in schema["oneOf"])
            if matches != 1:
                out.append((here, f"must match exactly one oneOf alternative, matches {matches}"))
        if "not" in schema and not self.errors(value, schema["not"], path):
            out.append((here, "matches a schema it must not match"))
        if "if" in schema:
            branch = "then" if not self.errors(value, schema["if"], path) else "else"
            if branch in schema:
                out += self.errors(value, schema[branch], path)
        return out

    def _object(self, value: dict, schema: dict, path: tuple) -> list:
        out = []
        here = pointer(path)
        for key in schema.get("required", []):
            if key not in value:
                out.append((here, f"missing required property {key!r}"))
        props = schema.get("properties", {})
        patterns = schema.get("patternProperties", {})
        for key, item in value.items():
            matched = False
            if key in props:
                matched = True
                out += self.errors(item, props[key], path + (key,))
            for pattern, sub in patterns.items():
                if re.search(pattern, key):
                    matched = True
                    out += self.errors(item, sub, path + (key,))
            extra = schema.get("additionalProperties", True)
            if not matched:
                if extra is False:
                    out.append((pointer(path + (key,)), f"property {key!r} is not allowed"))
                elif isinstance(extra, dict):
                    out += self.errors(item, extra, path + (key,))
        if len(value) < schema.get("minProperties", 0):
            out.append((here, f"fewer than {schema['minProperties']} properties"))
        if "maxProperties" in schema and len(value) > schema["maxProperties"]:
            out.append((here, f"more than {schema['maxProperties']} properties"))
        return out

    def _array(self, value: list, schema: dict, path: tuple) -> list:
        out = []
        here = pointer(path)
        prefix = schema.get("prefixItems", [])
        for index, item in enumerate(value):
            if index < len(prefix):
                out += self.errors(item, prefix[index], path + (index,))
            elif "items" in schema:
                out += self.errors(item, schema["items"], path + (index,))
        if len(value) < schema.get("minItems", 0):
            out.append((here, f"fewer than {schema['minItems']} items"))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append((here, f"more than {schema['maxItems']} items"))
        if schema.get("uniqueItems"):
            for i, a in enumerate(value):
                if any(_equal(a, b) for b in value[:i]):
                    out.append((pointer(path + (i,)), "duplicate item (uniqueItems)"))
        if "contains" in schema and not any(not self.errors(v, schema["contains"], path) for v in value):
            out.append((here, "no item matches `contains`"))
        return out

    def _number(self, value, schema: dict, here: str) -> list:
        out = []
        if "minimum" in schema and value < schema["minimum"]:
            out.append((here, f"{value} is less than the minimum {schema['minimum']}"))
        if "maximum" in schema and value > schema["maximum"]:
            out.append((here, f"{value} is greater than the maximum {schema['maximum']}"))
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            out.append((here, f"{value} must be greater than {schema['exclusiveMinimum']}"))
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            out.append((here, f"{value} must be less than {schema['exclusiveMaximum']}"))
        if "multipleOf" in schema:
            quotient = value / schema["multipleOf"]
            if not math.isclose(quotient, round(quotient), abs_tol=1e-9):
                out.append((here, f"{value} is not a multiple of {schema['multipleOf']}"))
        return out


def _kind(value) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if TYPES[name](value) and not (name == "integer" and isinstance(value, float)):
            return name
    return type(value).__name__


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def load_json(text: str, label: str):
    """Parse with duplicate-key detection; returns (value, error message or None)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates), None
    except DuplicateKey as exc:
        return None, f"duplicate key {exc.args[0]!r} (JSON parsers disagree on which value wins)"
    except json.JSONDecodeError as exc:
        return None, f"line {exc.lineno}, column {exc.colno}: {exc.msg}"


def documents(path: str, jsonl: bool):
    """Yield (label, text) pairs: one per file, or one per non-blank line with --jsonl."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8-sig")
    name = "stdin" if path == "-" else path
    if not jsonl:
        yield name, text
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield f"{name}:{number}", line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check JSON syntax, duplicate keys and (optionally) a JSON Schema.",
                                     epilog="example: json_check.py config.json --schema config.schema.json")
    parser.add_argument("files", nargs="+", help="JSON files to check (- for standard input)")
    parser.add_argument("--schema", help="JSON Schema file to validate every document against")
    parser.add_argument("--jsonl", action="store_true", help="treat each file as JSON Lines (one document per line)")
    parser.add_argument("--json", action="store_true", help="print a JSON report instead of text lines")
    parser.add_argument("--max-errors", type=int, default=50, help="errors to show per document (default 50)")
    args = parser.parse_args(argv)

    validator = None
    if args.schema:
        try:
            schema, problem = load_json(Path(args.schema).read_text(encoding="utf-8-sig"), args.schema)
        except OSError as exc:
            print(f"error: cannot read schema {args.schema}: {exc.strerror}", file=sys.stderr)
            return 2
        if problem or not isinstance(schema, dict | bool):
            reason = f"{args.schema}: {problem}" if problem else f"{args.schema} must hold an object or a boolean"
            print(f"error: the schema is not usable: {reason}", file=sys.stderr)
            return 2
        validator = Validator(schema)

    report = []
    for path in args.files:
        try:
            docs = list(documents(path, args.jsonl))
        except (OSError, UnicodeDecodeError) as exc:
            report.append({"document": path, "valid": False,
                           "errors": [{"path": "", "message": f"cannot read: {getattr(exc, 'strerror', None) or exc}"}]})
            continue
        for label, text in docs:
            value, problem = load_json(text, label)
            if problem:
                report.append({"document": label, "valid": False, "errors": [{"path": "", "message": problem}]})
                continue
            errors = []
            if validator is not None:
                try:
                    errors = validator.errors(value, validator.root)
                except (ValueError, re.error) as exc:
                    print(f"error: the schema is not usable: {exc}", file=sys.stderr)
                    return 2
            report.append({"document": label, "valid": not errors,
                           "errors": [{"path": p, "message": m} for p, m in errors[: args.max_errors]],
                           "error_count": len(errors)})
    unsupported = sorted(validator.unsupported) if validator else []
    if args.json:
        json.dump({"valid": all(r["valid"] for r in report), "documents": report, "unsupported_keywords": unsupported},
                  sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for entry in report:
            if entry["valid"]:
                print(f"ok    {entry['document']}")
            for err in entry["errors"]:
                where = f" at {err['path']}" if err["path"] else ""
                print(f"FAIL  {entry['document']}{where}: {err['message']}")
        if unsupported:
            print(f"note: schema keywords not checked: {', '.join(unsupported)}")
    return 0 if all(r["valid"] for r in report) else 1


if __name__ == "__main__":
    sys.exit(main())
