"""Whose word a pointer skill's licence is: upstream's, as `format.licence_text.find` reads it at the pinned commit.

The site redistributes a pointer's content under its `license`, so that value must be what upstream granted. The
registry may set one (`external add --license`) only where upstream names none at all -- no frontmatter
`license`, no LICENSE/COPYING file in the skill folder or at the repository root, none in GitHub's API -- and the
pointer then says so (`license_source: registry`; registry.json `source.license_source`; the page shows it as set
by the registry). Terms upstream states that Skillyard cannot read (a proprietary LICENSE.txt) are still upstream's
word: NOASSERTION, never overridden. One set of rules for every path that writes or checks a licence:
- `choose` (add, bump): add's `--license` is refused over a licence upstream names; a bump keeps a registry-set
  licence only while upstream still names none, and never carries forward one upstream withdrew (NOASSERTION);
- `mismatch` (external verify): the recorded licence against the lookup at the pin;
- `change_reasons` (the bump's automerge rule): any change of the licence, or of who set it, waits for a maintainer.
Pure: dicts and `Found` in, values out; a refusal raises SkillyardError.
"""

from __future__ import annotations

from skillyard.errors import SkillyardError
from skillyard.format.licence_text import NOASSERTION, NOWHERE, Found

REGISTRY = "registry"  # `license_source` of a licence this registry set because upstream names none
_REGISTRY_SOURCES = frozenset({REGISTRY, "--license"})  # "--license": what add recorded before this rule


def set_by_registry(data: dict) -> bool:
    """Whether a pointer document's `license` was set by this registry rather than read upstream."""
    return data.get("license_source") in _REGISTRY_SOURCES and data.get("license") not in (None, "", NOASSERTION)


def names_none(found: Found) -> bool:
    """Upstream states no licence anywhere the lookup reads (not: states terms Skillyard does not recognise)."""
    return found.spdx == NOASSERTION and found.source == NOWHERE


def describe(found: Found) -> str:
    """What upstream names, in words: `MIT (LICENSE in the skill folder)`, or why it is NOASSERTION."""
    if names_none(found):
        return "no licence"
    if found.spdx == NOASSERTION:
        return f"terms Skillyard does not recognise ({found.source}), recorded as NOASSERTION"
    return f"{found.spdx} ({found.source})"


def choose(found: Found, *, where: str, given: str | None = None, previous: dict | None = None) -> Found:
    """The licence a pointer records, from the lookup's `found`: `given` (add's --license) only when upstream
    names none (the same value upstream names is upstream's, not an override); a bump's `previous` pointer keeps a
    registry-set licence only while upstream still names none. Everything else is upstream's word as found."""
    if given:
        if names_none(found):
            return Found(given, REGISTRY)
        if found.spdx == given:
            return found
        raise SkillyardError(
            f"{where}: --license {given} would override the licence upstream states: upstream names "
            f"{describe(found)}. A registry may set a licence only when upstream names none",
            "Leave out --license: the pointer records what upstream names. If upstream's statement is wrong or "
            "unreadable, ask its authors to state an SPDX licence (frontmatter `license` or a LICENSE file).")
    if previous is not None and set_by_registry(previous) and names_none(found):
        return Found(previous["license"], REGISTRY)
    return found


def mismatch(recorded: dict, found: Found, file: str) -> dict | None:
    """The difference between a pointer's recorded `license` and the lookup at its pin (None: it holds), as
    external verify reports it: the file, the field, both values, what upstream names and the fix."""
    licence = recorded.get("license")
    if set_by_registry(recorded):
        if names_none(found):
            return None
        message = (f"{file}: `license` {licence} is set by the registry (`license_source: "
                   f"{recorded.get('license_source')}`), but upstream names {describe(found)}: a registry-side "
                   "licence stands only while upstream names none")
    elif licence == found.spdx:
        return None
    else:
        message = f"{file}: `license` is {licence}, but upstream names {describe(found)} at the pinned commit"
    fix = (f"Set `license: {found.spdx}` in {file}"
           + (" and remove `license_source`" if set_by_registry(recorded) else "")
           + " (or write the pointer again with `skillyard external add`): a pointer records the licence upstream "
             "grants, never another.")
    if names_none(found):
        fix += (" Upstream names none, so a maintainer who has checked the terms may set one with "
                "`skillyard external add --license SPDX-ID` (recorded as `license_source: registry`).")
    return {"kind": "licence", "field": "license", "file": file, "recorded": licence, "found": found.spdx,
            "upstream": describe(found), "message": message, "fix": fix}


def change_reasons(base: dict, head: dict) -> list[str]:
    """Why a bump from pointer `base` to `head` changes the licence (empty: it does not): the pointer's `license`,
    the skill's own `license` field, or who set it (upstream or this registry). Each waits for a maintainer."""
    reasons = []
    old_skill, new_skill = (base.get("skill") or {}).get("license"), (head.get("skill") or {}).get("license")
    if base.get("license") != head.get("license") or old_skill != new_skill:
        withdrawn = (" -- upstream no longer names a licence Skillyard recognises, so nothing is carried forward"
                     if head.get("license") == NOASSERTION and base.get("license") != NOASSERTION else "")
        reasons.append(f"the licence changed ({base.get('license')} -> {head.get('license')}"
                       + (f"; the skill's `license` {old_skill} -> {new_skill}" if old_skill != new_skill else "")
                       + withdrawn + ")")
    elif set_by_registry(base) != set_by_registry(head):
        reasons.append("the licence is now " + ("set by this registry" if set_by_registry(head) else
                                                "named by upstream") + " (`license_source`)")
    return reasons
