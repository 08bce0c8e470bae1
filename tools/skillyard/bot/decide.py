"""The PR bot's decisions as pure functions: what a PR changes, which labels apply, whether to automerge.

Nothing here talks to GitHub. `skillyard.bot.github_io` gathers the facts (files, owners, checks, reviews) and
feeds them in, so every rule can be tested on plain data and again end to end against the API stand-in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

SKILLS_DIR = "skills"

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
_HANDLE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38})(?:\[bot\])?$")


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


@dataclass(frozen=True)
class SkillChange:
    folder: str            # repo-relative, e.g. "skills/pdf-tools"
    kind: str              # "new" | "update" | "removed"

    @property
    def name(self) -> str:
        return self.folder.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Changes:
    """What a PR touches, from the API's file list (trusted), never from the artifact."""

    skills: tuple[SkillChange, ...] = ()
    outside: tuple[str, ...] = ()     # paths that are not inside a skill folder

    @property
    def new(self) -> tuple[SkillChange, ...]:
        return tuple(c for c in self.skills if c.kind == "new")

    @property
    def existing(self) -> tuple[SkillChange, ...]:
        return tuple(c for c in self.skills if c.kind != "new")

    @property
    def folders(self) -> frozenset[str]:
        return frozenset(c.folder for c in self.skills)


