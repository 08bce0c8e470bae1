"""The pure rules of verified pins (bot/verification.py) over any input: only a maintainer's standing approval of
the merged head verifies a pin the PR set, and nothing a PR writes into the block survives or escapes the gate."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.bot.decide import Review
from skillyard.bot.verification import recorded_block, self_verification, verifying_approval

HEAD = "h" * 40
URL = "https://github.com/o/r/pull/9"
LOGINS = st.sampled_from(["maintainer", "other-writer", "author", "mallory", "renovate[bot]"])
REVIEWS = st.lists(st.builds(Review, st.sampled_from(["APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED"]),
                             st.sampled_from([HEAD, "o" * 40]),
                             st.just(datetime(2026, 11, 26, 10, tzinfo=UTC)), LOGINS), max_size=6)
BLOCKS = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "verified": st.booleans(), "approved_by": LOGINS, "approved_in": st.just(URL),
    "approved_at": st.just("2026-11-01T00:00:00Z"), "checked_at": st.just("2026-11-02T00:00:00Z")}))
COMMITS = st.sampled_from(["a" * 40, "c" * 40])
MAINTAINERS = frozenset({"maintainer", "other-writer", "author", "renovate[bot]"})


def pointer(commit: str, block) -> dict:
    data = {"upstream": {"repository": "up/skills", "path": "x", "commit": commit}}
    if block is not None:
        data["verification"] = block
    return data


@settings(max_examples=300, deadline=None)
@given(REVIEWS, COMMITS, BLOCKS, COMMITS, BLOCKS, st.booleans())
def test_only_a_standing_maintainer_approval_of_the_head_verifies_a_new_pin(reviews, base_commit, base_block,
                                                                             merged_commit, merged_block, added):
    approval = verifying_approval(reviews, HEAD, MAINTAINERS, "author")
    if approval is not None:
        assert approval.state == "APPROVED" and approval.commit_id == HEAD
        assert approval.user not in ("author", "mallory", "renovate[bot]")
        assert [r for r in reviews if r.user == approval.user][-1].state != "DISMISSED"
    base = None if added else pointer(base_commit, base_block)
    block = recorded_block(base=base, merged=pointer(merged_commit, merged_block), approval=approval, pr_url=URL)
    approvals = {k: v for k, v in block.items() if k != "checked_at"}
    if base is not None and base_commit == merged_commit:  # the pin stays: its approval stays, the PR's is ignored
        before = dict(base_block or {})
        assert approvals == {"verified": before.get("verified") is True,
                             **{k: v for k, v in before.items() if k.startswith("approved_")}}
    elif approval is None:
        assert approvals == {"verified": False}
    else:
        assert approvals == {"verified": True, "approved_by": approval.user, "approved_in": URL,
                             "approved_at": "2026-11-26T10:00:00Z"}


@settings(max_examples=300, deadline=None)
@given(COMMITS, BLOCKS, COMMITS, BLOCKS, st.booleans())
def test_the_gate_flags_every_approval_a_pr_claims(base_commit, base_block, head_commit, head_block, added):
    """A PR the gate lets through claims no approval beyond the one its pin already had on the base branch, and the
    merge-time rewrite (with no approval) keeps every approval fact it shows."""
    base = None if added else pointer(base_commit, base_block)
    head = pointer(head_commit, head_block)
    if self_verification(base, head):
        return
    claimed = normal(head_block)
    if claimed["verified"] or len(claimed) > 1:
        assert base is not None and base_commit == head_commit and claimed == normal(base_block)
        assert normal(recorded_block(base=base, merged=head, approval=None, pr_url=URL)) == claimed


def normal(block) -> dict:
    """A block's approval facts, an absent `verified` read as false."""
    out = {k: v for k, v in (block or {}).items() if k != "checked_at"}
    return {**out, "verified": out.get("verified") is True}
