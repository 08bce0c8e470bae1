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
          "1.2.3", "10.0.1", "1.2.", "1..2", "0.1.0-beta", "1.2.3.4", "TRUE", "True", "tRue", "FALSE", "1e3", "0o17",
          # digits first: dates, counts with units, licences, and every number form PyYAML resolves
          "2026-01-19", "2024-1-2", "1-2", "12-", "69k", "3-clause", "0b101", "0x_f", "0755", "1_0", "1:2:3", "1.5e+3",
          "1e+3", "190:20:30.15", "6.8523015e+5", "0.", "9a", "1-2:3", "+1", "-1", "1_", "2001-12-14t21:59:43.10-05:00",
          # non-ASCII words in flow lists, and letters that lower-case to ASCII (the Kelvin sign)
          "图像生成", "主体一致性", "\u212a", "ｙｅｓ", "Ωmega"]
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
                                  "a: |+\n  x\n", "a: b: c\n", "a: 'x\n  y'\n", "a: \"x\\ty\"\n", "a: [b, 1]\n",
                                  "a:\n", "a:\nb: c\n", "a: b\n  c\n", "a:\n  - x\n  y: z\n", "a:\n  - x\n    - y\n",
                                  "a:\n  b: c\n  b: d\n", "a:\n  on: c\n", "a:\n  b:\n    c: d\n", "v: 1.5\n",
                                  "a:\n  - 1\n", "a: |\n\n  x\n", "a: >\n  x\n    y\n", "a: |\n  x\n   \n",
                                  "a: 1e5\n", "a: 0x1F\n", "a: {\"b\": 1.5}\n", "a: {\"b\": 1, \"b\": 2}\n",
                                  "a: [\"\\u0041\"]\n", "a: |\n  x"])
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


# Block scalars (`description: >-` then indented lines): headers the fast path reads and ones it must leave, rows at
# one or mixed indentations, empty and space-only lines, text that looks like YAML, and what follows the block.
block_headers = st.sampled_from(["|", "|-", ">", ">-", "|+", ">+", "|2", "| #c", ">  ", "|-  ", ">1-", "|\t"])
block_text = st.one_of(fragments, st.sampled_from(["", "# not a comment", "- a", "k: v", "---", "...", "a  ", "  a",
                                                   "[x]", "{y}", "\"q\"", "'s'", "|", ">"]))
block_rows_text = st.lists(st.one_of(
    st.tuples(st.sampled_from([" ", "  ", "  ", "  ", "    ", "   "]), block_text).map("".join),
    st.sampled_from(["", "", " ", "   ", "k: v", "# c"])), min_size=0, max_size=6)
scalar_blocks = st.tuples(keys, st.sampled_from([": ", ":  "]), block_headers, block_rows_text).map(
    lambda t: t[0] + t[1] + t[2] + "".join("\n" + row for row in t[3]))
# ...and the forms it reads: one indentation, text or empty rows.
even_scalar_blocks = st.tuples(keys, block_headers, st.integers(1, 4), st.lists(
    st.one_of(block_text.filter(lambda t: not t.startswith(" ")), st.just("")), min_size=1, max_size=5)).map(
    lambda t: f"{t[0]}: {t[1]}" + "".join("\n" + (" " * t[2] + row if row else "") for row in t[3]))
scalar_documents = st.tuples(st.one_of(
    st.lists(st.one_of(scalar_blocks, even_scalar_blocks, lines.map("".join), blocks), min_size=1,
             max_size=4).map("\n".join), st.lists(even_scalar_blocks, min_size=1, max_size=3).map("\n".join)),
    st.sampled_from(["\n", "", "\n\n", "\n  \n"])).map("".join)


@settings(max_examples=2000, deadline=None)
@given(scalar_documents)
@example("description: >-\n  Reads PDFs.\n  Use when asked.\n\n  Second paragraph.\nname: a\n")
@example("description: |\n  line one\n\n\n  line two  \n\nname: a\n")
@example("a: >\n  x\n\n")
@example("a: |-\n  x\n  y")
def test_block_scalars_agree_with_pyyaml(text: str) -> None:
    """A block scalar the fast path reads means what PyYAML reads, with the same flow collections (none in it)."""
    fast = load_simple(text)
    if fast is not None:
        assert pyyaml_result(text) == ("ok", fast)
        assert flow_collections(text) == flow_collections_from_events(text)


