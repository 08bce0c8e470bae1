"""The PR bot's decisions as pure functions: what a PR changes, which labels apply, whether to automerge.

Nothing here talks to GitHub. `skillyard.bot.github_io` gathers the facts (files, owners, checks, reviews) and
feeds them in, so every rule can be tested on plain data and again end to end against the API stand-in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from skillyard.bot.changes import (  # noqa: F401 - what a PR changes is part of the decisions' interface
    FILE_STATUSES,
    FILES_API_LIMIT,
    SKILLS_DIR,
    Changes,
    PrFile,
    SkillChange,
    as_pr_file,
    classify_changes,
    file_list_problems,
    skill_folder_of,
    touched_paths,
)

LABEL_NEW = "new-skill"
LABEL_UPDATE = "skill-update"
LABEL_INVALID = "invalid"
LABEL_TOOLING = "tooling"
LABEL_NEEDS_MAINTAINER = "needs-maintainer"
LABEL_SECURITY = "security-finding"
LABEL_AUTOMERGE = "automerge"
# The labels `bot report` adds and removes; any other label on a PR is left alone.
MANAGED_LABELS = frozenset({LABEL_NEW, LABEL_UPDATE, LABEL_INVALID, LABEL_TOOLING, LABEL_NEEDS_MAINTAINER,
                            LABEL_SECURITY})
# Labels that stop an automerge whoever set them.
BLOCKING_LABELS = frozenset({LABEL_INVALID, LABEL_NEEDS_MAINTAINER, LABEL_SECURITY})

GREEN_CONCLUSIONS = frozenset({"success", "neutral", "skipped"})
# The check automerge requires on the head commit when the registry's settings name none (`validate_check`).
DEFAULT_REQUIRED_CHECK = "validate"
# Only GitHub Actions runs of the registry's own workflows count as the required check: any installed app with
# `checks: write` can create a check run of any name.
ACTIONS_APP = "github-actions"
# Security findings this many are named in a refusal; the rest are counted.
MAX_NAMED_FINDINGS = 5
# Repository permissions (the collaborator-permission API) whose holders count as maintainers.
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
_HANDLE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38})(?:\[bot\])?\Z")


def normalise_handle(value: object) -> str | None:
    """A GitHub login in canonical form (lowercase, no `@`), or None when `value` cannot be one."""
    if not isinstance(value, str):
        return None
    handle = value.strip().lstrip("@").lower()
    return handle if _HANDLE.match(handle) else None


def owners_from_registry(registry: dict | None) -> dict[str, frozenset[str]]:
    """Skill folder (e.g. `skills/pdf-tools`) -> the GitHub handles of its author and maintainers."""
    owners: dict[str, frozenset[str]] = {}
    skills = (registry or {}).get("skills") if isinstance(registry, dict) else None
    for skill in skills if isinstance(skills, list) else []:
        if not isinstance(skill, dict) or not isinstance(skill.get("path"), str):
            continue
        people = [skill.get("author")]
        maintainers = skill.get("maintainers")
        if isinstance(maintainers, list):
            people += maintainers
        owners[skill["path"].strip("/")] = frozenset(h for h in map(normalise_handle, people) if h)
    return owners


def is_security_finding(finding: dict) -> bool:
    return str(finding.get("rule", "")).startswith("security-")


def report_has_security_findings(report: dict) -> bool:
    return any(is_security_finding(f) for s in report.get("skills", []) for f in s.get("findings", []))


def unowned_folders(changes: Changes, owners: dict[str, frozenset[str]], author: str) -> list[str]:
    """Existing skill folders the PR changes whose owners do not include `author` (a new skill's author owns it)."""
    who = normalise_handle(author)
    return [c.folder for c in changes.existing if who is None or who not in owners.get(c.folder, frozenset())]


def labels_for(changes: Changes, report: dict | None, owners: dict[str, frozenset[str]], author: str, *,
               exceptions_changed: Iterable[str] = (), exceptions_unknown: bool = False,
               verification_claimed: Iterable[str] = ()) -> set[str]:
    """The managed labels that apply to a PR. `report` is the validated artifact (None when there is none);
    `exceptions_changed` the skill folders whose `security_exceptions` differ from the base branch's, and
    `exceptions_unknown` whether some could not be compared; `verification_claimed` the pointer folders whose
    `verification` block the PR marks verified itself (only the bot records an approval: a maintainer looks).

    `security-finding` marks a security finding that is not acknowledged (see `security_reasons`): a finding a
    reviewed exception on the base branch allows does not get it, so it cannot block that skill's owner updates.
    """
    changed = tuple(exceptions_changed)
    labels: set[str] = set()
    if changes.new:
        labels.add(LABEL_NEW)
    if changes.existing:
        labels.add(LABEL_UPDATE)
    if changes.outside:
        labels.add(LABEL_TOOLING)
        if changes.skills:
            # A skill PR that also edits tooling needs a maintainer's eyes on the tooling part.
            labels.add(LABEL_NEEDS_MAINTAINER)
    if (changes.problems or unowned_folders(changes, owners, author) or changed or exceptions_unknown
            or tuple(verification_claimed)):
        labels.add(LABEL_NEEDS_MAINTAINER)
    if report is not None:
        if not report.get("ok", False) or any(not s.get("valid") for s in report.get("skills", [])):
            labels.add(LABEL_INVALID)
        if security_reasons(report, changed):
            labels.add(LABEL_SECURITY)
    return labels


def label_key(name: str) -> str:
    """GitHub compares label names without regard to letter case (`Security-Finding` is `security-finding`)."""
    return name.casefold()


def label_keys(names: Iterable[str]) -> frozenset[str]:
    return frozenset(map(label_key, names))


def has_label(labels: Iterable[str], name: str) -> bool:
    return label_key(name) in label_keys(labels)


def label_delta(current: set[str] | frozenset[str], wanted: set[str]) -> tuple[list[str], list[str]]:
    """(labels to add, managed labels to remove, as the PR spells them); labels the bot does not manage are never
    removed. Names compare like GitHub's, without letter case."""
    have = label_keys(current)
    want = label_keys(wanted)
    managed = label_keys(MANAGED_LABELS)
    add = sorted(name for name in wanted if label_key(name) not in have)
    remove = sorted(name for name in current if label_key(name) in managed and label_key(name) not in want)
    return add, remove


# ---- automerge ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    name: str
    status: str                 # queued | in_progress | completed
    conclusion: str | None      # success | failure | neutral | cancelled | skipped | timed_out | action_required
    app: str | None = None      # the slug of the app that created it (`github-actions` for workflow jobs)
    suite_id: int | None = None  # its check suite: a workflow run's jobs share the run's suite


@dataclass(frozen=True)
class ValidateRun:
    """The newest run of the registry's validate workflow for the head commit, as the Actions API reports it."""

    id: int
    name: str
    event: str
    head_sha: str
    status: str
    conclusion: str | None
    suite_id: int | None = None


def check_is_required(check: Check, required: str) -> bool:
    """A job of the `required` workflow: named `required`, or `required / <job>` (a job of a reusable workflow
    its caller job `required` calls), and created by GitHub Actions."""
    named = check.name == required or check.name.startswith(required + " / ")
    return named and check.app == ACTIONS_APP


@dataclass(frozen=True)
class Review:
    state: str                  # APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED | PENDING
    commit_id: str
    submitted_at: datetime | None = None
    user: str = ""


def standing_reviews(reviews: Iterable[Review]) -> dict[str, Review]:
    """Each reviewer's review that still stands, like GitHub's own rule: the latest APPROVED, CHANGES_REQUESTED
    or DISMISSED one (in the API's chronological order). A later COMMENTED review changes nothing; a DISMISSED
    one no longer blocks or approves."""
    standing: dict[str, Review] = {}
    for review in reviews:
        if review.state in ("APPROVED", "CHANGES_REQUESTED", "DISMISSED"):
            standing[normalise_handle(review.user) or review.user] = review
    return standing


@dataclass(frozen=True)
class AutomergeFacts:
    """Only facts the PR's author cannot forge: the API's file list, head SHA, labels with their actor, reviews
    with their commit, repository permissions. Commit dates are never used (the author sets them freely)."""

    author: str
    head_sha: str
    changes: Changes
    owners: dict[str, frozenset[str]]
    labels: frozenset[str]
    label_actor: str | None = None       # who last added `automerge`, from the issue events API
    writers: frozenset[str] = frozenset()  # normalised logins with write, maintain or admin permission
    checks: tuple[Check, ...] = ()
    status_state: str | None = None      # combined commit status: success | pending | failure | error
    status_count: int = 0
    reviews: tuple[Review, ...] = ()
    state: str = "open"
    base_ref: str = "main"
    default_branch: str = "main"
    skills_dir: str = SKILLS_DIR  # the registry's skill folder (`--skills-dir`), directly under the root
    required_check: str = DEFAULT_REQUIRED_CHECK  # `validate_check` in the registry's settings
    validate_run: ValidateRun | None = None  # the newest `required_check` workflow run of the head commit
    report: dict | None = None     # that run's report artifact, checked (artifact.py) and matched to this PR
    report_problem: str | None = None  # why there is no usable report (None while the run has not finished)
    exceptions_changed: tuple[str, ...] = ()  # skill folders whose skill.yaml `security_exceptions` differ from base
    exceptions_problems: tuple[str, ...] = ()  # skill.yaml files whose exceptions could not be compared
    verification_claimed: tuple[str, ...] = ()  # pointer folders whose `verification` the PR marks verified itself


@dataclass(frozen=True)
class Decision:
    merge: bool
    reasons: tuple[str, ...] = ()
    remove_label: bool = False
    details: dict = field(default_factory=dict)

    @property
    def waiting(self) -> bool:
        """True when the only thing missing is checks that have not finished: a later run may merge."""
        return bool(self.reasons) and len(self.details.get("pending", ())) == len(self.reasons)


def _review_reasons(facts: AutomergeFacts) -> tuple[list[str], bool]:
    """Reasons from reviews and the label's actor, and whether the `automerge` label must be withdrawn."""
    reasons: list[str] = []
    remove = False
    standing = standing_reviews(facts.reviews)
    for who, review in sorted(standing.items()):
        if review.state == "CHANGES_REQUESTED":
            reasons.append(f"@{who} requests changes")
    if not has_label(facts.labels, LABEL_AUTOMERGE):
        return reasons, remove
    actor = normalise_handle(facts.label_actor)
    if actor is None:
        reasons.append(f"who added the `{LABEL_AUTOMERGE}` label is unknown")
        return reasons, remove
    if actor not in facts.writers:
        reasons.append(f"the `{LABEL_AUTOMERGE}` label was added by @{actor}, who has no write access")
        return reasons, True
    # The labelling maintainer's approval must be on the current head: a commit pushed after it, whatever
    # committer date it claims, leaves the approval on an older SHA.
    approval = standing.get(actor)
    if approval is None or approval.state != "APPROVED":
        reasons.append(f"@{actor} added the `{LABEL_AUTOMERGE}` label but has not approved the PR")
    elif approval.commit_id != facts.head_sha:
        reasons.append(f"a commit landed after @{actor}'s approval ({approval.commit_id[:12]}); "
                       f"the head is {facts.head_sha[:12]}")
        remove = True
    return reasons, remove


def _required_check_reasons(facts: AutomergeFacts) -> tuple[list[str], list[str]]:
    """(reasons, pending) from the required check: a successful job of the registry's validate workflow, in the
    newest run of that workflow for the head commit. Another app's green check, a `[skip ci]` head (no run at
    all), or a skipped or neutral validate job never stands in for it."""
    name, head = facts.required_check, facts.head_sha[:12]
    run = facts.validate_run
    required = [c for c in facts.checks if check_is_required(c, name)]
    if run is None:
        if required:
            return [f"the required check `{name}` on {head} belongs to no `{name}` workflow run of a pull request"], []
        return [f"the required check `{name}` has not run on the head commit {head}: a `[skip ci]` commit never "
                f"runs it (push one that does); a `{name}` run that is only starting is decided on when it ends"], []
    if run.status != "completed":
        return [], [f"the `{name}` workflow run {run.id} is {run.status}"]
    if run.conclusion != "success":
        return [f"the `{name}` workflow run {run.id} concluded {run.conclusion}"], []
    jobs = [c for c in required if run.suite_id is None or c.suite_id == run.suite_id]
    if not jobs:
        return [f"the `{name}` workflow run {run.id} reported no `{name}` check run on {head}"], []
    reasons, pending = [], []
    for check in jobs:
        if check.status != "completed":
            pending.append(f"the required check `{check.name}` is {check.status}")
        elif check.conclusion != "success":
            reasons.append(f"the required check `{check.name}` concluded {check.conclusion}; only success counts")
    return reasons, pending


def _finding_place(skill: dict, finding: dict) -> str:
    where = skill.get("path", "?")
    if finding.get("file") and finding["file"] != ".":
        where += "/" + finding["file"]
    return f"{finding.get('rule')} in {where}"


def security_reasons(report: dict, exceptions_changed: Iterable[str] = ()) -> list[str]:
    """Why the report's security findings stop an automerge, whatever the labels say.

    A security finding is acknowledged only by a reviewed exception: the finding carries `allowed` (skill.yaml
    `security_exceptions` covers it) and that skill's exceptions are the ones on the base branch, so a maintainer
    merged them. An exception the PR adds or changes acknowledges nothing; a maintainer reviews it.
    """
    changed = frozenset(exceptions_changed)
    open_findings: list[str] = []
    self_allowed: list[str] = []
    for skill in report.get("skills", []):
        for finding in skill.get("findings", []):
            if not is_security_finding(finding):
                continue
            allowed = isinstance(finding.get("allowed"), str) and bool(finding["allowed"].strip())
            if not allowed:
                open_findings.append(_finding_place(skill, finding))
            elif skill.get("path") in changed:
                self_allowed.append(_finding_place(skill, finding))
    reasons = []
    for found, what in ((open_findings, "unacknowledged security finding(s) in the validate report"),
                        (self_allowed, "security finding(s) allowed only by exceptions this PR adds or changes")):
        if found:
            named = ", ".join(found[:MAX_NAMED_FINDINGS])
            more = f" and {len(found) - MAX_NAMED_FINDINGS} more" if len(found) > MAX_NAMED_FINDINGS else ""
            reasons.append(f"{len(found)} {what}: {named}{more}; a maintainer reviews and merges by hand")
    return reasons


def _report_reasons(facts: AutomergeFacts) -> list[str]:
    """Reasons from the validate report of the head commit (only asked once its run succeeded)."""
    if facts.report_problem:
        return [f"the `{facts.required_check}` report of {facts.head_sha[:12]} cannot be used: "
                f"{facts.report_problem}"]
    if facts.report is None:
        return [f"no `{facts.required_check}` report was read for {facts.head_sha[:12]}"]
    report = facts.report
    reasons = []
    if report.get("commit") != facts.head_sha:
        recorded = report.get("commit")
        reasons.append(f"the `{facts.required_check}` report records "
                       + (f"commit {str(recorded)[:12]}" if recorded else "no commit")
                       + f", not the head {facts.head_sha[:12]}")
    if not report.get("ok", False):
        reasons.append(f"the `{facts.required_check}` report says a changed skill is invalid")
    reported = {skill.get("path") for skill in report.get("skills", [])}
    missing = sorted(c.folder for c in facts.changes.skills if c.kind != "removed" and c.folder not in reported)
    if missing:
        reasons.append(f"the `{facts.required_check}` report does not cover " + ", ".join(missing))
    return reasons + security_reasons(report, facts.exceptions_changed)


def automerge_decision(facts: AutomergeFacts) -> Decision:
    """Homebrew/conda-forge style: merge only a green PR that adds new skills or updates skills its author already
    owns, when a maintainer labelled it `automerge` and approved its current head commit, the registry's own
    validate check succeeded on that commit and its report has no unacknowledged security finding. That approval
    is the maintainer's review a new skill needs (its author owns it once merged, as its skill.yaml says); a
    removal still needs a maintainer's hand merge.

    Every reason to refuse is collected, not just the first. A commit after the labelling maintainer's approval,
    or a label set by someone without write access, withdraws the request: the label is removed so a human has
    to look again. Labels compare without letter case, like GitHub's.
    """
    reasons: list[str] = []
    pending: list[str] = []
    if facts.state != "open":
        reasons.append(f"the PR is {facts.state}")
    if facts.base_ref != facts.default_branch:
        reasons.append(f"the PR targets `{facts.base_ref}`, not the default branch `{facts.default_branch}`")
    if not has_label(facts.labels, LABEL_AUTOMERGE):
        reasons.append(f"the `{LABEL_AUTOMERGE}` label is not set")
    review_reasons, remove_label = _review_reasons(facts)
    reasons += review_reasons
    required_reasons, required_pending = _required_check_reasons(facts)
    reasons += required_reasons
    pending += required_pending
    if not required_reasons and not required_pending:
        reasons += _report_reasons(facts)
    for check in facts.checks:
        if check_is_required(check, facts.required_check):
            continue
        if check.status != "completed":
            pending.append(f"check `{check.name}` is {check.status}")
        elif (check.conclusion or "") not in GREEN_CONCLUSIONS:
            reasons.append(f"check `{check.name}` concluded {check.conclusion}")
    if facts.status_count and facts.status_state == "pending":
        pending.append("the combined commit status is pending")
    elif facts.status_count and facts.status_state != "success":
        reasons.append(f"the combined commit status is {facts.status_state}")
    reasons += pending
    reasons += [f"the file list: {problem}" for problem in facts.changes.problems]
    if facts.changes.outside:
        reasons.append(f"the PR touches files outside {facts.skills_dir}/ ({len(facts.changes.outside)})")
    if not facts.changes.skills:
        reasons.append("the PR changes no skill")
    if facts.changes.removed:
        reasons.append("removing a skill needs a maintainer: " + ", ".join(c.name for c in facts.changes.removed))
    unowned = unowned_folders(facts.changes, facts.owners, facts.author)
    if unowned:
        reasons.append(f"@{facts.author} does not own " + ", ".join(unowned))
    if facts.exceptions_changed:
        reasons.append("the PR adds or changes `security_exceptions` of " + ", ".join(facts.exceptions_changed)
                       + "; a maintainer reviews every exception")
    reasons += [f"`security_exceptions` cannot be compared: {problem}" for problem in facts.exceptions_problems]
    if facts.verification_claimed:
        reasons.append("the PR writes `verified: true` or approval facts into the `verification` of "
                       + ", ".join(facts.verification_claimed) + "; only the bot records an approval, at merge")
    blocking = sorted(name for name in facts.labels if label_key(name) in label_keys(BLOCKING_LABELS))
    if blocking:
        reasons.append("blocking label(s): " + ", ".join(blocking))
    return Decision(merge=not reasons, reasons=tuple(reasons), remove_label=remove_label,
                    details={"pending": tuple(pending)})
