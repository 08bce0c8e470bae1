"""When a bump PR (opened by `skillyard bot open-bump-prs` from `skillyard external bump`) may merge by itself.

A bump PR moves one pointer's pin and nothing else. It may be automerged, with no maintainer, only when every rule
holds; otherwise it waits for a maintainer and the decision says why:
- it is a bump PR: branch `bump/<name>` in this repository, opened by the bump bot, into the default branch;
- it changes only `<skills>/<name>/source.yaml` (modified; nothing else, nothing added, removed or renamed);
- both versions parse as pointers, and only the pin-related fields differ: `upstream.commit`, `files`, `skill`
  (the metadata read upstream), `findings`; the registry block, name and schema version are untouched;
- the upstream repository, folder and tracked ref are unchanged;
- the licence is unchanged (the pointer's `license` and the skill's own `license` field);
- the new pin's `verification` is exactly `{verified: false}`;
- no security finding in the new pin that the base pin did not have, a finding being its rule, file and the digest
  of the whole text it matched (`findings.finding_identity`), so a change past what a message quotes is new;
- no file that carries a reviewed security exception (an `allowed` finding, or an entry of
  `registry.security_exceptions`) changed: the reviewed code is not what the new pin holds;
- the new pin widens no capability and no allowed tool, and changes neither `author` nor `maintainers` (they decide
  who owns the folder): `format.meaning_change`; a narrowing is listed in the PR body and may merge;
- the skill's owners opted in: `registry: {auto_bump: true}` in the BASE branch's source.yaml (the head's own
  opt-in counts for nothing);
- the registry's validate workflow succeeded on the head commit with an `ok` report of that commit, every other
  check and status is green, no blocking label and no review requesting changes.

Pure: facts in, a `decide.Decision` out.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from skillyard.bot import decide
from skillyard.format import licence_facts
from skillyard.format.pointer import POINTER_FILE, parse_pointer
from skillyard.format.pointer_change import is_security, new_findings

BRANCH_PREFIX = "bump/"
DEFAULT_BUMP_AUTHOR = "github-actions[bot]"
PIN_FIELDS = frozenset({"upstream", "files", "skill", "findings", "verification"})
UPSTREAM_FIELDS = ("host", "repository", "path", "tracks")


def bump_branch(name: str) -> str:
    return BRANCH_PREFIX + name


def is_bump_branch(ref: str | None) -> bool:
    return isinstance(ref, str) and ref.startswith(BRANCH_PREFIX) and len(ref) > len(BRANCH_PREFIX)


@dataclass(frozen=True)
class BumpFacts:
    """The generic automerge facts (checks, report, labels, reviews, file list), plus what only a bump needs."""

    facts: decide.AutomergeFacts
    head_ref: str
    head_repo: str
    base_repo: str
    files: tuple[decide.PrFile, ...]
    base_source: str | None      # skills/<name>/source.yaml on the base branch (None: absent or unreadable)
    head_source: str | None      # the same file at the head commit
    bump_author: str = DEFAULT_BUMP_AUTHOR

    @property
    def name(self) -> str:
        return self.head_ref[len(BRANCH_PREFIX):]

    @property
    def pointer_path(self) -> str:
        return f"{self.facts.skills_dir}/{self.name}/{POINTER_FILE}"


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _parsed(text: str | None, name: str, which: str, reasons: list[str]) -> dict | None:
    if text is None:
        reasons.append(f"the {which} has no readable {POINTER_FILE} for `{name}`")
        return None
    pointer, problems = parse_pointer(text, folder_name=name)
    if pointer is None:
        reasons.append(f"the {which} {POINTER_FILE} of `{name}` is not a valid pointer: {problems[0].message}")
        return None
    return pointer.data


def _identity_reasons(f: BumpFacts) -> list[str]:
    reasons = []
    if f.head_repo.lower() != f.base_repo.lower():
        reasons.append(f"the branch is in {f.head_repo}, not in {f.base_repo}: bump PRs come from this repository")
    if decide.normalise_handle(f.facts.author) != decide.normalise_handle(f.bump_author):
        reasons.append(f"the PR was opened by @{f.facts.author}, not by the bump bot @{f.bump_author}")
    return reasons


def _file_reasons(f: BumpFacts) -> list[str]:
    want = f.pointer_path
    others = [p.path for p in f.files if p.path != want or (p.previous and p.previous != want)]
    reasons = []
    if others:
        reasons.append(f"the PR changes more than `{want}`: " + ", ".join(others[:5])
                       + (f" and {len(others) - 5} more" if len(others) > 5 else ""))
    mine = [p for p in f.files if p.path == want]
    if not mine:
        reasons.append(f"the PR does not change `{want}`")
    elif any(p.status != "modified" for p in mine):
        reasons.append(f"`{want}` is {mine[0].status}, not modified: only an existing pointer is bumped")
    if f.facts.changes.problems:
        reasons += [f"the file list: {problem}" for problem in f.facts.changes.problems]
    return reasons


def _content_reasons(base: dict, head: dict) -> list[str]:
    """What the new pin's content means, each check a pure function of the two pointer documents (one line each)."""
    # imported here, not at the top: the top import block stays as the licence check left it
    from skillyard.format import meaning_change

    reasons = meaning_change.maintainer_reasons(meaning_change.meaning_changes(base, head))
    touched = meaning_change.exception_files_touched(base, head)
    if touched:
        reasons.append("the new pin changes " + ", ".join(f"`{p}`" for p in touched[:decide.MAX_NAMED_FINDINGS])
                       + ", which carries a reviewed security exception: a maintainer reviews the new code")
    return reasons


