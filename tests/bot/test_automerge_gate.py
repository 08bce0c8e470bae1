"""The merge gate of `skillyard bot automerge` (issue 24 items 1-3, issue 23's exceptions rule), against the GitHub
stand-in: the decision reads the validate report of the exact head commit itself, requires the registry's own
validate check, compares labels like GitHub (without letter case) and leaves exception changes to a maintainer."""

from __future__ import annotations

import json

import pytest
from botkit import REGISTRY_SLUG, artifact_zip
from test_automerge import RUN, SUITE, UPDATE, automerge, clean_report, ready_pr

from skillyard.cli.main import skillyard_main

pytestmark = pytest.mark.usefixtures("bot_env")

PIPE = {"rule": "security-pipe-to-shell", "severity": "warning", "file": "SKILL.md", "line": 3,
        "message": "downloads piped to a shell"}


def reasons_of(out: dict) -> str:
    return "\n".join(out["reasons"])


def test_happy_path_merges_and_the_token_stays_with_the_api(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo)
    out = automerge(stub, capsys)
    assert out["merged"] is True and pr.merged
    assert stub.calls("GET", rf"/actions/artifacts/{RUN + 1}/zip$")
    [download] = stub.blob_requests
    assert download["authorization"] is None   # the signed storage URL never sees the token


def test_label_before_checks_finish_then_a_pipe_to_shell_warning_refuses(stub, registry_repo, capsys):
    """The documented flow: a maintainer labels and approves while validate still runs. The run then succeeds
    (the finding is a warning) before the PR bot has added `security-finding`: the report itself refuses."""
    pr = ready_pr(stub, registry_repo, report=clean_report("0" * 40))
    registry_repo.runs[RUN]["status"] = "in_progress"
    registry_repo.runs[RUN]["conclusion"] = None
    registry_repo.checks[pr.head_sha][0].update(status="in_progress", conclusion=None)
    first = automerge(stub, capsys)
    assert first["merged"] is False and first["waiting"] is True
    assert "the `validate` workflow run 700 is in_progress" in first["reasons"]
    assert not stub.calls("GET", r"/zip$")   # nothing is read before the run has finished

    registry_repo.runs[RUN].update(status="completed", conclusion="success")
    registry_repo.checks[pr.head_sha][0].update(status="completed", conclusion="success")
    registry_repo.artifacts[RUN + 1]["data"] = artifact_zip(clean_report(pr.head_sha, [PIPE]))
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--run-id", str(RUN), "--api-url",
                           stub.base_url, "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert "security-finding" not in pr.labels
    assert second["merged"] is False and second["waiting"] is False and not pr.merged
    assert ("1 unacknowledged security finding(s) in the validate report: security-pipe-to-shell in "
            "skills/pdf-tools/SKILL.md") in reasons_of(second)
    assert not stub.calls("PUT")


@pytest.mark.parametrize("checks", [
    [{"name": "codecov/patch", "status": "completed", "conclusion": "success", "app": "codecov"},
     {"name": "DCO", "status": "completed", "conclusion": "success", "app": "dco"}],
    # An app may name its check `validate`: only the validate workflow's own run counts.
    [{"name": "validate", "status": "completed", "conclusion": "success", "app": "some-app"}],
])
def test_skip_ci_head_with_other_green_checks_refuses(stub, registry_repo, capsys, checks):
    """A `[skip ci]` head commit: validate never runs, so there is neither its run nor its check."""
    ready_pr(stub, registry_repo, checks=checks, run=False)
    out = automerge(stub, capsys)
    assert out["merged"] is False and out["waiting"] is False and not stub.calls("PUT")
    assert "the required check `validate` has not run on the head commit" in reasons_of(out)
    assert "[skip ci]" in reasons_of(out)


@pytest.mark.parametrize("conclusion", ["skipped", "neutral"])
def test_a_skipped_or_neutral_validate_job_refuses(stub, registry_repo, capsys, conclusion):
    pr = ready_pr(stub, registry_repo)
    registry_repo.checks[pr.head_sha][0]["conclusion"] = conclusion
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert (f"the required check `validate / validate changed skills` concluded {conclusion}; only success counts"
            in out["reasons"])


