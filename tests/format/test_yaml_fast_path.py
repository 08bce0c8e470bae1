"""The one-line `key: value` fast path must mean exactly what PyYAML means, or step aside."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillyard.format.frontmatter import split_frontmatter
from skillyard.format.yamlload import (
    DuplicateKeyError,
    YAMLLimitError,
    YAMLParseError,
    load_simple,
    load_with_lines,
    load_with_pyyaml,
)

REPO = Path(__file__).resolve().parents[2]

# Pieces chosen to sit on the fast path's borders: resolver words, numbers, indicators, quotes, colons, hashes,
# brackets, non-ASCII text and the characters YAML 1.1 treats as line breaks.
TRICKY = ["yes", "No", "ON", "off", "y", "N", "true", "False", "null", "Null", "~", "1", "1.5", "0x1F", "1:20", "1_000",
          ".inf", "-", "- a", "?", "!tag", "&a", "*a", "%x", "@x", "`x`", "|", ">", "#", " #c", "a#b", ": ", ":", "a:b",
          "[", "]", "{", "}", ",", "'", "''", '"', '\\', "\\n", "\t", " ", "  ", "发票", "é", "\u00a0", "\u3000",
          "\u2028", "\x85", "\ufeff", "\x01", "\x7f", "\r", "<<", "=", "http://example.com/a?b=c", "x", "Helps", "a b", "v1.2.0"]
words = st.one_of(st.sampled_from(TRICKY), st.text(alphabet="abcXYZ09 -_./", min_size=1, max_size=6))
fragments = st.lists(words, min_size=1, max_size=4).map("".join)
keys = st.one_of(st.sampled_from(["name", "description", "tags", "on", "Yes", "n", "argument-hint", "x_y", "1a",
                                  "a.b", "-a", "user-invocable"]), st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True))


def flow_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


values = st.one_of(
    fragments,
    fragments.map(lambda v: f'"{v}"'),
    fragments.map(lambda v: f"'{v}'"),
    st.lists(st.one_of(fragments, fragments.map(lambda v: f'"{v}"')), max_size=4).map(flow_list),
    st.just(""),
)
lines = st.tuples(keys, st.sampled_from([": ", ":  ", ":", " : "]), values, st.sampled_from(["", " ", "  "]))
documents = st.lists(st.one_of(lines.map("".join), st.sampled_from(["", "  ", "# comment", "  indented: x", "- item"])),
                     min_size=1, max_size=6).map(lambda rows: "\n".join(rows) + "\n")


def pyyaml_result(text: str):
    try:
        return ("ok", load_with_pyyaml(text))
    except DuplicateKeyError:
        return ("duplicate", None)
    except YAMLParseError:
        return ("error", None)


@settings(max_examples=1500, deadline=None)
@given(documents)
@example('name: a\ndescription: "Helps: with x"\ntags: [a, "b, c", d e]\n')
@example("name: a\ndescription: 处理发票和收据\n")
@example("a: b  c\n")
@example("a: x\u0085y\n")
@example("a: x\x01y\n")
@example("a: [x\x7f]\n")
def test_fast_path_agrees_with_pyyaml(text: str) -> None:
    fast = load_simple(text)
    if fast is not None:
        assert pyyaml_result(text) == ("ok", fast)


def test_fast_path_takes_typical_frontmatter() -> None:
    """Flat frontmatter (about 40% of public skills) is read without libyaml, and reads the same."""
    text = 'name: pdf-tools\ndisplay-name: PDF Tools\ndescription: 读取 PDF 发票\nversion: "1.0.0"\nlicense: MIT\n'
    assert load_simple(text) == load_with_pyyaml(text)
    assert load_simple('name: pdf-tools\ndescription: "Reads PDFs: text, tables."\ntags: [pdf, text]\n') == (
        {"name": "pdf-tools", "description": "Reads PDFs: text, tables.", "tags": ["pdf", "text"]},
        {"name": 1, "description": 2, "tags": 3})


def test_nested_frontmatter_reads_the_same() -> None:
    for skill_md in sorted((REPO / "skills").glob("*/SKILL.md")):
        yaml_text = split_frontmatter(skill_md.read_text(encoding="utf-8"))[0]
        assert load_with_lines(yaml_text) == load_with_pyyaml(yaml_text)


@pytest.mark.parametrize("text", ["on: push\n", "a: yes\n", "a: 1\n", "a: b\na: c\n", "a:\n  - x\n", "a: b # c\n",
                                  "a: |\n  x\n", "a: b: c\n", "a: 'x\n  y'\n", "a: \"x\\ty\"\n", "a: [b, 1]\n"])
def test_fast_path_steps_aside(text: str) -> None:
    assert load_simple(text) is None


def bounded_result(load, text: str):
    try:
        return ("ok", load(text))
    except YAMLLimitError as exc:
        return (exc.rule, None)
    except DuplicateKeyError:
        return ("duplicate", None)
    except YAMLParseError:
        return ("error", None)


long_documents = st.tuples(documents, st.sampled_from(["a", "[a, ", "x: y\n", "&a ", "*a, "]), st.integers(0, 40_000)).map(
    lambda t: t[0] + "k: " + t[1] * t[2] + "\n")


@settings(max_examples=300, deadline=None)
@given(st.one_of(documents, long_documents))
@example("tags: [" + "a, " * 20_000 + "a]\n")
@example("description: " + "x" * 70_000 + "\n")
def test_the_gated_fast_path_agrees_with_the_bounded_loader(text: str) -> None:
    """What `load_with_lines` answers (fast path first, when the text is small) equals the bounded loader's answer,
    refusals included: the fast path can never let through what the limits refuse."""
    assert bounded_result(load_with_lines, text) == bounded_result(load_with_pyyaml, text)
