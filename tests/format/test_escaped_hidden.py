"""Control and invisible characters written as YAML escapes (`"\\u200b"`, `"\\x07"`) are the same errors as the raw
characters, in SKILL.md and skill.yaml, in every mode, wherever the value sits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillyard.format import safety
from skillyard.format.frontmatter import parse_skill_md
from skillyard.format.manifest import parse_manifest

ESCAPES = [("\\u200b", "invisible-unicode"), ("\\u202e", "invisible-unicode"), ("\\U000e0041", "invisible-unicode"),
           ("\\ufeff", "invisible-unicode"), ("\\x07", "control-character"), ("\\e", "control-character"),
           ("\\x9b", "control-character"), ("\\u0000", "control-character")]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("escape,rule", ESCAPES)
def test_an_escape_in_a_frontmatter_value_is_an_error(escape, rule, strict):
    fm = parse_skill_md(f'---\nname: a\ndescription: "safe{escape}text"\n---\n', strict=strict)
    [finding] = [f for f in fm.findings if f.rule == rule]
    assert finding.severity == "error" and finding.field == "description" and finding.line == 3
    assert "escape" in finding.message and "U+" in finding.message
    assert not fm.ok


@pytest.mark.parametrize("escape,rule", ESCAPES)
def test_nested_values_keys_and_lists_are_checked_too(escape, rule):
    text = f'---\nname: a\ndescription: fine\nmetadata:\n  team: "x{escape}"\n---\n'
    assert [f.field for f in parse_skill_md(text).findings if f.rule == rule] == ["metadata.team"]
    manifest = f'schema_version: "1.0"\ntags: [ok, "t{escape}"]\ninputs:\n  "k{escape}": {{type: string}}\n'
    _, _, findings = parse_manifest(manifest)
    fields = {f.field for f in findings if f.rule == rule}
    assert "tags[1]" in fields and any(field.startswith("inputs.k") for field in fields), fields


def test_a_raw_character_is_reported_once_not_twice():
    fm = parse_skill_md('---\nname: a\ndescription: "one\u200btwo \\t tab"\n---\n')
    assert [f.rule for f in fm.findings].count("invisible-unicode") == 1


def test_ordinary_escapes_are_fine():
    fm = parse_skill_md('---\nname: a\ndescription: "Tabs\\tand \\"quotes\\" and \\u00e9t\\u00e9."\n---\n', strict=True)
    assert not [f for f in fm.findings if f.rule in ("invisible-unicode", "control-character")]


HIDDEN = st.characters(codec="utf-8").filter(lambda c: bool(safety.CONTROL.match(c) or safety.INVISIBLE.match(c)))


@given(HIDDEN)
def test_every_hidden_character_written_as_an_escape_is_caught(char):
    escape = f"\\U{ord(char):08x}"
    fm = parse_skill_md(f'---\nname: a\ndescription: "x{escape}y"\n---\n')
    assert any(f.rule in ("invisible-unicode", "control-character") and f.field == "description"
               for f in fm.findings), escape