def test_fast_path_takes_block_scalars_dates_and_json_values() -> None:
    """The frontmatter most often left to libyaml before: folded and literal descriptions, dates, words that start
    with a digit, non-ASCII tags and JSON-style metadata."""
    text = ('name: a\ndescription: >-\n  Reads PDFs.\n  Use when asked.\n\n  More.\nnotes: |\n  one\n  two\n'
            'updated: 2026-01-19\nlicense: 3-clause BSD license\nstars: 69k\ntags: [图像生成, Sora, "a b"]\n'
            'metadata: {"clawdbot": {"emoji": "🐱", "always": true, "requires": {"bins": ["curl"], "n": 2}}}\n')
    expected = {"name": "a", "description": "Reads PDFs. Use when asked.\nMore.", "notes": "one\ntwo\n",
                "updated": "2026-01-19", "license": "3-clause BSD license", "stars": "69k",
                "tags": ["图像生成", "Sora", "a b"],
                "metadata": {"clawdbot": {"emoji": "🐱", "always": True, "requires": {"bins": ["curl"], "n": 2}}}}
    assert load_simple(text) == load_with_pyyaml(text) == (
        expected, {"name": 1, "description": 2, "notes": 7, "updated": 10, "license": 11, "stars": 12, "tags": 13,
                   "metadata": 14})
    assert flow_collections(text) == flow_collections_from_events(text) == [
        (12, "list"), (13, "mapping"), (13, "mapping"), (13, "mapping"), (13, "list")]


json_leaves = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab: #,[]{}'&*!|>-?") + ["\\", '"', "\u00e9", "😼", "\t", "\n", "\x85"]),
            max_size=6),
    st.sampled_from(["yes", "no", "on", "~", "null", "1.5", "0x10", "", "- a"]),
    st.integers(-2**70, 2**70), st.sampled_from([0, -0, 10**18, 2**63, -2**63]), st.booleans(), st.none(),
    st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(json_leaves, lambda children: st.one_of(
    st.lists(children, max_size=3), st.dictionaries(st.text(alphabet="ab:# \\\"é", max_size=3), children, max_size=3)),
    max_leaves=12)


def json_text(value, separators) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=separators)


json_documents = st.tuples(
    keys, json_values.filter(lambda v: isinstance(v, (list, dict))),
    st.sampled_from([(",", ":"), (", ", ": "), (",", ": "), (" , ", " : ")]),
    st.sampled_from(["", "  ", " # c", ",", "}", "]"]), st.booleans()).map(
    lambda t: (f"{t[0]}:\n  k: " if t[4] else f"{t[0]}: ") + json_text(t[1], t[2]) + t[3] + "\n")


@settings(max_examples=2000, deadline=None)
@given(json_documents)
@example('metadata: {"clawdbot":{"emoji":"📍","requires":{"env":["KEY"]},"always":true}}\n')
@example('a: {"x": 1, "x": 2}\n')
@example('a: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]\n')
@example('a: {"b": 99999999999999999999}\n')
def test_json_style_values_agree_with_pyyaml(text: str) -> None:
    """A JSON-style flow value the fast path reads means what PyYAML reads (repeated keys, floats, escapes and
    deep nesting are left to it), and its flow collections are the event stream's, nested ones in order."""
    fast = load_simple(text)
    if fast is not None:
        assert pyyaml_result(text) == ("ok", fast)
        assert flow_collections(text) == flow_collections_from_events(text)
    assert bounded_result(load_with_lines, text) == bounded_result(load_with_pyyaml, text)


def test_real_frontmatter_reads_the_same_on_both_paths() -> None:
    """Every real SKILL.md of ../shared/corpus: where the fast path answers, PyYAML answers the same."""
    corpus = REPO.parent / "shared" / "corpus"
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not there (real skills from ../shared)")
    read = 0
    for skill_md in sorted(corpus.rglob("SKILL.md")):
        try:
            parts = split_frontmatter(skill_md.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        if parts is None or (fast := load_simple(parts[0])) is None:
            continue
        read += 1
        assert load_with_pyyaml(parts[0]) == fast, skill_md
        assert flow_collections(parts[0]) == flow_collections_from_events(parts[0]), skill_md
    assert read > 0
