"""The frontmatter splitter and parser: exact where the standard is exact, tolerant where authors are messy."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.frontmatter import parse_skill_md, repair_unquoted_colons, split_frontmatter


def test_split_returns_yaml_body_and_body_line():
    yaml_text, body, line = split_frontmatter("---\nname: a\ndescription: b\n---\n# Title\n")
    assert yaml_text == "name: a\ndescription: b\n"
    assert body == "# Title\n"
    assert line == 5


def test_bom_and_crlf_are_tolerated():
    fm = parse_skill_md("\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n")
    assert fm.ok
    assert fm.data == {"name": "a", "description": "b"}
    assert fm.body == "body\n"


def test_dashes_inside_a_block_scalar_do_not_close_the_frontmatter():
    text = "---\nname: a\ndescription: |\n  first\n  ---\n  still description\n---\nbody\n"
    fm = parse_skill_md(text)
    assert fm.data["description"] == "first\n---\nstill description\n"
    assert fm.body == "body\n"


def test_only_an_exact_dash_line_closes():
    with pytest.raises(ValueError):
        split_frontmatter("---\nname: a\n----\nbody\n")
    assert split_frontmatter("---\nname: a\n---   \nbody") == ("name: a\n", "body", 4)


@pytest.mark.parametrize("text,rule", [
    ("# no frontmatter\n", "frontmatter-missing"),
    ("\n---\nname: a\n---\n", "frontmatter-missing"),
    ("---\nname: a\ndescription: b\n", "frontmatter-unclosed"),
    ("---\nname: a\nname: b\n---\n", "yaml-duplicate-key"),
    ("---\nname: [a\n---\n", "yaml-syntax"),
    ("---\n- a\n- b\n---\n", "frontmatter-shape"),
])
def test_broken_frontmatter_is_a_finding_not_a_crash(text, rule):
    fm = parse_skill_md(text)
    assert not fm.ok
    assert rule in {f.rule for f in fm.findings}


def test_unquoted_colon_is_repaired_with_a_warning_in_lenient_mode():
    text = "---\nname: a\ndescription: Use when: the user asks\n---\n"
    fm = parse_skill_md(text, strict=False)
    assert fm.ok
    assert fm.data["description"] == "Use when: the user asks"
    [finding] = fm.findings
    assert (finding.rule, finding.severity, finding.line) == ("yaml-unquoted-colon", "warning", 3)
    assert "Quote the value" in finding.fix


def test_unquoted_colon_is_an_error_in_strict_mode_but_parsing_goes_on():
    fm = parse_skill_md("---\nname: a\ndescription: Note: it's fine\n---\n", strict=True)
    assert not fm.ok
    assert fm.data["description"] == "Note: it's fine"
    assert [f.severity for f in fm.findings] == ["error"]


def test_repair_leaves_quoted_and_block_values_alone():
    text = "a: 'x: y'\nb: \"x: y\"\nc: |\n  x: y\nd: [x, y]\ne: plain value\n"
    assert repair_unquoted_colons(text) == (text, [])


def test_flow_style_and_yaml_types():
    fm = parse_skill_md("---\nname: a\ndescription: b\ntags: [x, y]\nmetadata: {k: v}\nupdated: 2024-01-31\n"
                        "user-invocable: true\n---\n")
    assert fm.data["tags"] == ["x", "y"]
    assert fm.data["metadata"] == {"k": "v"}
    assert fm.data["updated"] == "2024-01-31"  # dates stay strings (JSON has no dates)
    assert fm.data["user-invocable"] is True


def test_key_lines_point_at_the_file():
    fm = parse_skill_md("---\nname: a\n\ndescription: b\n---\n")
    assert fm.key_lines == {"name": 2, "description": 4}


@pytest.mark.parametrize("strict,severity", [(True, "error"), (False, "warning")])
def test_angle_brackets_in_values(strict, severity):
    fm = parse_skill_md("---\nname: a\ndescription: b\nargument-hint: <file>\n---\n", strict=strict)
    [finding] = [f for f in fm.findings if f.rule == "angle-bracket"]
    assert finding.severity == severity
    assert finding.field == "argument-hint"
    assert finding.line == 4


@pytest.mark.parametrize("char,rule", [
    ("\u202e", "invisible-unicode"), ("\u200b", "invisible-unicode"), ("\U000e0041", "invisible-unicode"),
    ("\x07", "control-character"), ("\x1b", "control-character"),
])
def test_invisible_and_control_characters_are_errors_even_when_lenient(char, rule):
    fm = parse_skill_md(f"---\nname: a\ndescription: safe{char}text\n---\n", strict=False)
    [finding] = [f for f in fm.findings if f.rule == rule]
    assert finding.severity == "error"
    assert finding.line == 3
    assert "U+" in finding.message


def test_frontmatter_longer_than_the_limit():
    lines = "".join(f"k{i}: v\n" for i in range(201))
    fm = parse_skill_md(f"---\nname: a\ndescription: b\n{lines}---\n")
    assert "frontmatter-too-long" in {f.rule for f in fm.findings}
    ok = parse_skill_md("---\nname: a\ndescription: b\n" + "".join(f"k{i}: v\n" for i in range(100)) + "---\n")
    assert "frontmatter-too-long" not in {f.rule for f in ok.findings}


# Property-based tests -------------------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parser_never_crashes(text):
    fm = parse_skill_md(text)
    assert isinstance(fm.data, dict)
    assert fm.ok == (not any(f.is_error for f in fm.findings))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200).map(lambda s: "---\n" + s))
def test_parser_never_crashes_on_frontmatter_like_text(text):
    parse_skill_md(text, strict=True)


safe_text = st.text(alphabet=st.characters(whitelist_categories=("L", "N", "Zs"), whitelist_characters="-_.,!?()"),
                    min_size=1, max_size=40).filter(lambda s: s.strip() == s and s)
values = st.recursive(
    st.one_of(safe_text, st.integers(-10**6, 10**6), st.booleans()),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(safe_text, children, max_size=4),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_-]{0,15}", fullmatch=True), values, min_size=1, max_size=8),
       st.text(max_size=200).map(lambda s: s.replace("\r", "")), st.booleans(), st.booleans())
def test_round_trip(data, body, crlf, bom):
    text = "---\n" + yaml.safe_dump(data, allow_unicode=True, sort_keys=False) + "---\n" + body
    if crlf:
        text = text.replace("\n", "\r\n")
    if bom:
        text = "\ufeff" + text
    fm = parse_skill_md(text)
    assert fm.data == data
    assert fm.body == body.replace("\r", "") or fm.body == body