def test_a_validate_check_outside_the_validate_run_refuses(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo)
    registry_repo.checks[pr.head_sha][0]["suite"] = SUITE + 100   # another workflow's job named like it
    out = automerge(stub, capsys)
    assert "the `validate` workflow run 700 reported no `validate` check run" in reasons_of(out)
    assert not stub.calls("PUT")


def test_the_required_check_comes_from_the_settings(stub, registry_repo, capsys, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.skillyard]\nname = "r"\nvalidate_check = "registry-checks"\n')
    ready_pr(stub, registry_repo)
    out = automerge(stub, capsys, "--root", str(tmp_path), "--dry-run")
    assert out["merge"] is False
    assert "the required check `registry-checks` has not run on the head commit" in reasons_of(out)
    registry_repo.runs[RUN]["name"] = "registry-checks"
    pr = registry_repo.pulls[30]
    registry_repo.checks[pr.head_sha][0]["name"] = "registry-checks"
    assert automerge(stub, capsys, "--root", str(tmp_path), "--dry-run")["merge"] is True


@pytest.mark.parametrize("labels", [("automerge", "Security-Finding"), ("automerge", "NEEDS-MAINTAINER"),
                                    ("automerge", "Invalid")])
def test_blocking_labels_block_in_any_letter_case(stub, registry_repo, capsys, labels):
    ready_pr(stub, registry_repo, labels=labels)
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert f"blocking label(s): {labels[1]}" in out["reasons"]


def test_the_automerge_label_counts_in_any_letter_case(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo, labels=("AutoMerge",))
    out = automerge(stub, capsys)
    assert out["merged"] is True and pr.merged


def test_a_stale_approval_withdraws_the_label_as_the_pr_spells_it(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo, labels=("AutoMerge",), reviews=[dict(
        {"state": "APPROVED", "submitted_at": "2026-02-01T12:00:00Z", "user": "maintainer"}, commit_id="b" * 40)])
    out = automerge(stub, capsys)
    assert out["label_removed"] is True and pr.labels == []
    assert stub.calls("DELETE", r"/issues/30/labels/AutoMerge$")


def test_the_download_follows_no_redirect_off_https(stub, registry_repo, capsys):
    ready_pr(stub, registry_repo)
    stub.artifact_redirect = "http://203.0.113.9/blob"   # plain http to a non-loopback host: never fetched
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.blob_requests
    assert "the artifact download redirects to a http URL" in reasons_of(out)


def _other_commit_report(pr):
    return artifact_zip(clean_report("c" * 40))


@pytest.mark.parametrize("tamper, reason", [
    (lambda repo, pr: repo.artifacts[RUN + 1].update(head_sha="c" * 40),
     "the artifact was made for commit cccccccccccc, not the head"),
    (lambda repo, pr: repo.artifacts[RUN + 1].update(claims_run=RUN - 1),
     "the artifact belongs to workflow run 699, not to run 700"),
    (lambda repo, pr: repo.artifacts[RUN + 1].update(data=_other_commit_report(pr)),
     "the `validate` report records commit cccccccccccc, not the head"),
    (lambda repo, pr: repo.artifacts[RUN + 1].update(
        data=artifact_zip({k: v for k, v in clean_report(pr.head_sha).items() if k != "commit"})),
     "the `validate` report records no commit"),
    (lambda repo, pr: repo.artifacts[RUN + 1].update(name="validate-report-old"),
     "workflow run 700 uploaded no `validate-report` artifact"),
    (lambda repo, pr: repo.artifacts[RUN + 1].update(expired=True), "the artifact has expired"),
    # The validate run of another commit (e.g. the PR's previous head) is not this head's run.
    (lambda repo, pr: repo.runs[RUN].update(head_sha="c" * 40), "belongs to no `validate` workflow run"),
    # Nor is the run of another PR with the same head commit, from another branch (its own base, its own report).
    (lambda repo, pr: repo.runs[RUN].update(head_branch="copy"), "belongs to no `validate` workflow run"),
])
def test_an_artifact_of_another_run_or_commit_refuses(stub, registry_repo, capsys, tamper, reason):
    pr = ready_pr(stub, registry_repo)
    tamper(registry_repo, pr)
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert reason in reasons_of(out)


