"""The external-verify workflows: the PR workflow verifies the pointers a PR adds or changes (its own script, run on a
real git repository), and the scheduled one splits every pointer across a matrix by name prefix and records
`checked_at` from one job in one commit."""

from __future__ import annotations

import json
import os
import re
import shutil
import string
import subprocess
from pathlib import Path

import pytest
from tests.hostile.test_workflows import step
from tests.workflows.calls import ROOT, WORKFLOWS, called, load, needed_permissions, reached_jobs, triggers

from skillyard.registry.external_verify import parse_shard

REUSABLE = WORKFLOWS / "reusable-external-verify.yml"
CALLER = WORKFLOWS / "external-verify.yml"


def _shards() -> list[str]:
    return json.loads(load(REUSABLE)["on"]["workflow_call"]["inputs"]["shards"]["default"])


def test_the_reusable_workflow_declares_the_fixed_interface_and_asks_no_secrets():
    doc = load(REUSABLE)
    assert triggers(doc) == {"workflow_call"} and doc["permissions"] == {}
    inputs = doc["on"]["workflow_call"]["inputs"]
    for key, default in {"python-version": "3.11", "skills-dir": "skills", "toolchain": ""}.items():
        assert inputs[key]["type"] == "string" and inputs[key]["default"] == default
    assert all(not spec.get("required") and "default" in spec for spec in inputs.values())
    assert "secrets" not in doc["on"]["workflow_call"]


def test_the_caller_runs_on_a_schedule_and_grants_exactly_what_the_jobs_need():
    doc = load(CALLER)
    assert triggers(doc) == {"schedule", "workflow_dispatch"}
    assert re.fullmatch(r"\d+ \d+ \* \* \*", doc["on"]["schedule"][0]["cron"])
    [job] = doc["jobs"].values()
    assert called(job["uses"]) == load(REUSABLE)
    # actions: write starts publish.yml after the checked_at push, which (made with the Actions token) starts nothing
    assert job["permissions"] == needed_permissions(load(REUSABLE)) == {"contents": "write", "actions": "write"}
    assert "secrets" not in job and set(job["with"]) <= set(load(REUSABLE)["on"]["workflow_call"]["inputs"])
    assert doc["concurrency"]["cancel-in-progress"] is False


def test_the_default_shards_take_every_first_character_exactly_once():
    taken = [c for spec in _shards() for c in sorted(parse_shard(spec))]
    assert sorted(taken) == sorted(string.digits + string.ascii_lowercase)
    pointers = sorted(p.parent.name for p in (ROOT / "skills").glob("*/source.yaml"))
    assert pointers, "this registry lists pointer entries"
    for name in pointers:  # every name of this registry in exactly one shard
        assert sum(name[0] in parse_shard(spec) for spec in _shards()) == 1, name


def _run_shard_check(shards: str) -> subprocess.CompletedProcess:
    script = load(REUSABLE)["jobs"]["shards"]["steps"][0]["run"]
    return subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "SHARDS": shards})


@pytest.mark.parametrize(("shards", "ok"), [
    (None, True),
    ('["0-9", "a-z"]', True),
    ('["0-9", "a-y"]', False),       # z missing
    ('["0-9", "a-z", "q"]', False),  # q twice
    ('"a-z"', False),
    ("not json", False),
])
def test_the_first_job_refuses_a_shard_list_that_misses_or_repeats_a_character(shards, ok):
    result = _run_shard_check(shards if shards is not None else json.dumps(_shards()))
    assert "Traceback" not in result.stderr
    assert (result.returncode == 0) is ok, result.stdout + result.stderr
    if not ok:
        assert result.stdout.startswith("::error::")


