"""GitHub's rules for what starts a workflow run, modelled so the harness drives a chain the way GitHub would.

A scenario states what a person (or a run) did -- opened a PR, added a label, pushed, a run completed, a job
dispatched a workflow -- as an `Event`; `started_by(workflows, event)` answers which workflow files GitHub starts
for it, and `why_not` says why one does not start. The rules kept (GitHub docs, "Events that trigger workflows"
and "Triggering a workflow from a workflow"):

- an event caused by a job's GITHUB_TOKEN starts no run, except `workflow_dispatch` and `repository_dispatch`
  (so a merge or push made by the Actions bot with its token starts no `push` workflow);
- `push` and `pull_request` runs are not started for a head commit whose message holds `[skip ci]` and its
  spellings;
- `pull_request` / `pull_request_target` run for their `types` (default: opened, synchronize, reopened) and for
  `branches` matching the PR's base;
- `push` runs for `branches` / `tags` matching the pushed ref (a filter on one kind excludes the other kind);
- `workflow_run` runs when a workflow named in `workflows` has a run reach one of `types`, filtered by the
  run's head branch; at most three levels of workflows are chained (a run started by a `workflow_run` that is
  itself two levels down starts nothing);
- `workflow_dispatch` starts exactly the file it names, if that file has the trigger; `schedule` the files that
  have a `schedule` trigger.

Not modelled (no workflow here relies on them): `paths` filters, forks' read-only tokens, approval of first-time
contributors' runs.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

from tests.workflows_act import yamlcache

ACTIONS_BOT = "github-actions[bot]"
SKIP_CI = ("[skip ci]", "[ci skip]", "[no ci]", "[skip actions]", "[actions skip]")
TOKEN_MAY_START = frozenset({"workflow_dispatch", "repository_dispatch"})
PR_DEFAULT_TYPES = ("opened", "synchronize", "reopened")
MAX_WORKFLOW_RUN_DEPTH = 2   # three levels: the first run (0), and two `workflow_run` levels after it


@dataclass
class Workflow:
    """One workflow file as GitHub reads its triggers (`on:`); the YAML's `on` key loads as True in PyYAML."""
    file: str                # the name under .github/workflows/
    name: str                # `name:`, or the file's path when absent (what `workflow_run.workflows` matches)
    on: dict                 # trigger -> its filter mapping ({} when the trigger has none)
    data: dict = field(repr=False, default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Workflow:
        data = yamlcache.safe_load(path.read_bytes()) or {}
        raw = data.get("on", data.get(True))
        return cls(path.name, data.get("name") or f".github/workflows/{path.name}", normalize_on(raw), data)

    @property
    def reusable_only(self) -> bool:
        return set(self.on) <= {"workflow_call"}


def normalize_on(raw) -> dict[str, dict]:
    """`on: push`, `on: [push, pull_request]` and the mapping form, as one mapping of trigger -> filters."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        return {raw: {}}
    if isinstance(raw, list):
        return {str(item): {} for item in raw}
    return {str(key): (value if isinstance(value, dict) else {}) for key, value in raw.items()}


def load_workflows(folder: Path) -> list[Workflow]:
    """The workflow files of a checkout (copies the harness writes beside them, `*.act-*.yml`, are not GitHub's)."""
    files = sorted([*folder.glob("*.yml"), *folder.glob("*.yaml")])
    return [Workflow.load(p) for p in files if ".act-" not in p.name]


@dataclass
class Event:
    """Something that happened on the repository, as GitHub would deliver it to the workflows.

    `actor` is who caused it; `by_token` says it was caused with a job's GITHUB_TOKEN (then it is the Actions
    bot's). `ref` is the git ref the run gets (GITHUB_REF); `sha` the commit whose workflow files GitHub loads.
    `depth` counts the `workflow_run` levels above a run this event would start."""
    name: str
    payload: dict
    actor: str
    by_token: bool = False
    ref: str = "refs/heads/main"
    sha: str = ""
    workflow_file: str | None = None    # workflow_dispatch: the file named in the dispatch
    depth: int = 0

    @property
    def action(self) -> str | None:
        return self.payload.get("action")

    def describe(self) -> str:
        what = f"{self.name}" + (f".{self.action}" if self.action else "")
        if self.name == "workflow_run":
            what += f" of {self.payload.get('workflow', {}).get('name')!r}"
        if self.workflow_file:
            what += f" of {self.workflow_file}"
        who = f"{self.actor} (GITHUB_TOKEN)" if self.by_token else self.actor
        return f"{what} on {self.ref} by {who}"


def _branch_filter(filters: dict, value: str | None, key: str = "branches") -> bool:
    """GitHub's `branches` / `branches-ignore` filters (glob patterns, `!` negation in `branches`)."""
    if value is None:
        return True
    if key in filters:
        allowed = False
        for pattern in filters[key] or []:
            pattern = str(pattern)
            if pattern.startswith("!"):
                if fnmatch.fnmatchcase(value, pattern[1:]):
                    allowed = False
            elif fnmatch.fnmatchcase(value, pattern):
                allowed = True
        return allowed
    ignore = f"{key}-ignore"
    if ignore in filters:
        return not any(fnmatch.fnmatchcase(value, str(p)) for p in filters[ignore] or [])
    return True


def why_not(workflow: Workflow, event: Event) -> str | None:
    """None when GitHub starts `workflow` for `event`; otherwise the reason it does not."""
    if event.by_token and event.name not in TOKEN_MAY_START:
        return (f"{event.name} was caused by a job's GITHUB_TOKEN: GitHub starts no workflow run for it "
                f"(only workflow_dispatch and repository_dispatch)")
    if event.name not in workflow.on:
        return f"{workflow.file} has no `{event.name}` trigger"
    filters = workflow.on[event.name]
    if event.name in ("push", "pull_request"):
        message = _head_message(event)
        if any(marker in message.lower() for marker in SKIP_CI):
            return f"the head commit's message asks to skip CI ({message.splitlines()[0]!r})"
    if event.name in ("pull_request", "pull_request_target"):
        types = filters.get("types") or PR_DEFAULT_TYPES
        if event.action not in types:
            return f"{workflow.file} runs on {event.name} types {list(types)}, not {event.action!r}"
        base = event.payload.get("pull_request", {}).get("base", {}).get("ref")
        if not _branch_filter(filters, base):
            return f"{workflow.file}'s {event.name} branch filter excludes the base {base!r}"
    elif event.name == "push":
        ref = event.ref
        kind, _, short = ref.removeprefix("refs/").partition("/")
        ours, other = ("branches", "tags") if kind == "heads" else ("tags", "branches")
        has_ours = ours in filters or f"{ours}-ignore" in filters
        has_other = other in filters or f"{other}-ignore" in filters
        if has_other and not has_ours:
            return f"{workflow.file}'s push trigger filters {other} only; {ref} is not one"
        if not _branch_filter(filters, short, ours):
            return f"{workflow.file}'s push {ours} filter excludes {short!r}"
    elif event.name == "workflow_run":
        completed = event.payload.get("workflow", {}).get("name") or event.payload.get("workflow_run", {}).get("name")
        if completed not in (filters.get("workflows") or []):
            return f"{workflow.file}'s workflow_run names {filters.get('workflows')}, not {completed!r}"
        types = filters.get("types") or ["completed", "requested"]
        if event.action not in types:
            return f"{workflow.file} runs on workflow_run types {list(types)}, not {event.action!r}"
        if not _branch_filter(filters, event.payload.get("workflow_run", {}).get("head_branch")):
            return f"{workflow.file}'s workflow_run branch filter excludes the run's head branch"
        if event.depth > MAX_WORKFLOW_RUN_DEPTH:
            return "GitHub chains at most three levels of workflows with workflow_run"
    elif event.name == "workflow_dispatch":
        if event.workflow_file != workflow.file:
            return f"the dispatch names {event.workflow_file}, not {workflow.file}"
    elif event.name in ("pull_request_review", "issue_comment", "issues", "label"):
        types = filters.get("types")
        if types and event.action not in types:
            return f"{workflow.file} runs on {event.name} types {list(types)}, not {event.action!r}"
    return None


def _head_message(event: Event) -> str:
    if event.name == "push":
        return (event.payload.get("head_commit") or {}).get("message", "")
    return event.payload.get("pull_request", {}).get("_head_message", "")


def started_by(workflows: list[Workflow], event: Event) -> list[Workflow]:
    """The workflows GitHub starts for `event`, in file order."""
    return [w for w in workflows if why_not(w, event) is None]
