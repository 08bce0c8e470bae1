"""format/jsonout.dumps_sorted must give json.dumps(..., ensure_ascii=False, indent=2, sort_keys=True)'s exact
bytes for any data, and json's own answer or error for what it does not handle itself."""

from __future__ import annotations

import json
from collections import OrderedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.jsonout import dumps_sorted


def reference(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True)


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | \
    st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('"\\\n\t\x00\x7f\u2028\ufeff'))
documents = st.recursive(scalars, lambda children: st.lists(children, max_size=5) |
                         st.dictionaries(st.text(max_size=8), children, max_size=5) |
                         st.tuples(children, children), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_same_bytes_as_json(data):
    assert dumps_sorted(data) == reference(data)


@pytest.mark.parametrize("data", [
    {}, [], {"a": {}, "b": []}, {"a": [[], {}]}, "", {"é": "ü", "\u2028": "\ud800"}, [1.0, -0.0, 1e300, 10**30],
    {1: "int key", 2: "x"}, {None: 1}, {True: 2, False: 1}, {1.5: 0, 0.5: 1}, OrderedDict([("b", 1), ("a", 2)]), [True, 1, False, 0],
    {"deep": [[[[[[[[[[[[[[[["leaf"]]]]]]]]]]]]]]]]},
])
def test_edge_cases(data):
    assert dumps_sorted(data) == reference(data)


def test_deep_data_falls_back_to_json():
    data: list = []
    for _ in range(300):
        data = [data]
    assert dumps_sorted(data) == reference(data)


def test_errors_are_json_errors():
    looped: list = []
    looped.append(looped)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_sorted(looped)
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_sorted({"a": {1, 2}})
    with pytest.raises(TypeError):
        dumps_sorted({1: "a", "b": 2})  # keys json cannot sort
