"""format/yamlwrite.py: the portable frontmatter is written in short lines that read back exactly, or not at all."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.frontmatter import MAX_LINE_CHARS, parse_skill_md
from skillyard.format.yamlload import load_with_lines
from skillyard.format.yamlwrite import WIDTH, FoldError
from skillyard.format.yamlwrite import dump_short_lines as dump_frontmatter

WORD = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp", "Cf", "Co", "Cn")),
               min_size=1, max_size=30)
WORDS = st.lists(st.one_of(WORD, st.sampled_from(["#", "#tag", "key:", "a: b", "'", '"', "-", "---x", ">", "|",
                                                  "é", "日本語", "🙂", "!", "&a", "*a", "%", "@", "`", "[x]", "{y}"])),
                 min_size=1, max_size=200)


def _reads_back(text: str, spec: dict) -> None:
    assert max(len(line) for line in text.split("\n")) <= MAX_LINE_CHARS
    assert load_with_lines(text)[0] == spec
    assert yaml.safe_load(text) == spec
    parsed = parse_skill_md(f"---\n{text}---\nbody\n", strict=True)
    assert not [f for f in parsed.findings if f.rule == "frontmatter-line-too-long"]


@settings(max_examples=300, deadline=None)
@given(WORDS)
def test_text_of_words_is_written_in_short_lines_and_reads_back(words):
    description = " ".join(words)
    spec = {"name": "x", "description": description, "metadata": {"note": description}}
    text = dump_frontmatter(spec)
    _reads_back(text, spec)
    if len(description) + len("description: ") > MAX_LINE_CHARS and all(len(w) < WIDTH - 4 for w in words):
        assert "description: >-\n" in text  # folded, every line at most WIDTH characters
        assert max(len(line) for line in text.split("\n")) <= WIDTH


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=1100))
def test_any_text_is_written_exactly_or_refused(value):
    spec = {"name": "x", "description": value}
    try:
        text = dump_frontmatter(spec)
    except FoldError as exc:
        assert exc.key == "description" and exc.reason
        return
    _reads_back(text, spec)


@pytest.mark.parametrize("value", [
    "Use when: the user asks. " * 40,            # trailing space, `: ` inside
    "a  b " * 150,                               # runs of spaces a fold would lose
    "line one\nline two  \n\n" + "word " * 120,  # lines ending in spaces, empty lines
    "\ttab first " + "x " * 300,
    "nel\x85 and ls\u2028 " * 60,                 # characters YAML reads as line breaks
])
def test_values_a_fold_would_change_take_another_short_form(value):
    spec = {"name": "x", "description": value}
    _reads_back(dump_frontmatter(spec), spec)


def test_a_word_longer_than_a_line_is_refused_with_the_field():
    with pytest.raises(FoldError) as caught:
        dump_frontmatter({"name": "x", "description": "y" * (MAX_LINE_CHARS + 1)})
    assert caught.value.key == "description" and str(MAX_LINE_CHARS) in caught.value.reason


def test_short_values_stay_on_one_line_as_before():
    assert dump_frontmatter({"name": "x", "description": "Does a thing. Use when: asked.", "metadata": {"v": "1.10"}}) \
        == "name: x\ndescription: 'Does a thing. Use when: asked.'\nmetadata:\n  v: \"1.10\"\n"
