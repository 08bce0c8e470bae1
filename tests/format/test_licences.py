"""The redistribution rule for pointer skills' upstream content (format/licences.py): an SPDX expression subset,
parsed with bounds; unknown means not allowed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format import licences
from skillyard.format.licences import ALLOWED, LicenceSyntaxError, decide, parse

ALLOWED_IDS = sorted(["MIT", "Apache-2.0", "MPL-2.0", "BSD-3-Clause", "ISC", "0BSD", "Unlicense", "CC-BY-4.0"])
OTHER_IDS = ["GPL-3.0-only", "AGPL-3.0-or-later", "CC-BY-SA-4.0", "CC-BY-NC-4.0", "LicenseRef-Proprietary",
             "LGPL-2.1-only", "SSPL-1.0"]


@pytest.mark.parametrize(("value", "allowed"), [
    ("MIT", True), ("mit", True), ("Apache-2.0", True), ("MPL-2.0", True), ("MPL-2.0+", True),
    ("MIT OR GPL-3.0-only", True), ("GPL-3.0-only OR MIT", True), ("MIT AND Apache-2.0", True),
    ("MIT AND GPL-3.0-only", False), ("(MIT OR GPL-2.0-only) AND BSD-2-Clause", True),
    ("Apache-2.0 WITH LLVM-exception", True), ("MIT WITH Some-Unknown-exception", False),
    ("GPL-2.0-only WITH Classpath-exception-2.0", False),
    ("GPL-3.0-only", False), ("LicenseRef-Proprietary", False), ("CC-BY-NC-4.0", False),
    # not SPDX expressions: the words people write instead
    ("LICENSE", False), ("MIT License", False), ("see LICENSE.txt", False), ("", False), ("   ", False),
    ("MIT or Apache-2.0", False), ("(MIT", False), ("MIT)", False), ("AND MIT", False), ("MIT AND", False),
    ("MIT WITH", False), ("DocumentRef-x:LicenseRef-y", False),
])
def test_examples(value, allowed):
    assert decide(value).allowed is allowed


def test_values_that_are_not_text_are_not_allowed():
    for value in (None, 3, ["MIT"], {"spdx": "MIT"}):
        assert decide(value).allowed is False


def test_depth_and_length_are_bounded():
    assert decide("(" * 8 + "MIT" + ")" * 8).allowed
    with pytest.raises(LicenceSyntaxError, match="deeper"):
        parse("(" * 9 + "MIT" + ")" * 9)
    with pytest.raises(LicenceSyntaxError, match="longer"):
        parse(" OR ".join(["MIT"] * 60))
    assert decide("(" * 5000).allowed is False  # no recursion error, just "no"


def test_every_listed_identifier_is_allowed_alone():
    assert all(decide(name).allowed for name in ALLOWED)


ids = st.sampled_from(ALLOWED_IDS + OTHER_IDS)


def expressions(max_leaves: int = 6):
    """(text, expected decision) pairs built from the grammar, so the expected value is known independently."""
    leaf = ids.map(lambda name: (name, name in ALLOWED_IDS))

    def extend(children):
        both = st.tuples(children, children)
        return st.one_of(
            both.map(lambda p: (f"({p[0][0]} OR {p[1][0]})", p[0][1] or p[1][1])),
            both.map(lambda p: (f"({p[0][0]} AND {p[1][0]})", p[0][1] and p[1][1])),
        )

    return st.recursive(leaf, extend, max_leaves=max_leaves)


@settings(max_examples=300, deadline=None)
@given(expressions())
def test_generated_expressions_follow_or_any_and_all(pair):
    text, expected = pair
    if text.count("(") > licences.MAX_DEPTH or len(text) > licences.MAX_CHARS:
        return
    assert decide(text).allowed is expected


@settings(max_examples=300, deadline=None)
@given(expressions(4))
def test_outer_parentheses_and_spacing_do_not_change_the_decision(pair):
    text, expected = pair
    if text.count("(") >= licences.MAX_DEPTH or len(text) + 8 > licences.MAX_CHARS:
        return
    assert decide(f"  ( {text} )  ").allowed is expected


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gets_a_decision_and_never_an_error(text):
    decision = decide(text)
    assert isinstance(decision.allowed, bool) and decision.reason
    if decision.allowed:  # only expressions of listed IDs pass: every word is an operator, a listed ID or a paren
        words = text.replace("(", " ").replace(")", " ").split()
        assert all(w in ("AND", "OR", "WITH") or w.removesuffix("+").lower() in ALLOWED
                   or w.lower() in licences.ALLOWED_EXCEPTIONS for w in words)


@settings(max_examples=300, deadline=None)
@given(expressions(4), st.sampled_from(["GPL-3.0-only", "LicenseRef-x"]))
def test_and_with_a_disallowed_licence_is_never_allowed(pair, other):
    text, _ = pair
    if text.count("(") >= licences.MAX_DEPTH or len(text) + 20 > licences.MAX_CHARS:
        return
    assert decide(f"{text} AND {other}").allowed is False