def test_shards_are_read_only_and_one_job_commits_once():
    doc = load(REUSABLE)
    verify, record = doc["jobs"]["verify"], doc["jobs"]["record"]
    assert verify["strategy"]["matrix"]["prefix"] == "${{ fromJSON(inputs.shards) }}"
    assert verify["strategy"]["fail-fast"] is False and verify["permissions"] == {"contents": "read"}
    runs = "\n".join(s.get("run", "") for s in verify["steps"])
    assert 'skillyard external verify --prefix "$PREFIX" --json' in runs and "--record" not in runs
    uploads = [s for s in verify["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert [u["with"]["name"] for u in uploads] == ["external-verify-${{ strategy.job-index }}"]
    assert record["needs"] == "verify" and record["permissions"] == {"contents": "write", "actions": "write"}
    assert "!cancelled()" in record["if"] and "inputs.record" in record["if"]
    names = [s.get("name") or s.get("uses") for s in record["steps"]]
    download = next(i for i, s in enumerate(record["steps"]) if "download-artifact@" in str(s.get("uses", "")))
    assert names.index("Install skillyard") < download, "nothing is installed after the reports arrive"
    assert record["steps"][download]["with"]["path"].startswith("${{ runner.temp }}")
    runs = "\n".join(s.get("run", "") for s in record["steps"])
    assert "skillyard external verify" not in runs and "apply_reports" in runs
    assert runs.count("git commit") == 1 and "[skip ci]" in runs
    for job_id, job in doc["jobs"].items():
        if job_id != "record":
            assert all(level != "write" for level in (job.get("permissions") or {}).values()), job_id


# ---- the PR workflow ---------------------------------------------------------------------------------------------

def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True, timeout=60).stdout.strip()


def _write(repo: Path, rel: str, text: str = "x\n") -> None:
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text(text, encoding="utf-8")


def test_validate_verifies_the_pointers_the_pr_adds_or_changes(tmp_path):
    """The workflow's own listing script on a real git repository: added, changed and renamed pointers are listed;
    unchanged, deleted, own (non-pointer) skills, linked pointer files and folder names that are not plain
    registry names (which could pass for options) are not."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    for rel in ("skills/own/SKILL.md", "skills/changed/source.yaml", "skills/same/source.yaml",
                "skills/gone/source.yaml", "skills/moved/source.yaml", "README.md"):
        _write(repo, rel)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD")
    _write(repo, "skills/changed/source.yaml", "y\n")
    _write(repo, "skills/new-one/source.yaml")
    _write(repo, "skills/own/SKILL.md", "y\n")
    _write(repo, "skills/-rf/source.yaml")
    _write(repo, "skills/Evil Name/source.yaml")
    _write(repo, "skills/target.txt")
    (repo / "skills/linked").mkdir()
    (repo / "skills/linked/source.yaml").symlink_to("../target.txt")
    (repo / "skills/gone/source.yaml").unlink()
    _git(repo, "mv", "skills/moved", "skills/renamed")
    _write(repo, "README.md", "y\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "pr")
    doc = load(WORKFLOWS / "validate.yml")
    script = step(doc, "validate/validate", "List the pointer entries the PR adds or changes")["run"]
    temp = tmp_path / "runner"
    temp.mkdir()
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=repo, capture_output=True, text=True,
                            timeout=60, env={"PATH": "/usr/bin:/bin", "BASE_SHA": base, "RUNNER_TEMP": str(temp),
                                             "HOME": str(tmp_path), "SKILLS_DIR": "skills"})
    assert result.returncode == 0, result.stderr
    assert (temp / "pointers.txt").read_text(encoding="utf-8").splitlines() == ["changed", "new-one", "renamed"]

    # The next step hands exactly those names to `skillyard external verify`, after `--`.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    argv_file = tmp_path / "argv"
    (bin_dir / "skillyard").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{argv_file}"\n', encoding="utf-8")
    (bin_dir / "skillyard").chmod(0o755)
    verify = step(doc, "validate/validate", "Verify them against their upstream repositories")["run"]
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RUNNER_TEMP": str(temp), "HOME": str(tmp_path)}
    result = subprocess.run(["bash", "-e", "-c", verify], cwd=repo, capture_output=True, text=True, timeout=60,
                            env=env)
    assert result.returncode == 0, result.stderr
    assert argv_file.read_text(encoding="utf-8").splitlines() == ["external", "verify", "--", "changed", "new-one",
                                                                  "renamed"]
    (temp / "pointers.txt").write_text("", encoding="utf-8")
    argv_file.unlink()
    result = subprocess.run(["bash", "-e", "-c", verify], cwd=repo, capture_output=True, text=True, timeout=60,
                            env=env)
    assert result.returncode == 0 and "no pointer entry" in result.stdout and not argv_file.exists()


def test_validate_runs_verify_in_the_read_only_job():
    doc = load(WORKFLOWS / "validate.yml")
    jobs = dict(reached_jobs(doc))
    names = [s.get("name") for s in jobs["validate/validate"]["steps"]]
    assert names.index("Verify them against their upstream repositories") < names.index(
        "Fail when a changed skill is invalid")
    assert jobs["validate/validate"]["permissions"] == {"contents": "read"}
