"""`skillyard bot report` end to end: real PyGithub against the GitHub stand-in on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from botkit import REGISTRY_SLUG, make_report, write_artifact
from ghstub import Pull, fake_sha

from skillyard.bot.render import MARKER
from skillyard.cli.main import skillyard_main

pytestmark = pytest.mark.usefixtures("bot_env")


def open_pr(repo, number: int, author: str, files: list[tuple[str, str]], labels=()) -> Pull:
    pr = Pull(number, author, fake_sha("head", number), files=list(files), labels=list(labels))
    repo.pulls[number] = pr
    return pr


def report_cmd(stub, artifact, pr: int | None = None, *extra: str) -> int:
    argv = ["bot", "report", "--repo", REGISTRY_SLUG, "--artifact", str(artifact), "--api-url", stub.base_url]
    if pr is not None:
        argv += ["--pr", str(pr)]
    return skillyard_main(argv + list(extra))


def bot_comments(repo, number: int) -> list[dict]:
    return [c for c in repo.comments.values() if c["issue"] == number and MARKER in c["body"]]


NEW_FILES = [("skills/new-skill/SKILL.md", "added"), ("skills/new-skill/scripts/go.py", "added")]
WARN = {"rule": "description-short", "severity": "warning", "message": "The description is short.",
        "fix": "Say when to use it.", "file": "SKILL.md", "line": 3}
ERR = {"rule": "name-mismatch", "severity": "error", "message": "name does not match the folder.",
       "fix": "Rename the folder.", "file": "SKILL.md", "line": 2, "field": "name"}
SEC = {"rule": "security-pipe-to-shell", "severity": "warning", "message": "Pipes a download into a shell.",
       "fix": "Download, verify, then run.", "file": "SKILL.md", "line": 9}


def test_new_valid_skill_gets_one_sticky_comment_edited_in_place(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 1, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}], [p for p, _ in NEW_FILES]))
    assert report_cmd(stub, artifact, 1) == 0
    assert registry_repo.pulls[1].labels == ["new-skill"]
    [comment] = bot_comments(registry_repo, 1)
    assert comment["user"] == "skillyard-bot"
    assert "skill install new-skill" in comment["body"] and "✅" in comment["body"]
    assert len(stub.calls("POST", r"/issues/1/comments$")) == 1

    # Same report again: nothing is re-posted or edited.
    stub.requests.clear()
    assert report_cmd(stub, artifact, 1) == 0
    assert not stub.calls("POST", "comments") and not stub.calls("PATCH") and not stub.calls("POST", "labels")

    # A changed report: the same comment is edited, never a second copy.
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill", "findings": [WARN]}],
                                                    [p for p, _ in NEW_FILES]))
    stub.requests.clear()
    assert report_cmd(stub, artifact, 1) == 0
    assert len(stub.calls("PATCH", r"/issues/comments/\d+$")) == 1
    assert not stub.calls("POST", "comments")
    [comment] = bot_comments(registry_repo, 1)
    assert "Hints" in comment["body"] and "description-short" in comment["body"]


def test_json_outcome(stub, registry_repo, tmp_path, capsys):
    open_pr(registry_repo, 1, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    capsys.readouterr()
    assert report_cmd(stub, artifact, 1, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["comment"] == "created" and out["labels"] == ["new-skill"]
    assert out["skills"] == [{"folder": "skills/new-skill", "kind": "new"}]


def test_invalid_skill(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 2, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill", "valid": False, "findings": [ERR]}]))
    assert report_cmd(stub, artifact, 2) == 0
    assert sorted(registry_repo.pulls[2].labels) == ["invalid", "new-skill"]
    [comment] = bot_comments(registry_repo, 2)
    assert "Errors (block the merge)" in comment["body"] and "skill install" not in comment["body"]


def test_update_by_owner(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 3, "alice", [("skills/pdf-tools/SKILL.md", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "pdf-tools"}]))
    assert report_cmd(stub, artifact, 3) == 0
    assert registry_repo.pulls[3].labels == ["skill-update"]


def test_update_by_maintainer_is_owner_too(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 3, "Bob", [("skills/pdf-tools/SKILL.md", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "pdf-tools"}]))
    assert report_cmd(stub, artifact, 3) == 0
    assert registry_repo.pulls[3].labels == ["skill-update"]


def test_update_by_non_owner(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 4, "carol", [("skills/pdf-tools/SKILL.md", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "pdf-tools"}]))
    assert report_cmd(stub, artifact, 4) == 0
    assert sorted(registry_repo.pulls[4].labels) == ["needs-maintainer", "skill-update"]
    [comment] = bot_comments(registry_repo, 4)
    assert "Needs a maintainer" in comment["body"]


def test_tooling_change(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 5, "alice", [(".github/workflows/ci.yml", "modified")])
    artifact = write_artifact(tmp_path, make_report([]))
    assert report_cmd(stub, artifact, 5) == 0
    assert registry_repo.pulls[5].labels == ["tooling"]


def test_skill_pr_touching_tooling_needs_a_maintainer(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 6, "carol", NEW_FILES + [("pyproject.toml", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 6) == 0
    assert sorted(registry_repo.pulls[6].labels) == ["needs-maintainer", "new-skill", "tooling"]
    assert "pyproject.toml" in bot_comments(registry_repo, 6)[0]["body"]


def test_security_finding(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 7, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill", "findings": [SEC]}]))
    assert report_cmd(stub, artifact, 7) == 0
    assert sorted(registry_repo.pulls[7].labels) == ["new-skill", "security-finding"]
    assert "#### Security findings" in bot_comments(registry_repo, 7)[0]["body"]


def test_stale_managed_labels_are_removed_others_kept(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 8, "carol", NEW_FILES, labels=["invalid", "security-finding", "good first skill"])
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 8) == 0
    assert sorted(registry_repo.pulls[8].labels) == ["good first skill", "new-skill"]
    assert len(stub.calls("DELETE", r"/issues/8/labels/")) == 2


def test_pr_found_by_head_sha(stub, registry_repo, tmp_path):
    pr = open_pr(registry_repo, 9, "carol", NEW_FILES)
    open_pr(registry_repo, 10, "dave", [("README.md", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, None, "--head-sha", pr.head_sha) == 0
    assert registry_repo.pulls[9].labels == ["new-skill"] and registry_repo.pulls[10].labels == []


def test_actions_token_without_user_endpoint(stub, registry_repo, tmp_path, monkeypatch):
    stub.tokens["actions-token"] = "github-actions[bot]"
    stub.user_endpoint_forbidden = True
    monkeypatch.setenv("GITHUB_TOKEN", "actions-token")
    open_pr(registry_repo, 11, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 11) == 0
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill", "findings": [WARN]}]))
    assert report_cmd(stub, artifact, 11) == 0
    assert len(bot_comments(registry_repo, 11)) == 1


def test_someone_elses_marker_comment_is_not_taken_over(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 12, "carol", NEW_FILES)
    registry_repo.comments[1] = {"issue": 12, "user": "carol", "body": MARKER + "\nfake all-green report"}
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 12) == 0
    assert registry_repo.comments[1]["body"].endswith("fake all-green report")
    assert [c["user"] for c in bot_comments(registry_repo, 12)] == ["carol", "skillyard-bot"]


def test_duplicate_bot_comments_are_collapsed(stub, registry_repo, tmp_path):
    open_pr(registry_repo, 13, "carol", NEW_FILES)
    for cid in (1, 2):
        registry_repo.comments[cid] = {"issue": 13, "user": "skillyard-bot", "body": MARKER + " old"}
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 13) == 0
    assert len(bot_comments(registry_repo, 13)) == 1 and 1 in registry_repo.comments


def test_missing_token_is_a_clear_error(stub, registry_repo, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_TOKEN")
    open_pr(registry_repo, 14, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 14) == 1
    assert "GITHUB_TOKEN" in capsys.readouterr().err
    assert not stub.requests


# ---- hostile artifacts: rejected, nothing posted ----------------------------------------------------------------

def _hostile():
    good = make_report([{"name": "new-skill"}])
    traversal = make_report([{"name": "new-skill", "path": "skills/../../etc"}])
    abs_file = make_report([{"name": "new-skill", "findings": [{**WARN, "file": "/etc/passwd"}]}])
    bad_changed = make_report([{"name": "new-skill"}], ["skills/new-skill/../../x"])
    lying = make_report([{"name": "new-skill", "valid": False, "findings": [ERR]}])
    lying["ok"] = True
    lying["summary"]["invalid"] = 1
    nested = '{"a":' * 5000 + "1" + "}" * 5000
    return {
        "huge": json.dumps({**good, "padding": "x" * 600_000}),
        "malformed": '{"schema_version": "1.0", "skills": [',
        "nan": json.dumps(good).replace('"skills": 1', '"skills": NaN'),
        "schema-invalid": json.dumps({**good, "extra": True}),
        "not-utf8": b"\xff\xfe{}",
        "traversal": json.dumps(traversal),
        "absolute-finding-file": json.dumps(abs_file),
        "traversal-changed-path": json.dumps(bad_changed),
        "ok-but-invalid": json.dumps(lying),
        "deep": nested,
        "other-pr": json.dumps(make_report([{"name": "pdf-tools"}])),
        "other-files": json.dumps(make_report([{"name": "new-skill"}], ["skills/new-skill/SKILL.md", "skills/x/SKILL.md"])),
    }


@pytest.mark.parametrize("case", sorted(_hostile()))
def test_hostile_artifact_is_rejected_without_posting(stub, registry_repo, tmp_path, capsys, case):
    open_pr(registry_repo, 20, "carol", NEW_FILES)
    content = _hostile()[case]
    path = tmp_path / "report.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert report_cmd(stub, path, 20) == 1
    assert "rejected artifact" in capsys.readouterr().err
    assert stub.writes() == []
    assert registry_repo.pulls[20].labels == [] and not registry_repo.comments


def test_wrong_pr_number_is_rejected(stub, registry_repo, tmp_path, capsys):
    validated = open_pr(registry_repo, 21, "carol", NEW_FILES)
    open_pr(registry_repo, 22, "carol", NEW_FILES)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill"}]))
    assert report_cmd(stub, artifact, 22, "--head-sha", validated.head_sha) == 1
    assert "validated commit" in capsys.readouterr().err
    assert stub.writes() == []


def test_symlinked_artifact_is_rejected(stub, registry_repo, tmp_path, capsys):
    open_pr(registry_repo, 23, "carol", NEW_FILES)
    real = write_artifact(tmp_path, make_report([{"name": "new-skill"}]), "real.json")
    link = tmp_path / "report.json"
    link.symlink_to(real)
    assert report_cmd(stub, link, 23) == 1
    assert "not a regular file" in capsys.readouterr().err
    assert not stub.requests


def test_real_validate_output_is_accepted_as_the_artifact(stub, registry_repo, tmp_path):
    """The lead's `skillyard validate --json` is the artifact: the bot must accept what it really prints."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "skillyard.cli.main", "validate", "skills/csv-profiler", "--json"],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert result.stdout.strip(), result.stderr
    report = json.loads(result.stdout)
    files = [("skills/csv-profiler/SKILL.md", "added"), ("skills/csv-profiler/scripts/csv_profile.py", "added")]
    open_pr(registry_repo, 40, "carol", files)
    artifact = write_artifact(tmp_path, report)
    assert report_cmd(stub, artifact, 40) == 0
    assert "new-skill" in registry_repo.pulls[40].labels
    [comment] = bot_comments(registry_repo, 40)
    assert "csv-profiler" in comment["body"]