def _pointer_reasons(base: dict, head: dict) -> list[str]:
    reasons = []
    # `license_source` (where add found the licence) follows the lookup; the licence itself is checked below
    other = sorted((set(base) | set(head)) - PIN_FIELDS - {"license", "license_source"})
    moved = [key for key in other if not _same(base.get(key), head.get(key))]
    if moved:
        reasons.append("fields other than the pin changed: " + ", ".join(f"`{k}`" for k in moved))
    upstream = [k for k in UPSTREAM_FIELDS if base["upstream"].get(k) != head["upstream"].get(k)]
    if upstream:
        reasons.append("the upstream changed (" + ", ".join(f"`upstream.{k}`" for k in upstream)
                       + "): a maintainer reviews a skill that moves")
    reasons += licence_facts.change_reasons(base, head)  # the licence, or who set it (format/licence_facts.py)
    if head.get("verification") != {"verified": False}:
        reasons.append("the new pin's `verification` is not reset to `{verified: false}`")
    appeared, _ = new_findings(base.get("findings") or [], head.get("findings") or [])
    security = [x for x in appeared if is_security(x)]
    if security:
        named = ", ".join(f"{x.get('rule')} in {x.get('file') or '.'}" for x in security[:decide.MAX_NAMED_FINDINGS])
        reasons.append(f"{len(security)} new security finding(s) compared with the base pin: {named}")
    if (base.get("registry") or {}).get("auto_bump") is not True:
        reasons.append("the skill's owners have not opted in (`registry: {auto_bump: true}` in source.yaml on the "
                       "default branch)")
    return reasons


def _gate_reasons(f: BumpFacts) -> tuple[list[str], list[str]]:
    """The generic gates: open, into the default branch, the validate run and its report, every check green."""
    facts = f.facts
    reasons: list[str] = []
    pending: list[str] = []
    if facts.state != "open":
        reasons.append(f"the PR is {facts.state}")
    if facts.base_ref != facts.default_branch:
        reasons.append(f"the PR targets `{facts.base_ref}`, not the default branch `{facts.default_branch}`")
    for who, review in sorted(decide.standing_reviews(facts.reviews).items()):
        if review.state == "CHANGES_REQUESTED":
            reasons.append(f"@{who} requests changes")
    required, waiting = decide._required_check_reasons(facts)
    reasons += required
    pending += waiting
    if not required and not waiting:
        report = facts.report
        if facts.report_problem or report is None:
            reasons.append(f"the `{facts.required_check}` report of {facts.head_sha[:12]} cannot be used: "
                           f"{facts.report_problem or 'none was read'}")
        elif report.get("commit") != facts.head_sha or not report.get("ok", False):
            reasons.append(f"the `{facts.required_check}` report is not an ok report of {facts.head_sha[:12]}")
    for check in facts.checks:
        if decide.check_is_required(check, facts.required_check):
            continue
        if check.status != "completed":
            pending.append(f"check `{check.name}` is {check.status}")
        elif (check.conclusion or "") not in decide.GREEN_CONCLUSIONS:
            reasons.append(f"check `{check.name}` concluded {check.conclusion}")
    if facts.status_count and facts.status_state == "pending":
        pending.append("the combined commit status is pending")
    elif facts.status_count and facts.status_state != "success":
        reasons.append(f"the combined commit status is {facts.status_state}")
    blocking = sorted(n for n in facts.labels if decide.label_key(n) in decide.label_keys(decide.BLOCKING_LABELS))
    if blocking:
        reasons.append("blocking label(s): " + ", ".join(blocking))
    return reasons, pending


def bump_decision(f: BumpFacts) -> decide.Decision:
    """Merge the bump PR only when every rule of the module docstring holds; every reason is collected."""
    reasons: list[str] = []
    if not is_bump_branch(f.head_ref):
        reasons.append(f"the branch `{f.head_ref}` is not a bump branch (`{BRANCH_PREFIX}<name>`)")
        return decide.Decision(merge=False, reasons=tuple(reasons))
    reasons += _identity_reasons(f)
    reasons += _file_reasons(f)
    base = _parsed(f.base_source, f.name, "default branch", reasons)
    head = _parsed(f.head_source, f.name, "head commit", reasons)
    if base is not None and head is not None:
        reasons += _pointer_reasons(base, head)
        reasons += _content_reasons(base, head)
    gates, pending = _gate_reasons(f)
    reasons += gates + pending
    return decide.Decision(merge=not reasons, reasons=tuple(reasons), details={"pending": tuple(pending)})