def skill_folder_of(path: str, skills_dir: str = SKILLS_DIR) -> str | None:
    """`skills/<name>/...` -> `skills/<name>`; None for anything else (including `skills/README.md`)."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == skills_dir and parts[1] not in ("", ".", ".."):
        return f"{parts[0]}/{parts[1]}"
    return None


def classify_changes(files: list[tuple[str, str]], registry: dict | None, skills_dir: str = SKILLS_DIR) -> Changes:
    """Sort a PR's `(path, status)` files into new/updated/removed skills and paths outside any skill.

    A folder the base registry lists is an update (or a removal when every one of its registry files is
    deleted); a folder it does not list is a new skill.
    """
    known: dict[str, set[str]] = {}
    for skill in (registry or {}).get("skills") or []:
        if isinstance(skill, dict) and isinstance(skill.get("path"), str):
            known[skill["path"].strip("/")] = {f.get("path") for f in skill.get("files") or [] if isinstance(f, dict)}
    per_folder: dict[str, list[tuple[str, str]]] = {}
    outside: list[str] = []
    for path, status in files:
        folder = skill_folder_of(path, skills_dir)
        if folder is None:
            outside.append(path)
        else:
            per_folder.setdefault(folder, []).append((path[len(folder) + 1:], status))
    changes = []
    for folder in sorted(per_folder):
        if folder not in known:
            kind = "new"
        else:
            removed = {rel for rel, status in per_folder[folder] if status == "removed"}
            kind = "removed" if known[folder] and known[folder] <= removed else "update"
        changes.append(SkillChange(folder, kind))
    return Changes(tuple(changes), tuple(sorted(set(outside))))


def is_security_finding(finding: dict) -> bool:
    return str(finding.get("rule", "")).startswith("security-")


def report_has_security_findings(report: dict) -> bool:
    return any(is_security_finding(f) for s in report.get("skills", []) for f in s.get("findings", []))


def unowned_folders(changes: Changes, owners: dict[str, frozenset[str]], author: str) -> list[str]:
    """Existing skill folders the PR changes whose owners do not include `author` (a new skill's author owns it)."""
    who = normalise_handle(author)
    return [c.folder for c in changes.existing if who is None or who not in owners.get(c.folder, frozenset())]


def labels_for(changes: Changes, report: dict | None, owners: dict[str, frozenset[str]], author: str) -> set[str]:
    """The managed labels that apply to a PR. `report` is the validated artifact (None when there is none)."""
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
    if unowned_folders(changes, owners, author):
        labels.add(LABEL_NEEDS_MAINTAINER)
    if report is not None:
        if not report.get("ok", False) or any(not s.get("valid") for s in report.get("skills", [])):
            labels.add(LABEL_INVALID)
        if report_has_security_findings(report):
            labels.add(LABEL_SECURITY)
    return labels


def label_delta(current: set[str] | frozenset[str], wanted: set[str]) -> tuple[list[str], list[str]]:
    """(labels to add, managed labels to remove); labels the bot does not manage are never removed."""
    add = sorted(wanted - set(current))
    remove = sorted((set(current) & MANAGED_LABELS) - wanted)
    return add, remove


# ---- automerge ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    name: str
    status: str                 # queued | in_progress | completed
    conclusion: str | None      # success | failure | neutral | cancelled | skipped | timed_out | action_required


@dataclass(frozen=True)
class Review:
    state: str                  # APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED
    commit_id: str
    submitted_at: datetime | None = None


@dataclass(frozen=True)
class AutomergeFacts:
    author: str
    head_sha: str
    head_committed_at: datetime | None
    changes: Changes
    owners: dict[str, frozenset[str]]
    labels: frozenset[str]
    label_added_at: datetime | None      # when `automerge` was last added, None when never
    checks: tuple[Check, ...] = ()
    status_state: str | None = None      # combined commit status: success | pending | failure | error
    status_count: int = 0
    reviews: tuple[Review, ...] = ()
    state: str = "open"


@dataclass(frozen=True)
class Decision:
    merge: bool
    reasons: tuple[str, ...] = ()
    remove_label: bool = False
    details: dict = field(default_factory=dict)


def automerge_decision(facts: AutomergeFacts) -> Decision:
    """Homebrew/conda-forge style: merge only a green, owner-made update of skills its author already owns.

    Every reason to refuse is collected, not just the first. A commit after the `automerge` label or after the
    latest approval withdraws the request: the label is then removed so a human has to look again.
    """
    reasons: list[str] = []
    remove_label = False
    if facts.state != "open":
        reasons.append(f"the PR is {facts.state}")
    if LABEL_AUTOMERGE not in facts.labels:
        reasons.append(f"the `{LABEL_AUTOMERGE}` label is not set")
    elif facts.label_added_at is not None and facts.head_committed_at is not None \
            and facts.head_committed_at > facts.label_added_at:
        reasons.append(f"a commit landed after the `{LABEL_AUTOMERGE}` label was added")
        remove_label = True
    approvals = [r for r in facts.reviews if r.state == "APPROVED"]
    if approvals and approvals[-1].commit_id != facts.head_sha:
        reasons.append("a commit landed after the latest approval")
        remove_label = remove_label or LABEL_AUTOMERGE in facts.labels
    if any(r.state == "CHANGES_REQUESTED" for r in facts.reviews[-1:]):
        reasons.append("the latest review requests changes")
    if not facts.checks and not facts.status_count:
        reasons.append("no checks have reported on the head commit")
    for check in facts.checks:
        if check.status != "completed":
            reasons.append(f"check `{check.name}` is {check.status}")
        elif (check.conclusion or "") not in GREEN_CONCLUSIONS:
            reasons.append(f"check `{check.name}` concluded {check.conclusion}")
    if facts.status_count and facts.status_state != "success":
        reasons.append(f"the combined commit status is {facts.status_state}")
    if facts.changes.outside:
        reasons.append(f"the PR touches files outside {SKILLS_DIR}/ ({len(facts.changes.outside)})")
    if not facts.changes.skills:
        reasons.append("the PR changes no skill")
    if facts.changes.new:
        reasons.append("a new skill needs a maintainer's review: " + ", ".join(c.name for c in facts.changes.new))
    unowned = unowned_folders(facts.changes, facts.owners, facts.author)
    if unowned:
        reasons.append(f"@{facts.author} does not own " + ", ".join(unowned))
    blocking = sorted(facts.labels & BLOCKING_LABELS)
    if blocking:
        reasons.append("blocking label(s): " + ", ".join(blocking))
    return Decision(merge=not reasons, reasons=tuple(reasons), remove_label=remove_label)