def test_registry_over_the_contents_limit_is_read_as_a_blob(stub, registry_repo, tmp_path):
    stub.large_file_bytes = 100
    open_pr(registry_repo, 41, "alice", [("skills/pdf-tools/SKILL.md", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "pdf-tools"}]))
    assert report_cmd(stub, artifact, 41) == 0
    assert stub.calls("GET", r"/git/blobs/[0-9a-f]{40}$")
    assert registry_repo.pulls[41].labels == ["skill-update"]     # alice's ownership came from the blob


def test_registry_file_option_overrides_the_base_branch(stub, registry_repo, tmp_path):
    from botkit import registry_doc

    local = tmp_path / "registry.json"
    local.write_text(json.dumps(registry_doc({"pdf-tools": {"author": "carol"}})), encoding="utf-8")
    open_pr(registry_repo, 42, "carol", [("skills/pdf-tools/SKILL.md", "modified")])
    artifact = write_artifact(tmp_path, make_report([{"name": "pdf-tools"}]))
    assert report_cmd(stub, artifact, 42, "--registry", str(local)) == 0
    assert registry_repo.pulls[42].labels == ["skill-update"] and not stub.calls("GET", "/contents/")


def test_unknown_repository_is_a_clean_error(stub, registry_repo, tmp_path, capsys):
    artifact = write_artifact(tmp_path, make_report([]))
    code = skillyard_main(["bot", "report", "--repo", "nobody/nothing", "--pr", "1", "--artifact", str(artifact),
                           "--api-url", stub.base_url])
    assert code == 1
    err = capsys.readouterr().err
    assert "GitHub answered 404" in err and "Traceback" not in err


