"""Every schema in schemas/ uses only draft 2020-12 keywords, so validators in their strict modes (ajv's default)
compile them (issue 24 item 9; tests/interop/test_ajv.py runs ajv itself). Our annotations live in `$comment` as
`x-name: value` lines, and the loaded schema still gives them as `x-rule`, `x-fix`, `x-file`, `x-lenient`."""

from __future__ import annotations

import json

from skillyard.format.schemas import SCHEMA_FILES, load_schema, schema_dir

KEYWORDS = {  # draft 2020-12: core, applicator, unevaluated, validation, meta-data, format-annotation, content
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
    "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items", "contains",
    "properties", "patternProperties", "additionalProperties", "propertyNames", "unevaluatedItems",
    "unevaluatedProperties", "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains",
    "minContains", "maxProperties", "minProperties", "required", "dependentRequired", "title", "description",
    "default", "deprecated", "readOnly", "writeOnly", "examples", "format", "contentEncoding", "contentMediaType",
    "contentSchema"}
MAPS = {"properties", "patternProperties", "$defs", "dependentSchemas"}  # values: name -> schema


def unknown_keywords(schema, where="#") -> list[str]:
    found = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key not in KEYWORDS:
                found.append(f"{where}/{key}")
            elif key in MAPS and isinstance(value, dict):
                for name, sub in value.items():
                    found += unknown_keywords(sub, f"{where}/{key}/{name}")
            elif key in ("dependentRequired", "const", "default", "examples"):
                continue  # values that are data (names, constants), not schemas
            elif isinstance(value, dict):
                found += unknown_keywords(value, f"{where}/{key}")
            elif isinstance(value, list) and key not in ("enum", "required", "examples", "type"):
                for index, sub in enumerate(value):
                    found += unknown_keywords(sub, f"{where}/{key}/{index}")
    return found


def test_every_schema_uses_only_standard_keywords():
    for file_name in SCHEMA_FILES.values():
        raw = json.loads((schema_dir() / file_name).read_text(encoding="utf-8"))
        assert unknown_keywords(raw) == [], file_name


def test_the_annotations_are_still_read_from_the_comments():
    frontmatter = load_schema(SCHEMA_FILES["frontmatter"])
    name = frontmatter["properties"]["name"]
    assert name["x-rule"] == "name-format" and name["x-file"] == "SKILL.md" and name["x-fix"].startswith("Use 1-64")
    assert frontmatter["x-rule"] == "frontmatter-shape"
    assert frontmatter["properties"]["metadata"]["x-lenient"] == "warning"
    assert load_schema(SCHEMA_FILES["skill-yaml"])["properties"]["schema_version"]["x-rule"] == "manifest-schema-version"