def _many_members() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("report.json", "{}")
        archive.writestr("other.json", "{}")
    return buffer.getvalue()


@pytest.mark.parametrize("change, reason", [
    ({"size": 50 * 1024 * 1024}, "the artifact is 52428800 bytes; the limit is 1,048,576"),
    ({"data": b"PK\x03\x04 not really a zip"}, "the archive cannot be read as a zip"),
    ({"data": _many_members()}, "the archive holds 2 member(s)"),
    ({"data": artifact_zip(b"{}", member="../report.json")}, "not one report.json"),
    # 600 KiB of spaces inflates from a tiny archive: refused from the zip's own record, never inflated.
    ({"data": artifact_zip(b" " * (600 * 1024) + b"{}")}, "report.json is 614,402 bytes; the limit is 524,288"),
    ({"data": artifact_zip(b"[" * 5000 + b"]" * 5000)}, "cannot be used: it is"),
    ({"data": artifact_zip(b"{\"schema_version\": \"1.0\"")}, "it is not valid JSON"),
    ({"data": artifact_zip({"schema_version": "1.0", "mode": "strict"})},
     "it does not match validate-report.schema.json"),
])
def test_an_oversized_or_malformed_artifact_refuses_clearly(stub, registry_repo, capsys, change, reason):
    ready_pr(stub, registry_repo)
    registry_repo.artifacts[RUN + 1].update(change)
    out = automerge(stub, capsys)
    assert out["merged"] is False and out["waiting"] is False and not stub.calls("PUT")
    assert "the `validate` report of" in reasons_of(out) and reason in reasons_of(out)


MANIFEST = "skills/pdf-tools/skill.yaml"
BASE_YAML = b'schema_version: "1.0"\nversion: 1.0.0\n'
EXCEPTION_YAML = BASE_YAML + (b"security_exceptions:\n  - rule: security-pipe-to-shell\n    file: SKILL.md\n"
                              b"    reason: it lists attacks\n")


@pytest.mark.parametrize("base, head", [
    (BASE_YAML, EXCEPTION_YAML),                                          # added
    (EXCEPTION_YAML, EXCEPTION_YAML.replace(b"lists attacks", b"is fine")),  # reworded
    (EXCEPTION_YAML, BASE_YAML),                                          # removed
    (None, EXCEPTION_YAML),                                               # a new skill.yaml that carries one
])
def test_a_pr_that_adds_or_changes_security_exceptions_needs_a_maintainer(stub, registry_repo, capsys, base, head):
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(MANIFEST, "modified" if base else "added")])
    if base is not None:
        registry_repo.contents[("main", MANIFEST)] = base
    registry_repo.contents[(pr.head_sha, MANIFEST)] = head
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert ("the PR adds or changes `security_exceptions` of skills/pdf-tools; a maintainer reviews every exception"
            in out["reasons"])


def test_an_exception_added_in_a_nested_skill_folder_needs_a_maintainer(stub, registry_repo, capsys):
    """The build publishes skills in nested folders, so a skill.yaml one level down is compared as well."""
    nested = "skills/pdf-tools/forms/skill.yaml"
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(nested, "added")])
    registry_repo.contents[(pr.head_sha, nested)] = EXCEPTION_YAML
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert any("adds or changes `security_exceptions` of skills/pdf-tools/forms" in r for r in out["reasons"])


def test_a_skill_yaml_edit_merges_until_it_touches_the_exceptions(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(MANIFEST, "modified")])
    registry_repo.contents[("main", MANIFEST)] = EXCEPTION_YAML
    registry_repo.contents[(pr.head_sha, MANIFEST)] = EXCEPTION_YAML.replace(b"1.0.0", b"1.0.1")
    assert automerge(stub, capsys, "--dry-run")["merge"] is True   # the reviewed exception stays as it was
    registry_repo.contents[(pr.head_sha, MANIFEST)] = EXCEPTION_YAML.replace(b"SKILL.md", b"scripts/run.py")
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert any("adds or changes `security_exceptions` of skills/pdf-tools" in r for r in out["reasons"])


