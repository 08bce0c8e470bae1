"""source.yaml's `verification` block (issue 26 item 6): only the shared model's fields, each bounded; `verified:
true` only with who approved, where and when; registry.json gets `verified` on every pointer entry."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.pointer import dump_pointer, parse_pointer

GOOD = {
    "schema_version": 1, "name": "alpha",
    "upstream": {"host": "github", "repository": "up/skills", "path": "skills/alpha", "commit": "a" * 40,
                 "tracks": "main"},
    "license": "MIT",
    "skill": {"name": "alpha", "description": "Does alpha."},
    "files": [{"path": "SKILL.md", "size": 10, "sha256": "b" * 64}],
}
APPROVED = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/o/r/pull/7",
            "approved_at": "2026-11-26T10:00:00Z", "checked_at": "2026-11-26T11:00:00Z"}


def with_verification(block) -> dict:
    data = copy.deepcopy(GOOD)
    data["verification"] = block
    return data


def parsed(data: dict):
    return parse_pointer(dump_pointer(data), folder_name="alpha")


def test_a_pointer_without_the_block_is_an_unverified_entry():
    pointer, problems = parsed(GOOD)
    assert problems == []
    entry = pointer.entry("skills/alpha")
    assert entry["verified"] is False and "verification" not in entry


def test_an_approved_pin_carries_its_facts_into_the_entry():
    pointer, problems = parsed(with_verification(APPROVED))
    assert problems == []
    entry = pointer.entry("skills/alpha")
    assert entry["verified"] is True
    assert entry["verification"] == {k: v for k, v in APPROVED.items() if k != "verified"}
    checked_only = parsed(with_verification({"verified": False, "checked_at": "2026-11-26T11:00:00Z"}))[0]
    assert checked_only.entry("skills/alpha")["verification"] == {"checked_at": "2026-11-26T11:00:00Z"}


def test_every_field_is_optional_as_the_shared_model_says():
    pointer, problems = parsed(with_verification({"verified": True, "approved_by": "maintainer"}))
    assert problems == [] and pointer.entry("skills/alpha")["verification"] == {"approved_by": "maintainer"}
    assert parsed(with_verification({}))[0].entry("skills/alpha")["verified"] is False


def test_approval_facts_on_an_unverified_pin_are_refused():
    pointer, problems = parsed(with_verification({"verified": False, "approved_by": "maintainer"}))
    assert pointer is None and problems[0].field == "verification"
    assert "only with `verified: true`" in problems[0].message and "bot records" in problems[0].fix


def test_free_form_keys_and_bad_values_are_refused():
    for block in ({"verified": False, "note": "trust me"}, {"verified": "yes"},
                  {**APPROVED, "approved_by": "a b"}, {**APPROVED, "approved_in": "javascript:alert(1)//pull/1"},
                  {**APPROVED, "approved_at": "yesterday"}, {"checked_at": "2026-11-26"},
                  {**APPROVED, "approved_in": "https://github.com/o/r/pull/" + "9" * 300}):
        pointer, problems = parsed(with_verification(block))
        assert pointer is None and problems[0].field.startswith("verification"), block


_values = st.one_of(st.booleans(), st.none(), st.integers(-1000, 1000), st.text(max_size=40),
                    st.lists(st.text(max_size=5), max_size=2), st.sampled_from(list(APPROVED.values())))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from([*APPROVED, "other"]), _values, max_size=6))
def test_any_block_parses_consistently_or_is_refused_by_field(block):
    pointer, problems = parsed(with_verification(block))
    if pointer is None:
        assert problems and all(p.field and p.field.startswith("verification") for p in problems)
        return
    entry = pointer.entry("skills/alpha")
    assert entry["verified"] is (block.get("verified") is True)
    if not entry["verified"]:
        assert not {"approved_by", "approved_in", "approved_at"} & set(entry.get("verification", {}))
