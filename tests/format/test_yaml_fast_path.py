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
    flow_collections,
    flow_collections_from_events,
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
          "\u2028", "\x85", "\ufeff", "\x01", "\x7f", "\r", "<<", "=", "http://example.com/a?b=c", "x", "Helps", "a b", "v1.2.0",
          "1.2.3", "10.0.1", "1.2.", "1..2", "0.1.0-beta", "1.2.3.4", "TRUE", "True", "tRue", "FALSE", "1e3", "0o17"]
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
# Indented blocks under a key with no value: `- item` lists and `key: value` mappings, at one or mixed indentations.
block_rows = st.one_of(values.map(lambda v: "- " + v), st.tuples(keys, st.just(": "), values).map("".join),
                       st.sampled_from(["-", "- ", "-a", "- - a", "# c", "? a", "- a: b"]))
blocks = st.tuples(keys, st.sampled_from([":", ": ", ":  "]), st.lists(
    st.tuples(st.sampled_from([" ", "  ", "  ", "    ", "   "]), block_rows).map("".join), max_size=4)).map(
    lambda t: t[0] + t[1] + "".join("\n" + row for row in t[2]))
documents = st.lists(st.one_of(lines.map("".join), blocks,
                               st.sampled_from(["", "  ", "# comment", "  indented: x", "- item", "  - item"])),
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


def test_fast_path_takes_blocks_versions_and_booleans() -> None:
    """Indented `metadata:` maps and `allowed-tools:` lists, dotted versions and `true`/`false` (most of the
    frontmatter the flat path left to libyaml) read without it, and read the same."""
    text = ("name: a\nmetadata:\n  author: x\n  version: 1.0.0\nallowed-tools:\n  - Read\n  - \"Bash(git:*)\"\n"
            "disable-model-invocation: true\nversion: 2.10.3\n")
    assert load_simple(text) == load_with_pyyaml(text) == (
        {"name": "a", "metadata": {"author": "x", "version": "1.0.0"}, "allowed-tools": ["Read", "Bash(git:*)"],
         "disable-model-invocation": True, "version": "2.10.3"},
        {"name": 1, "metadata": 2, "allowed-tools": 5, "disable-model-invocation": 8, "version": 9})


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


@pytest.mark.parametrize("text", ["on: push\n", "a: yes\n", "a: 1\n", "a: b\na: c\n", "a:\n- x\n", "a: b # c\n",
                                  "a: |\n  x\n", "a: b: c\n", "a: 'x\n  y'\n", "a: \"x\\ty\"\n", "a: [b, 1]\n",
                                  "a:\n", "a:\nb: c\n", "a: b\n  c\n", "a:\n  - x\n  y: z\n", "a:\n  - x\n    - y\n",
                                  "a:\n  b: c\n  b: d\n", "a:\n  on: c\n", "a:\n  b:\n    c: d\n", "v: 1.5\n",
                                  "a:\n  - 1\n"])
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


simple_values = st.one_of(st.sampled_from(["a", "Read", "x y", "1.2.3", "true", "False", "发票", '"q: r"', "'s'",
                                           "[a, b]", "yes", "1.5", "a #b", "a: b", "", "- a"]), fragments)
consistent_blocks = st.tuples(
    keys, st.integers(1, 4), st.booleans(),
    st.lists(st.tuples(keys, simple_values), min_size=1, max_size=4)).map(
    lambda t: t[0] + ":\n" + "".join(" " * t[1] + (f"- {v}" if t[2] else f"{k}: {v}") + "\n" for k, v in t[3]))
block_documents = st.lists(st.one_of(consistent_blocks, lines.map(lambda row: "".join(row) + "\n")),
                           min_size=1, max_size=4).map("".join)


@settings(max_examples=1500, deadline=None)
@given(block_documents)
@example("metadata:\n  author: a\n  tags: [x, y]\nallowed-tools:\n  - Read\n  - true\n")
def test_indented_blocks_agree_with_pyyaml(text: str) -> None:
    fast = load_simple(text)
    if fast is not None:
        assert pyyaml_result(text) == ("ok", fast)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(documents, block_documents))
@example('a: [x, "y"]\nb:\n  - []\n  - [q]\nc:\n  d: [e]\ne: "[not]"\nf: see [x]\n')
def test_flow_collections_of_the_fast_path_are_libyamls(text: str) -> None:
    """Where the fast path reads the text, its flow collections (lines and kinds) are those of the event stream."""
    if load_simple(text) is not None:
        assert flow_collections(text) == flow_collections_from_events(text)
