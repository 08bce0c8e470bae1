"""The GITHUB_TOKEN scopes each job of a workflow gets, as GitHub computes them from the `permissions:` keys.

act hands every job one token and checks no permission; the harness tells the stand-in which job is running and
the stand-in refuses a request its scopes do not allow (403, "Resource not accessible by integration"), so a job
whose declared permissions are short fails here as on GitHub. Rules kept: a job's `permissions` replace the
workflow's; unset scopes of a declared mapping are `none`; `read-all` / `write-all`; a job of a called (reusable)
workflow gets at most what its caller job has (a called workflow can only lower them); nothing declared anywhere
is the repository default, taken here as GitHub's permissive default (write to everything but id-token)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.workflows_act import yamlcache

SCOPES = ("actions", "attestations", "checks", "contents", "deployments", "discussions", "id-token", "issues",
          "packages", "pages", "pull-requests", "repository-projects", "security-events", "statuses")
LEVEL = {"none": 0, "read": 1, "write": 2}
PERMISSIVE = {**{s: "write" for s in SCOPES}, "id-token": "none"}


def expand(value, inherited: dict[str, str]) -> dict[str, str]:
    """A `permissions:` value as a full scope -> level mapping (`inherited` when the key is absent)."""
    if value is None:
        return dict(inherited)
    if value == "read-all":
        return {s: ("none" if s == "id-token" else "read") for s in SCOPES}
    if value == "write-all":
        return {s: "write" for s in SCOPES}
    if isinstance(value, dict):
        out = {s: "none" for s in SCOPES}
        out.update({str(k): str(v) for k, v in value.items()})
        return out
    raise ValueError(f"permissions: unknown value {value!r}")


def lower(a: dict[str, str], b: dict[str, str]) -> dict[str, str]:
    """Scope by scope, the lower of two grants (what a called workflow's job gets of its caller's)."""
    return {s: min(a.get(s, "none"), b.get(s, "none"), key=LEVEL.__getitem__) for s in SCOPES}


def _load(path: Path) -> dict:
    return yamlcache.safe_load(path.read_bytes()) or {}


def job_permissions(folder: Path, workflow: str) -> dict[str, dict[str, str]]:
    """act's display name of each job of `workflow` -> its token scopes. A job calling a local reusable workflow
    shows in act as `<caller job name>/<called workflow name>/<called job name>`."""
    data = _load(folder / workflow)
    top = expand(data.get("permissions"), PERMISSIVE)
    out: dict[str, dict[str, str]] = {}
    for job_id, job in (data.get("jobs") or {}).items():
        granted = expand(job.get("permissions"), top)
        name = str(job.get("name") or job_id)
        uses = str(job.get("uses") or "")
        if uses.startswith("./.github/workflows/"):
            called = _load(folder / uses.rsplit("/", 1)[1])
            called_top = called.get("permissions")
            for called_id, called_job in (called.get("jobs") or {}).items():
                own = expand(called_job.get("permissions"), expand(called_top, granted))
                display = f"{name}/{called.get('name') or uses}/{called_job.get('name') or called_id}"
                out[display] = lower(granted, own)
        else:
            out[name] = granted
    return out


def job_permissions_by_id(folder: Path, workflow: str) -> dict[tuple[str, str], dict[str, str]]:
    """The same scopes keyed as a job's own environment names it: (GITHUB_WORKFLOW, GITHUB_JOB), which act sets
    to the workflow's name (the called workflow's, for a job of a reusable workflow) and the job's id."""
    data = _load(folder / workflow)
    top = expand(data.get("permissions"), PERMISSIVE)
    out: dict[tuple[str, str], dict[str, str]] = {}
    for job_id, job in (data.get("jobs") or {}).items():
        granted = expand(job.get("permissions"), top)
        uses = str(job.get("uses") or "")
        if uses.startswith("./.github/workflows/"):
            called = _load(folder / uses.rsplit("/", 1)[1])
            for called_id, called_job in (called.get("jobs") or {}).items():
                own = expand(called_job.get("permissions"), expand(called.get("permissions"), granted))
                out[(str(called.get("name") or uses), str(called_id))] = lower(granted, own)
        else:
            out[(str(data.get("name") or f".github/workflows/{workflow}"), str(job_id))] = granted
    return out


def match_job(scopes: dict[str, dict[str, str]], display: str) -> dict[str, str]:
    """The scopes of the job act names `display`; a job the workflow does not declare gets none.

    A matrix job's name is a template (`verify pointers ${{ matrix.prefix }}`) that act shows rendered, with its
    own `-<n>` after it (`verify pointers c-d-2`): a declared name matches when its template does."""
    if display in scopes:
        return scopes[display]
    bare = re.sub(r"-\d+$", "", display.rstrip())
    candidates = [display, bare]
    for key, value in scopes.items():
        pattern = "".join(".+?" if part.startswith("${{") else re.escape(part)
                          for part in re.split(r"(\$\{\{.*?\}\})", key))
        if any(re.fullmatch(pattern, c) for c in candidates):
            return value
    tail = display.rsplit("/", 1)[-1]
    hits = [v for k, v in scopes.items() if k.rsplit("/", 1)[-1] == tail]
    return hits[0] if len(hits) == 1 else {s: "none" for s in SCOPES}


def allows(granted: dict[str, str] | None, needs: list[tuple[str, str]]) -> bool:
    """True when `granted` has any one of the (scope, level) alternatives in `needs` (None: not checked)."""
    if granted is None or not needs:
        return True
    return any(LEVEL[granted.get(scope, "none")] >= LEVEL[level] for scope, level in needs)
