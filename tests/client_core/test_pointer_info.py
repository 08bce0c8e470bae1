"""What `skill info` shows of a pointer entry comes from an untrusted registry: a value not of its documented form
is left out, never shown or linked (issue 26 item 7)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.client.pointer_info import lines, upstream

GOOD = {"name": "alpha", "source_url": "https://github.com/up/skills", "commit": "a" * 40, "path": "skills/alpha",
        "source": {"tracks": "main"}, "verified": True,
        "verification": {"approved_by": "octocat", "approved_in": "https://github.com/acme/reg/pull/4",
                         "approved_at": "2026-11-26T10:00:00Z", "checked_at": "2026-11-27T03:00:00Z"}}


def test_a_well_formed_entry_gives_links_and_the_approval():
    facts = upstream(GOOD)
    assert facts["commit_url"] == f"https://github.com/up/skills/commit/{'a' * 40}"
    assert facts["folder_url"] == f"https://github.com/up/skills/tree/{'a' * 40}/skills/alpha"
    assert (facts["approved_by"], facts["checked_at"]) == ("octocat", "2026-11-27T03:00:00Z")
    assert upstream({"name": "own"}) is None


def test_hostile_values_are_left_out():
    hostile = {**GOOD, "source_url": "javascript:alert(1)//github.com/a/b", "commit": "main\x1b[2J",
               "verification": {"approved_by": "\x1b]8;;https://evil\x07x", "approved_in": "javascript:x/pull/1",
                                "approved_at": "now", "checked_at": "\u202e2026"}}
    facts = upstream(hostile)
    assert facts["repository"] is facts["commit"] is facts["commit_url"] is facts["folder_url"] is None
    assert facts["approved_by"] is facts["approved_in"] is facts["approved_at"] is facts["checked_at"] is None
    assert upstream({**GOOD, "verified": "true"})["verified"] is False  # only a JSON true is verified
    assert upstream({**GOOD, "path": "skills/../../../evil"})["folder_url"] is None
    text = "\n".join(lines(facts))
    assert "\x1b" not in text and "javascript" not in text and "\u202e" not in text


_anything = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=30)),
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner,
                                                                                     max_size=3), max_leaves=8)


@settings(max_examples=200, deadline=None)
@given(st.fixed_dictionaries({"source_url": _anything}, optional={
    "commit": _anything, "path": _anything, "source": _anything, "verified": _anything, "verification": _anything}))
def test_any_entry_gives_printable_facts(entry):
    facts = upstream(entry)
    for line in lines(facts):
        assert not re.search(r"[\x00-\x1f\x7f\u202a-\u202e\u2066-\u2069]", line), line
