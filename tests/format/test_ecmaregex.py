"""Schema `pattern`s keep the meaning ECMA-262 gives them (JSON Schema's regex dialect) when Python runs them:
a value with a final line feed, another script's digits or a carriage return no longer passes a pattern that
forbids it, and on plain one-line ASCII text every pattern matches exactly what Python's reading matched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format import ecmaregex
from skillyard.format.fastcheck import quick_valid
from skillyard.format.schemas import load_schema, schema_dir, schema_errors


def _schema_patterns() -> list[str]:
    found: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "pattern" and isinstance(value, str):
                    found.add(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted(Path(schema_dir()).glob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    return sorted(found)


PATTERNS = _schema_patterns()


def test_the_schemas_have_patterns_and_every_one_translates():
    assert len(PATTERNS) >= 10
    for pattern in PATTERNS:
        ecmaregex.compile_pattern(pattern)


@pytest.mark.parametrize("pattern,value,matches", [
    ("^[a-z]+$", "pdf", True),
    ("^[a-z]+$", "pdf\n", False),  # Python's `$` matched before the final line feed
    (r"^\d+$", "12", True),
    (r"^\d+$", "١٢", False),  # Arabic-Indic digits: `\d` is ASCII in ECMA-262
    (r"^\w+$", "café", False),
    (r"^a.b$", "a\rb", False),  # `.` stops at every line terminator, not only \n
    (r"^a.b$", "a\u2028b", False),
    (r"^a.b$", "a-b", True),
    (r"^[^\s]+$", "a\u00a0b", False),  # no-break space is white space in ECMA-262
    (r"^[^\s]+$", "a\x1cb", True),  # and U+001C is not (Python's \s says it is)
    (r"^\S+$", "a\u3000b", False),
    (r"^\$[a]$", "$a", True),  # an escaped `$` and one in a class stay literal
    (r"^[$]$", "$", True),
    (r"x\b", "x\u00e9", True),  # `\b` is ASCII too: é is not a word character
])
def test_ecma_meaning(pattern: str, value: str, matches: bool):
    assert (ecmaregex.compile_pattern(pattern).search(value) is not None) is matches


@pytest.mark.parametrize("pattern", ["[]", "a[^]b", r"[\S]", "a\\"])
def test_constructs_without_a_translation_are_refused_loudly(pattern: str):
    with pytest.raises(ValueError):
        ecmaregex.python_source(pattern)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATTERNS), st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30))
def test_on_one_line_ascii_the_translation_matches_what_python_did(pattern: str, value: str):
    assert (ecmaregex.compile_pattern(pattern).search(value) is None) == (re.search(pattern, value) is None)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([p for p in PATTERNS if p.endswith("$")]), st.text(max_size=30))
def test_no_anchored_schema_pattern_accepts_a_final_line_feed(pattern: str, value: str):
    assert ecmaregex.compile_pattern(pattern).search(value + "\n") is None


@pytest.mark.parametrize("data,field", [
    ({"name": "pdf-tools\n", "description": "Fills PDF forms. Use when a PDF form must be filled."}, "name"),
    ({"name": "pdf-tools", "description": "Fills PDF forms. Use when a PDF form must be filled.",
      "version": "1.2.3\n"}, "version"),
    ({"name": "pdf-tools", "description": "Fills PDF forms. Use when a PDF form must be filled.",
      "version": "1.٢.3"}, "version"),
])
def test_frontmatter_values_are_refused_by_the_quick_check_and_by_jsonschema(data: dict, field: str):
    schema = load_schema("skill-frontmatter.schema.json")
    assert quick_valid(schema, data) is not True
    errors = schema_errors("frontmatter", data)
    assert [list(e.absolute_path) for e in errors] == [[field]]
    assert "does not match" in errors[0].message
