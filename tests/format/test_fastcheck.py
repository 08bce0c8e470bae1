"""The quick schema check must agree with jsonschema whenever it answers."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.fastcheck import quick_valid
from skillyard.format.schemas import SCHEMA_FILES, load_schema, validator

SCHEMA = load_schema(SCHEMA_FILES["frontmatter"])
FIELDS = sorted(SCHEMA["properties"]) + ["unknown", "x"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
                    st.sampled_from(["", "a", "abc", "Bad Name", "1.0.0", "1.0", "read-file", "ocr.recognize", "MIT",
                                     "https://x.example", "enum", "string", "number", "x" * 70, "<b>", "a-b", "@ada"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(
    st.sampled_from(["name", "type", "tool", "required", "enum", "default", "description", "github", "k"]), c, max_size=4),
    max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(FIELDS), values, max_size=8))
def test_quick_check_agrees_with_jsonschema(doc):
    quick = quick_valid(SCHEMA, doc)
    if quick is not None:
        assert quick == validator("frontmatter").is_valid(doc), doc


def test_quick_check_knows_valid_documents():
    doc = {"name": "a-b", "description": "x", "version": "1.0.0", "tags": ["a"], "inputs": [
        {"name": "mode", "type": "enum", "enum": ["a"], "default": "a"}], "mcp_deps": [{"tool": "a.b", "required": False}],
        "metadata": {"k": "v"}, "author": {"name": "Ada"}, "allowed-tools": "Read"}
    assert quick_valid(SCHEMA, doc) is True
    assert quick_valid(SCHEMA, {**doc, "inputs": [{"name": "mode", "type": "enum"}]}) is False
