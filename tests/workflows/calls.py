"""Reading workflows the way GitHub runs them: a caller's `uses:` job is replaced by the jobs of the reusable
workflow it calls, so every guarantee is asserted on the jobs that actually run and checked to be reached."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
TEMPLATES = ROOT / "tools" / "skillyard" / "registry" / "init_template" / "workflows"
NAMES = ("validate", "pr-bot", "automerge", "publish")
FAKE_SHA = "0123456789abcdef0123456789abcdef01234567"
FAKE_REPOSITORY = "example-org/skillyard"
REMOTE_CALL = re.compile(r"^([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/(\.github/workflows/[A-Za-z0-9_.-]+\.ya?ml)@(.+)$")
LEVELS = {"none": 0, "read": 1, "write": 2}


def parse(text: str) -> dict:
    doc = yaml.safe_load(text)
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as a boolean
    return doc


def load(path: Path) -> dict:
    return parse(path.read_text(encoding="utf-8"))


def substituted(name: str, ref: str = FAKE_SHA, repository: str = FAKE_REPOSITORY) -> str:
    """A caller template as `skillyard init-registry` writes it."""
    text = (TEMPLATES / f"{name}.yml").read_text(encoding="utf-8")
    return text.replace("__SKILLYARD_REPOSITORY__", repository).replace("__SKILLYARD_REF__", ref)


def triggers(doc: dict) -> set[str]:
    on = doc["on"]
    return {on} if isinstance(on, str) else set(on)


def called_file(uses: str) -> str:
    """The reusable workflow's path in this repository, for a local (`./`) or a remote pinned call."""
    if uses.startswith("./"):
        return uses[2:]
    match = REMOTE_CALL.match(uses)
    assert match, f"not a reusable-workflow call: {uses}"
    return match.group(2)


def called(uses: str, at: str | None = None) -> dict:
    """The reusable workflow a `uses:` names, from the working tree or, with `at`, from that commit."""
    rel = called_file(uses)
    if at is None:
        return load(ROOT / rel)
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{at}:{rel}"], check=True, capture_output=True,
                          text=True, timeout=60).stdout
    return parse(text)


def reached_jobs(doc: dict, at: str | None = None):
    """(job id, job) of every job that runs: a caller job is replaced by the jobs of the workflow it calls."""
    for job_id, job in doc["jobs"].items():
        if "uses" in job:
            for inner_id, inner in called(job["uses"], at)["jobs"].items():
                yield f"{job_id}/{inner_id}", inner
        else:
            yield job_id, job


def reached_steps(doc: dict):
    for job_id, job in reached_jobs(doc):
        for step in job.get("steps", []):
            yield job_id, step


def needed_permissions(workflow: dict) -> dict[str, str]:
    """The most each scope is used with by any job of a reusable workflow: what its caller must grant."""
    need: dict[str, str] = {}
    for job in workflow["jobs"].values():
        for scope, level in (job.get("permissions") or {}).items():
            if LEVELS[level] > LEVELS.get(need.get(scope, "none"), 0):
                need[scope] = level
    return need
