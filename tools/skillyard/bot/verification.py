"""Verified pins as pure decisions: which approval verifies a pin, what a pointer's `verification` block becomes
when the PR that touched it merges, and whether a PR edits the block it may not write.

`verified: true` means a maintainer of this registry (write, maintain or admin permission, as the automerge rules
count them) approved the PR that set this exact pin, and the approval stands on the commit that was merged. The
facts come from the API (reviews with their commit and user, permissions); nothing the PR's author writes counts,
so the block is always rebuilt from them and a hand edit never survives a merge; and every publish run re-derives
every `verified: true` block from them again (`disproof`), so one a skipped run left behind does not survive either.
`skillyard.bot.verification_io`, `verification_git` and `verification_proof` gather the facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from skillyard.bot.decide import Review, normalise_handle, standing_reviews

# The fields only the bot writes; `checked_at` belongs to the pin re-check (external verify, with --record).
APPROVAL_FIELDS = ("verified", "approved_by", "approved_in", "approved_at")


def pin_of(data: dict | None) -> tuple[str, str, str] | None:
    """What a pin is: the upstream repository, folder and commit (None for no pointer)."""
    if not isinstance(data, dict) or not isinstance(data.get("upstream"), dict):
        return None
    upstream = data["upstream"]
    return (str(upstream.get("repository", "")).lower(), str(upstream.get("path", "")), str(upstream.get("commit", "")))


def block_of(data: dict | None) -> dict:
    block = data.get("verification") if isinstance(data, dict) else None
    return dict(block) if isinstance(block, dict) else {}


def approval_fields(block: dict) -> dict:
    """The bot's part of a block, with an absent `verified` read as false."""
    out = {k: block[k] for k in APPROVAL_FIELDS if k in block}
    out["verified"] = out.get("verified") is True
    return out


def iso_utc(when: datetime | None) -> str | None:
    if when is None:
        return None
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def verifying_approval(reviews: Iterable[Review], head_sha: str, maintainers: frozenset[str],
                       author: str) -> Review | None:
    """The approval that verifies the pins of a merged PR: a standing APPROVED review on the merged head commit by
    a maintainer who is neither the PR's author nor a bot account. The earliest such review (then by login), so the
    answer does not depend on the order the API lists them in."""
    who_wrote = normalise_handle(author)
    found = []
    for login, review in standing_reviews(reviews).items():
        if (review.state == "APPROVED" and review.commit_id == head_sha and login in maintainers
                and login != who_wrote and not login.endswith("[bot]")):
            found.append((iso_utc(review.submitted_at) or "", login, review))
    return min(found, key=lambda item: item[:2])[2] if found else None


def recorded_block(*, base: dict | None, merged: dict, approval: Review | None, pr_url: str) -> dict:
    """The `verification` block a pointer gets when the PR that touched it merges.

    `base` is the pointer before the PR (None when the PR added it), `merged` the one it merged. When the PR set
    the pin (a new pointer, or another repository, folder or commit), the pin is verified exactly when `approval`
    is given. When it left the pin alone, the approval fields stay what they were before the PR, whatever the PR
    wrote. `checked_at` is kept from the merged pointer: the pin re-check writes it, not the bot, and a bump writes
    a fresh block without it."""
    checked = block_of(merged).get("checked_at")
    if base is not None and pin_of(base) == pin_of(merged):
        block = approval_fields(block_of(base))
    elif approval is not None:
        block = {"verified": True, "approved_by": normalise_handle(approval.user) or approval.user,
                 "approved_in": pr_url, "approved_at": iso_utc(approval.submitted_at)}
        if block["approved_at"] is None:
            block = {"verified": False}
    else:
        block = {"verified": False}
    if isinstance(checked, str):
        block["checked_at"] = checked
    return block


def self_verification(base: dict | None, head: dict | None) -> bool:
    """True when a PR writes approval facts into a pointer: `verified: true` or an `approved_*` field that the
    base branch's pointer does not have with the same pin. Setting `verified: false` (what `external add` and
    `bump` write for a new pin) is never one."""
    if head is None:
        return False
    claimed = approval_fields(block_of(head))
    if not claimed["verified"] and len(claimed) == 1:
        return False
    if base is None or pin_of(base) != pin_of(head):
        return True
    return claimed != approval_fields(block_of(base))


def pull_number_in(url: object) -> int | None:
    """The PR number an `approved_in` address ends with (`…/pull/N`), or None when it names none."""
    import re

    found = re.fullmatch(r"[^\s]{1,400}/pull/([1-9][0-9]{0,9})", url) if isinstance(url, str) else None
    return int(found.group(1)) if found else None


def disproof(block: dict, *, pr_url: str, merged: bool, author: str, head_sha: str, reviews: Iterable[Review],
             maintainers: frozenset[str], pin_now: tuple | None, pin_merged: tuple | None,
             pin_before: tuple | None) -> str | None:
    """Why a `verified: true` block cannot be re-derived from the facts (None when it can), checked again on every
    publish run for every pointer that claims it, so no block stands on what a run that never happened would
    have undone.

    It stands only when `approved_in` is `pr_url` (the address the API gives that PR of this repository), that
    PR is merged into the default branch (`merged`), `approved_by` is a maintainer (`maintainers`: write,
    maintain or admin now), neither the PR's author nor a bot, whose standing review is an approval of the PR's
    head commit submitted at `approved_at`, and the PR set this exact pin: the pointer's pin when the PR merged
    (`pin_merged`) is the pin now and differs from the one before the merge (`pin_before`)."""
    login = normalise_handle(block.get("approved_by"))
    review = standing_reviews(reviews).get(login or "")
    problems = (
        (block.get("approved_in") != pr_url, "approved_in is not the address of a PR of this repository"),
        (not merged, "the PR it names is not merged into the default branch"),
        (login is None, "approved_by is not a GitHub login"),
        (login == normalise_handle(author), "approved_by is the PR's author"),
        (login is not None and login.endswith("[bot]"), "approved_by is a bot account"),
        (login not in maintainers, "approved_by has no write, maintain or admin permission"),
        (review is None or review.state != "APPROVED" or review.commit_id != head_sha,
         "approved_by has no standing approval of the PR's merged head commit"),
        (review is not None and iso_utc(review.submitted_at) != block.get("approved_at"),
         "approved_at is not the time of that approval"),
        (pin_merged is None or pin_merged != pin_now, "the pin is not the one that PR merged"),
        (pin_before is not None and pin_before == pin_merged, "that PR did not set this pin"),
    )
    return next((why for failed, why in problems if failed), None)
