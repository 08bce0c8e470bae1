"""Hostile pull requests against the PR bots: what the author, a copycat PR or an outsider's review tries, and the
safe outcome each time (not merged, label withdrawn, nothing posted, or untrusted text left inert in the comment).

Everything runs the real `skillyard bot` command with PyGithub against the GitHub REST stand-in on 127.0.0.1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bot"))

from botkit import (  # noqa: E402  (fixtures are used by name)
    REGISTRY_SLUG,
    artifact_zip,
    bot_env,  # noqa: F401
    make_report,
    registry_doc,
    registry_repo,  # noqa: F401
    stub,  # noqa: F401
    write_artifact,
)
from ghstub import Pull, git_blob_sha  # noqa: E402
from mdcheck import split_code  # noqa: E402

from skillyard.bot import decide  # noqa: E402
from skillyard.bot.render import AUTOMERGE_MARKER, MARKER, MAX_COMMENT_CHARS, clean, render_comment  # noqa: E402
from skillyard.cli.main import skillyard_main  # noqa: E402

pytestmark = pytest.mark.usefixtures("bot_env")

OWN = [("skills/pdf-tools/SKILL.md", "modified")]
LABEL_AT = "2026-02-01T12:00:00Z"


@pytest.fixture
def repo(stub, registry_repo):  # noqa: F811
    """The registry with two skills: alice owns pdf-tools, dave owns victim."""
    data = json.dumps(registry_doc({"pdf-tools": {"author": "alice"}, "victim": {"author": "dave"}})).encode()
    registry_repo.contents[("main", "registry.json")] = data
    registry_repo.blobs[git_blob_sha(data)] = data
    return registry_repo


VALIDATE_RUN = 700  # the validate workflow run of a ready PR's head, and its check suite
VALIDATE_SUITE = 71


def ready(stub, repo, files=OWN, *, number=30, author="alice", reviews=None, labeller="maintainer",  # noqa: F811
          committed="2026-02-01T11:00:00Z", base="main", checks=None) -> Pull:
    """A PR that merges unless something below says otherwise: labelled and approved on its head by a maintainer,
    its validate run green with a clean report of its head covering every skill it touches."""
    head = stub.add_commit(repo, date=committed)
    pr = Pull(number, author, head, files=list(files), labels=["automerge"], base_ref=base,
              head_ref=f"branch-{number}",
              events=[{"event": "labeled", "label": "automerge", "created_at": LABEL_AT, "actor": labeller}])
    approved = [{"state": "APPROVED", "user": "maintainer", "submitted_at": LABEL_AT}]
    pr.reviews = [dict(r, commit_id=r.get("commit_id", head)) for r in (approved if reviews is None else reviews)]
    checks = checks if checks is not None else [{"name": "validate", "status": "completed", "conclusion": "success"}]
    # the validate workflow's own job, in its run's check suite (another app's `validate` never counts)
    repo.checks[head] = [dict(c, suite=c.get("suite", VALIDATE_SUITE)) if c["name"].startswith("validate") else c
                         for c in checks]
    paths = [entry[0] for entry in files] + [entry[2] for entry in files if len(entry) > 2 and entry[2]]
    touched = sorted({path.split("/")[1] for path in paths if path.startswith("skills/") and path.count("/") >= 2})
    report = make_report([{"name": name} for name in touched], changed_paths=sorted(set(paths)))
    report["commit"] = head
    repo.runs[VALIDATE_RUN + number] = {"name": "validate", "head_sha": head, "head_branch": f"branch-{number}",
                                        "pull_requests": [number], "suite": VALIDATE_SUITE}
    repo.artifacts[VALIDATE_RUN + number + 1000] = {"run": VALIDATE_RUN + number, "data": artifact_zip(report)}
    repo.pulls[number] = pr
    return pr


def automerge(stub, capsys, *args) -> dict:  # noqa: F811
    capsys.readouterr()
    argv = ["bot", "automerge", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url, "--json"]
    code = skillyard_main(argv + list(args or ("--pr", "30")))
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def assert_not_merged(stub, pr, out, *needles):  # noqa: F811
    assert out["merged"] is False and out["merge"] is False and not pr.merged
    assert not stub.calls("PUT", r"/merge$")
    for needle in needles:
        assert any(needle in reason for reason in out["reasons"]), (needle, out["reasons"])


def test_the_baseline_pr_merges(stub, repo, capsys):  # noqa: F811
    """Without this, every "not merged" below could pass for an unrelated reason."""
    pr = ready(stub, repo)
    out = automerge(stub, capsys)
    assert out["merged"] is True and pr.merged and out["reasons"] == []


# ---- item 1: every path a PR touches, old and new names ----------------------------------------------------------

@pytest.mark.parametrize("files, needle", [
    # rename into your own folder from another skill: the old path is a change to that skill
    ([("skills/pdf-tools/stolen.md", "renamed", "skills/victim/SKILL.md")], "does not own skills/victim"),
    ([("skills/pdf-tools/CODEOWNERS", "renamed", ".github/CODEOWNERS")], "outside skills/"),
    ([("skills/pdf-tools/x.yml", "renamed", ".github/workflows/publish.yml")], "outside skills/"),
    ([("skills/pdf-tools/pyproject.toml", "renamed", "pyproject.toml")], "outside skills/"),
    ([("skills/pdf-tools/registry.json", "renamed", "registry.json")], "outside skills/"),
    ([("skills/pdf-tools/noxfile.py", "renamed", "noxfile.py")], "outside skills/"),
    # and the other way round: moving your file over someone else's
    ([("skills/victim/SKILL.md", "renamed", "skills/pdf-tools/SKILL.md")], "does not own skills/victim"),
    # mode changes (made executable, turned into a symlink) have status "changed" and no patch
    ([("skills/victim/scripts/run.py", "changed")], "does not own skills/victim"),
    ([(".ci/run", "changed")], "outside skills/"),
    # deleting another's skill
    ([("skills/victim/SKILL.md", "removed"), ("skills/victim/scripts/run.py", "removed")],
     "does not own skills/victim"),
    # case tricks and look-alikes of a folder the author owns or a folder someone else owns
    ([("Skills/victim/SKILL.md", "modified")], "is in `Skills/`"),
    ([("skills/Victim/SKILL.md", "added")], "differs from the existing `skills/victim` only by letter case"),
    ([("skills/PDF-tools/SKILL.md", "modified")], "only by letter case"),
    ([("skills/pdf\u2010tools/SKILL.md", "modified")], "is not a skill name"),       # U+2010 HYPHEN
    ([("skills/\u0440df-tools/SKILL.md", "modified")], "is not a skill name"),       # Cyrillic er
    ([("skills/pdf-tools\u200b/SKILL.md", "modified")], "ZERO WIDTH SPACE"),
    ([("skills/pdf-tools/../victim/SKILL.md", "modified")], "climbs out of the folder"),
    ([("skills/pdf-tools/.git/config", "added")], "version-control system"),
    ([("skills/pdf-tools/SKILL.md", "weird")], "unknown status"),
])
def test_paths_outside_owned_folders_block_automerge(stub, repo, capsys, files, needle):  # noqa: F811
    pr = ready(stub, repo, OWN + files)
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, needle)


def test_an_owner_may_rename_and_chmod_inside_their_own_folder(stub, repo, capsys):  # noqa: F811
    pr = ready(stub, repo, [("skills/pdf-tools/scripts/main.py", "renamed", "skills/pdf-tools/scripts/run.py"),
                            ("skills/pdf-tools/scripts/main.py", "changed")])
    out = automerge(stub, capsys)
    assert out["merged"] is True and pr.merged


@pytest.mark.parametrize("count", [3000, 3001, 3500])
def test_a_pr_the_files_api_truncates_is_never_merged(stub, repo, capsys, count):  # noqa: F811
    files = [(f"skills/pdf-tools/f{i}.md", "added") for i in range(count)]
    pr = ready(stub, repo, files)
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, "the files API lists at most 3,000")


def test_report_labels_a_rename_from_another_skill_and_shows_the_old_path(stub, repo, tmp_path):  # noqa: F811
    files = [("skills/pdf-tools/SKILL.md", "renamed", "skills/victim/SKILL.md")]
    repo.pulls[5] = Pull(5, "alice", "e" * 40, files=files)
    artifact = write_artifact(tmp_path, make_report([{"name": "pdf-tools"}],
                                                    ["skills/pdf-tools/SKILL.md", "skills/victim/SKILL.md"]))
    assert skillyard_main(["bot", "report", "--repo", REGISTRY_SLUG, "--pr", "5", "--artifact", str(artifact),
                           "--api-url", stub.base_url]) == 0
    assert "needs-maintainer" in repo.pulls[5].labels
    [comment] = [c for c in repo.comments.values() if c["issue"] == 5]
    assert "skills/victim" in comment["body"] and "Needs a maintainer" in comment["body"]


def test_classify_counts_a_rename_at_both_names():
    reg = registry_doc({"pdf-tools": {"author": "alice"}, "victim": {"author": "dave"}})
    changes = decide.classify_changes([decide.PrFile("skills/pdf-tools/a.md", "renamed", ".github/CODEOWNERS"),
                                       decide.PrFile("skills/pdf-tools/b.md", "renamed", "skills/victim/SKILL.md")],
                                      reg)
    assert changes.outside == (".github/CODEOWNERS",)
    assert {(c.folder, c.kind) for c in changes.skills} == {("skills/pdf-tools", "update"),
                                                            ("skills/victim", "update")}
    assert decide.unowned_folders(changes, decide.owners_from_registry(reg), "alice") == ["skills/victim"]


# ---- items 2 and 3: who labelled, who approved, on which commit ----------------------------------------------------

def test_label_then_a_back_dated_commit_withdraws_the_label(stub, repo, capsys):  # noqa: F811
    # The new head claims a committer date a day before the label; the maintainer approved the previous head.
    pr = ready(stub, repo, committed="2026-01-31T00:00:00Z",
               reviews=[{"state": "APPROVED", "user": "maintainer", "commit_id": "c" * 40}])
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, "a commit landed after @maintainer's approval")
    assert out["label_removed"] is True and "automerge" not in pr.labels


def test_label_added_by_someone_without_write_access_is_withdrawn(stub, repo, capsys):  # noqa: F811
    pr = ready(stub, repo, labeller="mallory",    # triage: can label, cannot write
               reviews=[{"state": "APPROVED", "user": "mallory"}, {"state": "APPROVED", "user": "maintainer"}])
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, "added by @mallory, who has no write access")
    assert out["label_removed"] is True and "automerge" not in pr.labels


@pytest.mark.parametrize("reviews, needle", [
    # an outsider's approval is not the labelling maintainer's
    ([{"state": "APPROVED", "user": "eve"}], "has not approved"),
    # a maintainer's change request stands through later comments and others' approvals
    ([{"state": "CHANGES_REQUESTED", "user": "maintainer"}, {"state": "COMMENTED", "user": "maintainer"}],
     "@maintainer requests changes"),
    ([{"state": "APPROVED", "user": "maintainer"}, {"state": "CHANGES_REQUESTED", "user": "bob"},
      {"state": "APPROVED", "user": "eve"}, {"state": "COMMENTED", "user": "bob"}], "@bob requests changes"),
    ([{"state": "APPROVED", "user": "maintainer"}, {"state": "CHANGES_REQUESTED", "user": "maintainer"},
      {"state": "COMMENTED", "user": "eve"}], "@maintainer requests changes"),
    # a stale approval on an old SHA
    ([{"state": "APPROVED", "user": "maintainer", "commit_id": "d" * 40}], "a commit landed after"),
    ([], "has not approved"),
])
def test_reviews_that_must_block(stub, repo, capsys, reviews, needle):  # noqa: F811
    pr = ready(stub, repo, reviews=reviews)
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, needle)


def test_a_dismissed_change_request_no_longer_blocks(stub, repo, capsys):  # noqa: F811
    # GitHub turns a dismissed review's state into DISMISSED.
    pr = ready(stub, repo, reviews=[{"state": "DISMISSED", "user": "bob"}, {"state": "COMMENTED", "user": "bob"},
                                    {"state": "APPROVED", "user": "maintainer"}])
    out = automerge(stub, capsys)
    assert out["merged"] is True and pr.merged


def test_standing_reviews_follow_githubs_rule():
    r = decide.Review
    standing = decide.standing_reviews([r("CHANGES_REQUESTED", "a", user="M"), r("COMMENTED", "b", user="m"),
                                        r("APPROVED", "a", user="x"), r("DISMISSED", "a", user="x")])
    assert {k: v.state for k, v in standing.items()} == {"m": "CHANGES_REQUESTED", "x": "DISMISSED"}


def test_a_pr_into_another_branch_is_not_merged(stub, repo, capsys):  # noqa: F811
    pr = ready(stub, repo, base="release-1")
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, "not the default branch `main`")


# ---- item 4: which PR ------------------------------------------------------------------------------------------

def _copycat(stub, repo):  # noqa: F811
    """PR 30 (alice's, ready to merge) and PR 31, carol's copy of the same branch from her fork: same head SHA."""
    original = ready(stub, repo, number=30)
    stub.add_repo("carol/registry", parent=REGISTRY_SLUG)
    copy = Pull(31, "carol", original.head_sha, files=list(OWN) + [("noxfile.py", "modified")],
                labels=["automerge"], head_ref="branch-30", head_repo="carol/registry",
                events=[{"event": "labeled", "label": "automerge", "created_at": LABEL_AT, "actor": "maintainer"}])
    repo.pulls[31] = copy
    return original, copy


@pytest.mark.parametrize("command", ["automerge", "report"])
def test_two_prs_with_one_head_sha_are_refused_by_sha(stub, repo, tmp_path, capsys, command):  # noqa: F811
    original, copy = _copycat(stub, repo)
    argv = ["bot", command, "--repo", REGISTRY_SLUG, "--head-sha", original.head_sha, "--api-url", stub.base_url]
    if command == "report":
        argv += ["--artifact", str(write_artifact(tmp_path, make_report([{"name": "pdf-tools"}])))]
    capsys.readouterr()
    assert skillyard_main(argv) == 1
    err = capsys.readouterr().err
    assert "2 open PRs match" in err and "#30" in err and "#31" in err and "Traceback" not in err
    assert stub.writes() == [] and not original.merged and not copy.merged


def test_the_run_names_its_own_pr(stub, repo, capsys):  # noqa: F811
    original, copy = _copycat(stub, repo)
    repo.runs[77] = {"head_sha": original.head_sha, "head_branch": "branch-30", "pull_requests": [30]}
    out = automerge(stub, capsys, "--run-id", "77")
    assert out["pr"] == 30 and out["merged"] is True and original.merged and not copy.merged


def test_a_fork_run_is_resolved_by_head_repository_and_branch(stub, repo, capsys):  # noqa: F811
    # For fork PRs GitHub leaves the run's pull_requests empty: the head repository and branch decide.
    original, copy = _copycat(stub, repo)
    repo.runs[78] = {"head_sha": original.head_sha, "head_branch": "branch-30", "head_repo": "carol/registry",
                     "pull_requests": []}
    out = automerge(stub, capsys, "--run-id", "78")
    assert out["pr"] == 31 and not copy.merged and any("outside skills/" in r for r in out["reasons"])
    assert not original.merged and not stub.calls("PUT")


def test_a_run_that_fits_two_prs_is_refused(stub, repo, capsys):  # noqa: F811
    original, _ = _copycat(stub, repo)
    twin = Pull(32, "alice", original.head_sha, files=list(OWN), labels=["automerge"], head_ref="branch-30",
                base_ref="main")
    repo.pulls[32] = twin
    repo.runs[79] = {"head_sha": original.head_sha, "head_branch": "branch-30", "pull_requests": []}
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--run-id", "79",
                           "--api-url", stub.base_url]) == 1
    assert "refusing to guess" in capsys.readouterr().err
    assert stub.writes() == []


def test_a_run_of_a_push_is_not_a_pr(stub, repo, capsys):  # noqa: F811
    original, _ = _copycat(stub, repo)
    repo.runs[80] = {"head_sha": original.head_sha, "event": "push", "pull_requests": []}
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--run-id", "80",
                           "--api-url", stub.base_url]) == 1
    assert "not by a pull request" in capsys.readouterr().err and stub.writes() == []


# ---- item 6: not green yet: say so, retry later ----------------------------------------------------------------

def test_pending_checks_are_reported_in_the_pr_then_the_last_check_merges(stub, repo, capsys):  # noqa: F811
    pr = ready(stub, repo, checks=[{"name": "validate", "status": "completed", "conclusion": "success"},
                                   {"name": "tests", "status": "in_progress", "conclusion": None}])
    repo.runs[90] = {"head_sha": pr.head_sha, "head_branch": "branch-30", "pull_requests": [30], "name": "ci"}
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, "check `tests` is in_progress")
    assert out["waiting"] is True and out["label_removed"] is False
    [note] = [c for c in repo.comments.values() if c["body"].startswith(AUTOMERGE_MARKER)]
    assert "tries again" in note["body"]
    repo.checks[pr.head_sha][1].update(status="completed", conclusion="success")
    out = automerge(stub, capsys, "--run-id", "90")
    assert out["merged"] is True and pr.merged


# ---- item 5: the sticky comment ---------------------------------------------------------------------------------

HOSTILE_TEXTS = [
    "[click me](https://evil.example/phish)",
    "![tracker](https://evil.example/pixel.png)",
    "<img src=x onerror=alert(1)> <details open><summary>ok</summary></details>",
    "ping @everyone and @skillyard/maintainers",
    "see https://evil.example/x and www.evil.example and evil@example.com",
    "admin\u202euser\u2066 zero\u200bwidth\u200d\ufeff joiner \u2800 blank",
    "`` ` `` break ``` out ```` of ` code",
    "ends with a backtick `",
    "#1 closes #2 and GH-3 :shipit:",
    "line one\nline two\r\n| table | row |",
    "-->" + "<!-- skillyard-bot:report -->",
]


def _evil_report(message: str, **kw) -> dict:
    finding = {"rule": "security-pipe-to-shell", "severity": "error", "message": message, "fix": message,
               "file": "SKILL.md", "line": 3}
    report = make_report([{"name": "pdf-tools", "valid": False, "findings": [finding], **kw}])
    return report


def _assert_inert(body: str, texts, *, all_shown: bool = True) -> None:
    """No untrusted word outside code spans, no invisible character anywhere; with `all_shown`, each one is shown."""
    outside, spans = split_code(body)
    assert not any(ch in body for ch in "\u202e\u2066\u200b\u200d\ufeff\u2800")
    for text in texts:
        for word in ("evil", "onerror", "everyone", "maintainers", "tracker", "shipit", "closes"):
            if word in text:
                assert word not in outside, (word, outside)
                assert not all_shown or any(word in span for span in spans)
    assert outside.count(MARKER) == 1 and outside.count("-->") == 1   # only our own marker is live markup


def test_hostile_messages_and_file_names_stay_inert_in_the_sticky_comment(stub, repo, tmp_path):  # noqa: F811
    names = ["skills/pdf-tools/[x](https://evil.example).md", "skills/pdf-tools/@everyone.md",
             "www.evil.example/`x`.md"]
    repo.pulls[6] = Pull(6, "carol", "f" * 40, files=[(n, "added") for n in names] + OWN)
    artifact = write_artifact(tmp_path, make_report(
        [{"name": "pdf-tools", "valid": False, "findings": [
            {"rule": "security-x", "severity": "error", "message": t, "fix": t, "file": "SKILL.md"}
            for t in HOSTILE_TEXTS]}]))
    assert skillyard_main(["bot", "report", "--repo", REGISTRY_SLUG, "--pr", "6", "--artifact", str(artifact),
                           "--api-url", stub.base_url]) == 0
    [comment] = [c for c in repo.comments.values() if c["issue"] == 6]
    _assert_inert(comment["body"], HOSTILE_TEXTS + names)
    assert comment["body"].startswith(MARKER + "\n")


def test_the_comment_is_capped():
    report = make_report([{"name": f"s{i}", "valid": False, "findings": [
        {"rule": "r", "severity": "error", "message": "`" * 900 + "x" * 5000} for _ in range(200)]}
        for i in range(5)])
    body = render_comment(report)
    assert len(body) <= MAX_COMMENT_CHARS + 200 and "too long to show in full" in body
    # every code span opened is closed: the cut happens between lines
    outside, _ = split_code(body)
    assert "xxxxx" not in outside


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_untrusted_text_changes_nothing_outside_code_spans(text):
    """Whatever the message says, the Markdown outside code spans is the same as for a harmless message."""
    assume(clean(text))
    body = render_comment(_evil_report(text))
    baseline = render_comment(_evil_report("harmless"))
    assert split_code(body)[0] == split_code(baseline)[0]
    assert "\n" not in clean(text) and len(clean(text)) <= 400


_SEGMENTS = st.sampled_from(["skills", "Skills", "skills ", "pdf-tools", "PDF-tools", "pdf\u2010tools", "victim",
                             "..", ".", "", ".github", "workflows", "CODEOWNERS", "x.md", "SKILL.md", ".git",
                             "pyproject.toml", "pdf-tools\u200b", "scripts"])
_PATHS = st.lists(_SEGMENTS, min_size=1, max_size=5).map("/".join)
_FILES = st.lists(st.builds(decide.PrFile, _PATHS, st.sampled_from(sorted(decide.FILE_STATUSES) + ["weird"]),
                            st.none() | _PATHS), min_size=1, max_size=8)


@settings(max_examples=400, deadline=None)
@given(_FILES)
def test_automerge_only_ever_merges_paths_inside_the_authors_own_folder(files):
    """For any file list: a merge means every path the PR touches, under either name, is a clean path in
    `skills/pdf-tools/` (the folder alice owns); anything else yields a reason."""
    from skillyard.format.paths import path_problem

    reg = registry_doc({"pdf-tools": {"author": "alice"}, "victim": {"author": "dave"}})
    facts = decide.AutomergeFacts(
        author="alice", head_sha="h" * 40, changes=decide.classify_changes(files, reg),
        owners=decide.owners_from_registry(reg), labels=frozenset({"automerge"}), label_actor="maint",
        writers=frozenset({"maint"}), reviews=(decide.Review("APPROVED", "h" * 40, user="maint"),),
        checks=(decide.Check("ci", "completed", "success"),))
    decision = decide.automerge_decision(facts)
    touched = [p for f in files for p in (f.path, f.previous) if p]
    if decision.merge:
        assert all(p.startswith("skills/pdf-tools/") and path_problem(p) is None for p in touched), touched
        assert all(f.status in decide.FILE_STATUSES for f in files)
    else:
        assert decision.reasons


def test_the_automerge_note_keeps_hostile_names_inert(stub, repo, capsys):  # noqa: F811
    names = ["skills/pdf-tools/[x](https://evil.example).md", "skills/Victim/@everyone.md",
             "www.evil.example/\u202ecloses #1.md", "skills/pdf-tools/``tick``.md"]
    pr = ready(stub, repo, OWN + [(n, "added") for n in names])
    out = automerge(stub, capsys)
    assert_not_merged(stub, pr, out, "only by letter case")
    [note] = [c for c in repo.comments.values() if c["body"].startswith(AUTOMERGE_MARKER)]
    assert "Automerge is blocked" in note["body"]
    _assert_inert(note["body"].replace(AUTOMERGE_MARKER, MARKER), names, all_shown=False)
    assert "closes" in note["body"] and "\ufffd" in note["body"]      # the bidi override is shown, not obeyed


def test_an_unknown_run_is_a_clear_error_and_nothing_is_written(stub, repo, capsys):  # noqa: F811
    ready(stub, repo)
    capsys.readouterr()
    assert skillyard_main(["bot", "automerge", "--repo", REGISTRY_SLUG, "--run-id", "404404",
                           "--api-url", stub.base_url]) == 1
    err = capsys.readouterr().err
    assert "cannot read workflow run 404404" in err and "--run-id" in err and "Traceback" not in err
    assert stub.writes() == [] and not repo.pulls[30].merged
