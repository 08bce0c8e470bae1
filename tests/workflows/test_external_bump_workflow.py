"""The scheduled bump workflow: its caller and reusable job as GitHub reads them, and its bump step's script run with
stand-in `skillyard` commands (bumped pointers get their PRs even when another pointer is refused; the job still
fails then; the bump token opens the PRs when given)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.workflows.calls import WORKFLOWS, load, needed_permissions, reached_jobs, triggers


def bump_step() -> dict:
    [step] = [s for s in load(WORKFLOWS / "reusable-external-bump.yml")["jobs"]["bump"]["steps"]
              if "skillyard external bump" in s.get("run", "")]
    return step


def test_the_caller_runs_on_a_schedule_with_exactly_what_the_job_needs():
    caller = load(WORKFLOWS / "external-bump.yml")
    assert triggers(caller) == {"schedule", "workflow_dispatch"}
    [(job_id, job)] = caller["jobs"].items()
    reusable = load(WORKFLOWS / "reusable-external-bump.yml")
    assert triggers(reusable) == {"workflow_call"}
    assert job["permissions"] == needed_permissions(reusable) == {"contents": "write", "pull-requests": "write"}
    assert set(job["secrets"]) == set(reusable["on"]["workflow_call"]["secrets"]) == {"bump_token"}
    assert not reusable["on"]["workflow_call"]["secrets"]["bump_token"]["required"]
    steps = [s for _, j in reached_jobs(caller) for s in j["steps"]]
    [cache] = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache@")]
    assert cache["with"]["path"] == ".skillyard-cache/external-bump.json"  # where `external bump` keeps its ETags


def _run(tmp_path: Path, *, bump_status: int, token: str = "") -> tuple[subprocess.CompletedProcess, list[str]]:
    """The step's script with a `skillyard` that records each call (and the token it saw) instead of running."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    log = tmp_path / "calls"
    results = {"ok": bump_status == 0, "results": [{"name": "alpha", "status": "bumped"},
                                                   {"name": "beta", "status": "refused", "message": "diverged"}]}
    fake = (f'#!/bin/sh\necho "$GITHUB_TOKEN $*" >> "{log}"\n'
            f'case "$*" in "external bump"*) echo \'{json.dumps(results)}\'; exit {bump_status};; esac\n')
    (bin_dir / "skillyard").write_text(fake, encoding="utf-8")
    (bin_dir / "skillyard").chmod(0o755)
    if not (bin_dir / "python").exists():
        (bin_dir / "python").symlink_to(sys.executable)  # what actions/setup-python puts on PATH
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "RUNNER_TEMP": str(tmp_path), "GITHUB_TOKEN": "job-token",
           "BUMP_TOKEN": token, "REPOSITORY": "acme/registry", "SKILLS_DIR": "skills"}
    result = subprocess.run(["bash", "-e", "-c", bump_step()["run"]], capture_output=True, text=True, timeout=60,
                            env=env, cwd=tmp_path)
    return result, log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def test_bumped_pointers_get_prs_even_when_another_is_refused_and_the_job_fails(tmp_path):
    result, calls = _run(tmp_path, bump_status=1)
    assert result.returncode == 1
    assert calls[0] == "job-token external bump --json"
    assert calls[1] == (f"job-token bot open-bump-prs --repo acme/registry --results {tmp_path}/bump.json "
                        "--skills-dir skills")
    assert "beta: diverged" in result.stdout


def test_the_bump_token_opens_the_prs_when_given(tmp_path):
    result, calls = _run(tmp_path, bump_status=0, token="app-token")
    assert result.returncode == 0, result.stderr
    assert calls[0].startswith("job-token external bump") and calls[1].startswith("app-token bot open-bump-prs")
