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


LOCK = {"schema_version": "1.0", "skill": "pdf-tools", "version": "1.0.0",
        "resolved_source": {"type": "local", "path": "/x", "integrity": "sha256-" + "a" * 64},
        "resolved_inputs": {}, "targets": [{"target": "agents", "scope": "user", "path": "/p", "mode": "canonical"}],
        "files": [{"path": "SKILL.md", "sha256": "a" * 64, "size": 3}]}
JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                       max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(LOCK)), JSONISH, st.booleans())
def test_local_refs_agree_with_jsonschema(key, value, drop):
    """Documents whose schema reaches definitions through `$ref` (the lockfiles, registry.json) are answered by the
    quick check too (check_document trusts its "valid"): it must never call valid what jsonschema rejects."""
    document = dict(LOCK)
    if drop:
        document.pop(key)
    else:
        document[key] = value
    verdict = quick_valid(load_schema(SCHEMA_FILES["skill-lock"]), document)
    errors = list(validator("skill-lock").iter_errors(document))
    if verdict is not None:
        assert verdict == (not errors), (document, [e.message for e in errors])


def test_a_valid_lockfile_is_confirmed_without_jsonschema():
    assert quick_valid(load_schema(SCHEMA_FILES["skill-lock"]), LOCK) is True
    assert not list(validator("skill-lock").iter_errors(LOCK))


DEPENDENT = {"type": "object", "dependentRequired": {"source_url": ["source"], "source": ["source_url"],
                                                     "verified": ["source_url"], "verification": ["verified"]}}


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.dictionaries(st.sampled_from(["source_url", "source", "verified", "verification", "name"]),
                                 st.none(), max_size=5), JSONISH))
def test_dependent_required_agrees_with_jsonschema(value):
    """registry.json's skill entries use `dependentRequired` (a pointer's fields come together): the quick check
    answers it, so a valid registry is never sent through jsonschema (seconds at 5,000 skills)."""
    from jsonschema import Draft202012Validator

    assert quick_valid(DEPENDENT, value) == Draft202012Validator(DEPENDENT).is_valid(value), value


def test_the_registry_schema_is_answered_quickly():
    """The repository's own registry.json (own and pointer skills) is answered without jsonschema."""
    import json
    from pathlib import Path

    registry = json.loads((Path(__file__).resolve().parents[2] / "registry.json").read_text(encoding="utf-8"))
    assert any("source_url" in skill for skill in registry["skills"])
    assert quick_valid(load_schema(SCHEMA_FILES["registry"]), registry) is True
    assert validator("registry").is_valid(registry)
