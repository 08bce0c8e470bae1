"""format/quickerrors.py must report exactly jsonschema's errors whenever it answers, and the frontmatter findings
made from them must be the same either way."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format import rules
from skillyard.format.quickerrors import quick_errors
from skillyard.format.schemas import SCHEMA_FILES, load_schema, validator

SCHEMA = load_schema(SCHEMA_FILES["frontmatter"])
FIELDS = sorted(SCHEMA["properties"]) + ["unknown", "x"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, width=16),
                    st.sampled_from(["", "a", "abc", "Bad Name", "1.0.0", "1.0", "read-file", "ocr.recognize", "MIT",
                                     "https://x.example", "enum", "string", "number", "x" * 70, "<b>", "a-b", "@ada",
                                     "direct", "vcp", "x" * 1100, "O'Neil", "名前"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(
    st.sampled_from(["name", "type", "tool", "required", "enum", "default", "description", "github", "k",
                     "timeout_ms", "entry", "intents", "phrases", "tools", 'q"u\'ote']), c, max_size=4),
    max_leaves=12)
documents = st.dictionaries(st.sampled_from(FIELDS), values, max_size=8)


def shape(err) -> tuple:
    message = err.message if err.validator == "required" else ""
    return (err.validator, repr(err.validator_value), repr(err.instance), message, tuple(err.absolute_path),
            tuple(err.absolute_schema_path))


def findings(doc, monkeypatch, *, quick: bool):
    with monkeypatch.context() as patch:
        if not quick:
            patch.setattr(rules, "quick_errors", lambda root, data: None)
        found = rules.schema_findings(doc, strict=False, file="SKILL.md", key_lines={k: 2 for k in doc})
    return sorted(found, key=lambda f: (f.sort_key(), f.fix))  # the package sorts them; jsonschema's order is a set's


@settings(max_examples=600, deadline=None)
@given(documents)
def test_same_errors_as_jsonschema(doc):
    quick = quick_errors(SCHEMA, doc)
    if quick is not None:
        assert sorted(map(shape, quick)) == sorted(map(shape, validator("frontmatter").iter_errors(doc))), doc


@settings(max_examples=300, deadline=None)
@given(documents)
def test_same_findings_either_way(doc):
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert findings(doc, monkeypatch, quick=True) == findings(doc, monkeypatch, quick=False)


@pytest.mark.parametrize("doc", [
    {}, {"name": "Bad Name"}, {"name": "a", "description": "x", "metadata": {"k": {"nested": 1}, "j": 2}},
    {"name": "a", "description": "", "tags": ["Ok", "x" * 50, 3]}, {"name": "x" * 70, "description": "d" * 1100},
    {"name": "a", "description": "d", "type": "other", "protocol": "x", "ttl": -1, "security": {"timeout_ms": 0}},
    {"name": "a", "description": "d", "inputs": [{"name": "m"}], "mcp_deps": [{}]},
])
def test_common_invalid_frontmatter_needs_no_jsonschema(doc):
    quick = quick_errors(SCHEMA, doc)
    assert quick is not None and quick
    assert sorted(map(shape, quick)) == sorted(map(shape, validator("frontmatter").iter_errors(doc)))


def test_what_it_cannot_tell_goes_to_jsonschema():
    assert quick_errors(SCHEMA, {"name": "a", "description": "d", "author": 3}) is None  # a failing oneOf
    assert quick_errors(SCHEMA, {"name": datetime.date(2024, 1, 1), "description": "d"}) is None  # not plain YAML
    assert quick_errors(SCHEMA, {"name": "a", "description": "d", "author": "Ada"}) == []  # a passing oneOf