def test_a_registry_with_another_skills_folder_names_it(stub, registry_repo, tmp_path, capsys):
    """`--skills-dir` (the reusable workflows pass their `skills-dir` input): the PR's skill is found there, and a
    change under `skills/` is then outside the skill folder."""
    files = [("catalog/new-skill/SKILL.md", "added")]
    open_pr(registry_repo, 5, "carol", files)
    artifact = write_artifact(tmp_path, make_report([{"name": "new-skill", "path": "catalog/new-skill"}],
                                                    [p for p, _ in files]))
    capsys.readouterr()
    assert report_cmd(stub, artifact, 5, "--skills-dir", "catalog", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["skills"] == [{"folder": "catalog/new-skill", "kind": "new"}] and out["outside"] == []
    assert registry_repo.pulls[5].labels == ["new-skill"]

    open_pr(registry_repo, 6, "carol", [("skills/new-skill/SKILL.md", "added")])
    artifact = write_artifact(tmp_path, make_report([], ["skills/new-skill/SKILL.md"]))
    assert report_cmd(stub, artifact, 6, "--skills-dir", "catalog", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["skills"] == [] and out["outside"] == ["skills/new-skill/SKILL.md"]


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "../skills", "a\\b", ".git", "CON"])
def test_a_skills_dir_that_is_not_one_plain_folder_is_refused(stub, registry_repo, tmp_path, capsys, bad):
    artifact = write_artifact(tmp_path, make_report([]))
    capsys.readouterr()
    assert report_cmd(stub, artifact, 1, "--skills-dir", bad) == 2
    err = capsys.readouterr().err
    assert "--skills-dir" in err and "Traceback" not in err
    assert not stub.requests  # refused before any API call


