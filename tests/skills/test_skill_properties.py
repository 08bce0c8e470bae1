"""Property tests for the parsers inside the example skills' scripts (loaded without writing bytecode)."""

from __future__ import annotations

import importlib.util
import sys
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

SKILLS = Path(__file__).resolve().parents[2] / "skills"


def load(skill: str, script: str):
    """Import a script as a module; bytecode writing is switched off so skills/ stays clean."""
    path = SKILLS / skill / "scripts" / script
    spec = importlib.util.spec_from_file_location(f"skill_{skill.replace('-', '_')}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    previous, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = previous
    return module


invoice = load("invoice-processor", "invoice_fields.py")
json_check = load("json-schema-check", "json_check.py")

code_body = st.text(alphabet=invoice.USCC_CHARSET, min_size=17, max_size=17).map(
    lambda s: s[:2] + "".join(ch if ch.isdigit() else "1" for ch in s[2:8]) + s[8:])


def with_check_char(body: str) -> str:
    total = sum(invoice.USCC_CHARSET.index(ch) * w for ch, w in zip(body, invoice.USCC_WEIGHTS, strict=True))
    return body + invoice.USCC_CHARSET[(31 - total % 31) % 31]


@settings(max_examples=200, deadline=None)
@given(code_body, st.integers(0, 17), st.integers(1, 30))
def test_uscc_accepts_valid_codes_and_catches_every_single_substitution(body, position, shift):
    code = with_check_char(body)
    assert invoice.check_uscc(code)["valid"]
    charset = invoice.USCC_CHARSET
    mutated_char = charset[(charset.index(code[position]) + shift) % 31]
    mutated = code[:position] + mutated_char + code[position + 1:]
    if 2 <= position < 8 and not mutated_char.isdigit():
        return  # caught by the format check instead; still invalid
    assert not invoice.check_uscc(mutated)["valid"]


@settings(max_examples=200, deadline=None)
@given(st.decimals(min_value=0, max_value=10**12, places=2, allow_nan=False, allow_infinity=False))
def test_amounts_with_separators_and_currency_round_trip(value):
    text = f"¥{value:,.2f}"
    assert invoice.normalize_amount(text) == {"input": text, "amount": f"{value:.2f}", "valid": True}
    assert Decimal(invoice.normalize_amount(f"{value}元")["amount"]) == value


SCHEMA = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "integer", "minimum": 0},
        "name": {"type": "string", "maxLength": 5, "pattern": "^[a-c]*$"},
        "tags": {"type": "array", "items": {"enum": ["x", "y"]}, "uniqueItems": True, "maxItems": 3},
        "kind": {"anyOf": [{"type": "null"}, {"const": 1}]},
    },
    "additionalProperties": {"type": "boolean"},
}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "ab", "abcabc", "x", "y", "d"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["id", "name", "tags", "kind", "extra"]), children, max_size=5),
    max_leaves=10)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_json_check_agrees_with_the_jsonschema_library(document):
    ours = not json_check.Validator(SCHEMA).errors(document, SCHEMA)
    theirs = jsonschema.Draft202012Validator(SCHEMA).is_valid(document)
    assert ours == theirs, document


@pytest.mark.parametrize("heading, slug", [
    ("Getting Started!", "getting-started"), ("API v2.0 (beta)", "api-v20-beta"),
    ("Über *alles*", "über-alles"), ("snake_case and-dash", "snake_case-and-dash"),
    ("[Link](x.md) text", "link-text"),
])
def test_markdown_slugs_follow_github(heading, slug):
    assert load("markdown-link-check", "md_links.py").slugify(heading) == slug
