"""The canonical JSON writer: one compact line per entry of a large collection, and nothing lost."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.registry.compile import COMMIT_SLOT, UPDATED_SLOT, compact, dumps, dumps_prepared, fill_line

text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), text)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
                      max_leaves=8)
documents = st.dictionaries(text, st.one_of(values, st.lists(st.dictionaries(text, values, min_size=1, max_size=3),
                                                             min_size=1, max_size=4),
                                            st.dictionaries(text, st.dictionaries(text, values, min_size=1, max_size=2),
                                                            min_size=1, max_size=4)), max_size=5)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_dumps_round_trips_and_is_canonical(document):
    text_out = dumps(document)
    assert json.loads(text_out) == document
    assert dumps(json.loads(text_out)) == text_out
    assert text_out.endswith("\n")


def test_each_collection_entry_is_one_line():
    doc = {"name": "r", "skills": [{"b": 1, "a": [1, 2]}, {"a": "x\ny"}], "by_name": {"z": {"v": 1}, "a": {"v": 2}}}
    lines = dumps(doc).splitlines()
    assert '    {"a":[1,2],"b":1},' in lines and '    {"a":"x\\ny"}' in lines
    assert lines.index('    "a": {"v":2},') < lines.index('    "z": {"v":1}')


def test_prepared_lines_equal_encoding_the_document():
    items = [{"name": "a", "commit": "c1"}, {"name": "b", "commit": "c2"}]
    lines = [fill_line(compact({**item, "commit": COMMIT_SLOT}), item["commit"]) for item in items]
    assert dumps_prepared({"n": 1}, {"skills": ("[", lines)}) == dumps({"n": 1, "skills": items})
    assert dumps_prepared({"n": 1}, {"skills": ("[", [])}) == dumps({"n": 1, "skills": []})
    slot_line = compact({"commit": COMMIT_SLOT, "updated_at": UPDATED_SLOT})
    assert json.loads(fill_line(slot_line, 'quote"d', "2026-01-01T00:00:00Z")) == {
        "commit": 'quote"d', "updated_at": "2026-01-01T00:00:00Z"}
