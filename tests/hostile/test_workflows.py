"""Hostile pull requests against the workflows: what a PR can make the privileged runs do, asserted from the
workflow files themselves and, for the changed-path list, by running the workflow's own script on a real git
repository."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.workflows import calls
from tests.workflows.calls import ROOT, TEMPLATES, WORKFLOWS


def load(name: str) -> dict:
    return calls.load(WORKFLOWS / name)


def step(doc: dict, job: str, name: str) -> dict:
    """A step of a job that runs: `job` is "caller-job/reusable-job" for a job reached through `uses:`."""
    [found] = [s for s in dict(calls.reached_jobs(doc))[job]["steps"] if s.get("name") == name]
    return found


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_validate_lists_both_names_of_a_rename(tmp_path):
    """A PR moving another skill's file, CODEOWNERS and a workflow into its own folder: the workflow's own scope
    script must list the old paths (as deletions), so the PR counts as touching them."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.invalid")
    _git(repo, "config", "user.name", "t")
    files = {"skills/victim/SKILL.md": "---\nname: victim\n---\n" + "victim body\n" * 20,
             ".github/CODEOWNERS": "/.github/ @skillyard/maintainers\n" * 10,
             ".github/workflows/publish.yml": "name: publish\n" + "# line\n" * 20,
             "skills/mine/SKILL.md": "---\nname: mine\n---\n"}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD")
    _git(repo, "mv", "skills/victim/SKILL.md", "skills/mine/victim.md")
    _git(repo, "mv", ".github/CODEOWNERS", "skills/mine/CODEOWNERS")
    _git(repo, "mv", ".github/workflows/publish.yml", "skills/mine/publish.yml")
    _git(repo, "commit", "-q", "-m", "move")
    # the hole: plain `git diff --name-only` detects renames and lists only the new names
    assert "skills/victim/SKILL.md" not in _git(repo, "diff", "--name-only", base, "HEAD").split()
    scope = step(load("validate.yml"), "validate/validate", "Check the PR's scope")
    assert scope["env"]["SKILLS_DIR"] == "${{ inputs.skills-dir }}"
    temp = tmp_path / "runner"
    temp.mkdir()
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", scope["run"]], cwd=repo, capture_output=True,
                            text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "BASE_SHA": base,
                                                        "RUNNER_TEMP": str(temp), "HOME": str(tmp_path),
                                                        "SKILLS_DIR": "skills"})
    assert result.returncode == 0, result.stderr
    listed = set((temp / "changed.txt").read_text(encoding="utf-8").split())
    assert {"skills/victim/SKILL.md", ".github/CODEOWNERS", ".github/workflows/publish.yml"} <= listed
    assert "::warning::" in result.stdout     # a skill PR that also touches other files is flagged


def test_automerge_only_for_prs_into_the_default_branch():
    doc = load("automerge.yml")
    target = doc["on"]["pull_request_target"]
    assert target["types"] == ["labeled"] and target["branches"] == ["main"]
    condition = " ".join(dict(calls.reached_jobs(doc))["automerge/automerge"]["if"].split())
    assert "github.event.pull_request.base.ref == github.event.repository.default_branch" in condition
    assert "github.event.label.name == 'automerge'" in condition
    assert "github.event.workflow_run.event == 'pull_request'" in condition


def test_automerge_retries_when_the_prs_checks_finish():
    doc = load("automerge.yml")
    run = doc["on"]["workflow_run"]
    assert run["types"] == ["completed"]
    names = {load(p.name)["name"]: load(p.name) for p in WORKFLOWS.glob("*.yml")}
    for workflow in run["workflows"]:
        assert workflow in names, f"automerge waits for a workflow that does not exist: {workflow}"
        assert "pull_request" in names[workflow]["on"], f"{workflow} does not run on pull requests"
    assert set(run["workflows"]) == {n for n, d in names.items() if "pull_request" in d["on"]}


def _bot_commands() -> list[tuple[str, str]]:
    out = []
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for job in load(path.name)["jobs"].values():
            for s in job.get("steps", []):
                if "skillyard bot" in s.get("run", ""):
                    out.append((path.name, " ".join(s["run"].split())))
    return out


def test_every_bot_run_names_its_pr_by_number_or_run_never_by_sha_alone():
    # `open-bump-prs` acts on no existing PR: it opens them, from the scheduled bump on the default branch.
    # `record-verification` runs on a push to the default branch and names the merge commit it pushed: only the
    # PR whose merge_commit_sha is that commit counts (below), which no other PR can claim.
    commands = [(name, command) for name, command in _bot_commands()
                if "bot open-bump-prs" not in command and "bot record-verification" not in command]
    assert len(commands) == 3
    for name, command in commands:
        assert re.search(r"--(pr|run-id) \"\$(PR_NUMBER|RUN_ID)\"", command), (name, command)


def test_verified_pins_are_recorded_only_from_the_pushed_merge_commit():
    recorded = [(name, command) for name, command in _bot_commands() if "bot record-verification" in command]
    assert [name for name, _ in recorded] == ["reusable-publish.yml"]
    assert all('--commit "$COMMIT"' in command and "--pr" not in command for _, command in recorded)


def test_bump_prs_are_opened_only_by_the_scheduled_bump_on_the_default_branch():
    opened = [name for name, command in _bot_commands() if "bot open-bump-prs" in command]
    assert opened == ["reusable-external-bump.yml"]
    assert set(load("external-bump.yml")["on"]) == {"schedule", "workflow_dispatch"}


def test_pr_bot_no_longer_merges():
    doc = load("pr-bot.yml")
    assert list(doc["jobs"]) == ["report"]
    for job in [doc["jobs"]["report"], *dict(calls.reached_jobs(doc)).values()]:
        assert all(v != "write" for k, v in job["permissions"].items() if k == "contents")


def test_zizmor_runs_pedantic_and_every_ignore_says_why():
    lint = (ROOT / ".ci" / "lint-workflows").read_text(encoding="utf-8")
    assert re.search(r"^zizmor .*--persona pedantic", lint, re.M)
    for path in [*WORKFLOWS.glob("*.yml"), *TEMPLATES.glob("*.yml")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            match = re.search(r"zizmor: ignore\[[a-z-]+\](.*)$", line)
            if match:
                assert len(match.group(1).strip()) >= 20, f"{path.name}: an ignore without a reason: {line}"