def test_a_report_of_another_commit_is_not_posted(stub, registry_repo, tmp_path, capsys):
    """The validate workflow records the commit it checked: a report of the PR's previous head is refused."""
    pr = open_pr(registry_repo, 50, "carol", NEW_FILES)
    doc = make_report([{"name": "new-skill", "findings": [SEC]}], [p for p, _ in NEW_FILES])
    doc["commit"] = "c" * 40
    assert report_cmd(stub, write_artifact(tmp_path, doc), 50) != 0
    assert "it records commit cccccccccccc, but PR #50's head is" in capsys.readouterr().err
    assert not stub.writes()
    doc["commit"] = pr.head_sha
    assert report_cmd(stub, write_artifact(tmp_path, doc), 50) == 0
    assert sorted(pr.labels) == ["new-skill", "security-finding"]


def test_a_pr_that_changes_security_exceptions_is_labelled_needs_maintainer(stub, registry_repo, tmp_path):
    files = [("skills/pdf-tools/skill.yaml", "modified")]
    pr = open_pr(registry_repo, 51, "alice", files)
    registry_repo.contents[("main", "skills/pdf-tools/skill.yaml")] = b'version: 1.0.0\n'
    registry_repo.contents[(pr.head_sha, "skills/pdf-tools/skill.yaml")] = (
        b"version: 1.0.0\nsecurity_exceptions:\n  - {rule: security-pipe-to-shell, file: SKILL.md, reason: quoted}\n")
    doc = make_report([{"name": "pdf-tools"}], [p for p, _ in files])
    assert report_cmd(stub, write_artifact(tmp_path, doc), 51) == 0
    assert sorted(pr.labels) == ["needs-maintainer", "skill-update"]


def test_managed_labels_match_in_any_letter_case(stub, registry_repo, tmp_path):
    """GitHub's label names ignore letter case: a stale `Security-Finding` is removed, `New-Skill` is kept."""
    pr = open_pr(registry_repo, 52, "carol", NEW_FILES, labels=["Security-Finding", "New-Skill"])
    doc = make_report([{"name": "new-skill"}], [p for p, _ in NEW_FILES])
    assert report_cmd(stub, write_artifact(tmp_path, doc), 52) == 0
    assert pr.labels == ["New-Skill"]
    assert not stub.calls("POST", r"/issues/52/labels$")
    assert [c.path for c in stub.calls("DELETE")] == ["/repos/skillyard/registry/issues/52/labels/Security-Finding"]