def test_an_unreadable_skill_yaml_at_head_refuses(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(MANIFEST, "modified")])
    registry_repo.contents[("main", MANIFEST)] = BASE_YAML
    registry_repo.contents[(pr.head_sha, MANIFEST)] = b"a: [unclosed\n"
    out = automerge(stub, capsys)
    assert out["merged"] is False
    assert "`security_exceptions` cannot be compared: `skills/pdf-tools/skill.yaml` on" in reasons_of(out)


def test_the_validate_workflow_records_the_commit_it_checked(tmp_path):
    """The report automerge reads names the commit the validate job checked out; a checkout other than the PR's
    head stops the job."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from tests.workflows.calls import load

    if shutil.which("git") is None:
        pytest.skip("needs git")
    from tests.hostile.test_workflows import step

    workflows = Path(__file__).resolve().parents[2] / ".github" / "workflows"
    script = step(load(workflows / "validate.yml"), "validate/validate", "Record the validated commit in the report")
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True, timeout=60)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "head"], check=True, timeout=60)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()
    (tmp_path / "report").mkdir()
    report = tmp_path / "report" / "report.json"
    report.write_text(json.dumps(clean_report("0" * 40)), encoding="utf-8")
    python_dir = str(Path(sys.executable).parent)

    def run(sha):
        return subprocess.run(["bash", "-euo", "pipefail", "-c", script["run"]], cwd=repo, capture_output=True,
                              text=True, timeout=60, env={"PATH": f"{python_dir}:/usr/bin:/bin", "HOME": str(tmp_path),
                                                          "HEAD_SHA": sha, "RUNNER_TEMP": str(tmp_path)})

    refused = run("f" * 40)
    assert refused.returncode != 0 and "::error::" in refused.stdout
    assert json.loads(report.read_text())["commit"] == "0" * 40
    result = run(head)
    assert result.returncode == 0, result.stderr
    assert json.loads(report.read_text())["commit"] == head


@pytest.mark.parametrize("value", ["5", '""', '"a\\u0007b"'])
def test_a_bad_validate_check_setting_is_a_clear_error(stub, registry_repo, capsys, tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f'[tool.skillyard]\nname = "r"\nvalidate_check = {value}\n')
    ready_pr(stub, registry_repo)
    capsys.readouterr()
    code = skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--pr", "30", "--api-url", stub.base_url,
                           "--root", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2 and out["ok"] is False
    assert "pyproject.toml [tool.skillyard]: `validate_check` is" in out["error"] and "validate_check =" in out["fix"]
    assert not stub.calls("PUT")


POINTER = "skills/pdf-tools/source.yaml"
BASE_POINTER = b"schema_version: 1\nname: pdf-tools\nregistry:\n  tags: [docs]\n"
EXCEPTION_POINTER = BASE_POINTER + (b"  security_exceptions:\n  - rule: security-pipe-to-shell\n"
                                    b"    file: references/attacks.md\n    reason: it teaches the attack\n")


@pytest.mark.parametrize("base, head", [
    (BASE_POINTER, EXCEPTION_POINTER),                                              # added
    (EXCEPTION_POINTER, EXCEPTION_POINTER.replace(b"teaches", b"quotes")),         # reworded
    (None, EXCEPTION_POINTER),                                                      # a new pointer that carries one
])
def test_a_pointer_whose_reviewed_exceptions_change_needs_a_maintainer(stub, registry_repo, capsys, base, head):
    """A pointer's `registry.security_exceptions` is reviewed like a skill.yaml's: never automerged."""
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(POINTER, "modified" if base else "added")])
    if base is not None:
        registry_repo.contents[("main", POINTER)] = base
    registry_repo.contents[(pr.head_sha, POINTER)] = head
    out = automerge(stub, capsys)
    assert out["merged"] is False and not stub.calls("PUT")
    assert any("adds or changes `security_exceptions` of skills/pdf-tools" in r for r in out["reasons"])


def test_a_pointer_edit_outside_the_exceptions_is_not_held_for_them(stub, registry_repo, capsys):
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(POINTER, "modified")])
    registry_repo.contents[("main", POINTER)] = EXCEPTION_POINTER
    registry_repo.contents[(pr.head_sha, POINTER)] = EXCEPTION_POINTER.replace(b"[docs]", b"[docs, pdf]")
    out = automerge(stub, capsys, "--dry-run")
    assert not any("security_exceptions" in r for r in out.get("reasons", []))
