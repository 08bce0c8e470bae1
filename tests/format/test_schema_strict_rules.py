"""Issue 33 item 7 without Node: the rules of ajv's `strict: true` (draft 2020-12) that our schemas once broke, checked
on every file in schemas/ so a regression shows in the ordinary suite too (tests/interop/test_ajv.py compiles them
with ajv itself): no union `type` (ajv allows only `[T, "null"]`), every `required` key defined in the same object's
`properties`, and a union spelt as `anyOf` still reads as a type error in findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SCHEMAS = sorted((Path(__file__).resolve().parents[2] / "schemas").rglob("*.schema.json"))


def _objects(node: object, path: str = "#"):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{path}/{i}")


@pytest.mark.parametrize("file", SCHEMAS, ids=lambda p: p.name)
def test_no_union_types_and_every_required_key_is_defined_beside_it(file):
    problems = []
    for path, node in _objects(json.loads(file.read_text(encoding="utf-8"))):
        kind = node.get("type")
        if isinstance(kind, list) and not (len(kind) == 2 and "null" in kind):
            problems.append(f"{path}: union type {kind} (use anyOf)")
        required = node.get("required")
        if isinstance(required, list) and not path.endswith("/properties"):
            defined = node.get("properties") if isinstance(node.get("properties"), dict) else {}
            problems += [f"{path}: required {key!r} not in this object's properties" for key in required
                         if key not in defined]
    assert problems == []


def test_a_union_spelt_as_any_of_reads_as_a_type_error():
    from skillyard.format.rules import schema_findings

    data = {"name": "a", "description": "Does a. Use when a.", "triggers": 5}
    [finding] = schema_findings(data, strict=False, file="SKILL.md", key_lines={})
    assert finding.rule == "runtime-field-type"
    assert finding.message == "`triggers` must be of type ['object', 'array', 'string'], not int (5)."
