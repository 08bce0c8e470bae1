"""`skillyard bot record-verification` against the GitHub stand-in (issue 26 item 6): a pin is verified only when a
maintainer of the registry approved the merged head of the PR that set it; a hand-written block never survives."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path

import pytest
from botkit import REGISTRY_SLUG
from ghstub import Pull
from tests.support.cli_schemas import check_output

from skillyard.cli.main import skillyard_main
from skillyard.format.pointer import dump_pointer, parse_pointer

pytestmark = pytest.mark.usefixtures("bot_env")

PATH = "skills/alpha/source.yaml"
AT = "2026-11-26T10:00:00Z"
POINTER = {
    "schema_version": 1, "name": "alpha",
    "upstream": {"host": "github", "repository": "up/skills", "path": "skills/alpha", "commit": "a" * 40,
                 "tracks": "main"},
    "license": "MIT",
    "skill": {"name": "alpha", "description": "Does alpha."},
    "files": [{"path": "SKILL.md", "size": 10, "sha256": "b" * 64}],
}
APPROVED = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/o/r/pull/3",
            "approved_at": "2026-11-01T09:00:00Z"}


def pointer(commit: str = "a", verification: dict | None = None, **registry) -> dict:
    data = copy.deepcopy(POINTER)
    data["upstream"]["commit"] = commit * 40
    if verification is not None:
        data["verification"] = verification
    if registry:
        data["registry"] = registry
    return data


IDENT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
         "GIT_COMMITTER_EMAIL": "t@x.invalid", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent",
         "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], env=IDENT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def checkout(tmp_path) -> Path:
    """The publish checkout: a real repository on `main` with its full history."""
    root = tmp_path / "checkout"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# registry\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    return root


def _write(root: Path, files: dict) -> list[tuple[str, str]]:
    """Write (None: delete) `files` in the work tree; the PR file list the API would give for them."""
    listed = []
    for path, data in files.items():
        existed = git(root, "ls-files", "--", path) != ""
        target = root / path
        if data is None:
            target.unlink()
            listed.append((path, "removed"))
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if isinstance(data, bytes) else dump_pointer(data).encode())
        listed.append((path, "modified" if existed else "added"))
    return listed


def commit_on_main(root: Path, files: dict, message: str = "direct") -> str:
    """A commit pushed straight to main (no PR), e.g. the state before a PR."""
    _write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def land(stub, repo, root: Path, files: dict, *, number: int = 7, author: str = "carol", reviews=(),
         how: str = "squash", steps: int = 1) -> Pull:
    """PR `number` with `files` (split over `steps` commits), merged into main by `how` (merge, squash, rebase),
    as GitHub would: the stand-in knows the PR, its head's pointer files, its merge commit."""
    branch = f"pr-{number}-{len(git(root, 'rev-list', '--all').split())}"
    git(root, "checkout", "-q", "-b", branch)
    items, listed = list(files.items()), []
    for step in range(steps):
        listed += _write(root, dict(items[step::steps]))
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", f"PR {number} step {step}")
    head = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "main")
    if how == "merge":
        git(root, "merge", "-q", "--no-ff", "-m", f"Merge PR #{number}", branch)
    elif how == "squash":
        git(root, "merge", "-q", "--squash", branch)
        git(root, "commit", "-q", "--allow-empty", "-m", f"PR #{number} (squashed)")
    else:
        git(root, "rebase", "-q", "main", branch)
        git(root, "checkout", "-q", "main")
        git(root, "merge", "-q", "--ff-only", branch)
    merge = git(root, "rev-parse", "HEAD")
    pr = Pull(number, author, head, files=listed, state="closed", merged=True, merge_commit_sha=merge,
              commits=steps)
    pr.reviews = [{"commit_id": head, "submitted_at": AT, "user": "maintainer", **r} for r in reviews]
    repo.pulls[number] = pr
    repo.commits[merge] = {"date": AT, "tree": "", "parents": [], "message": "merge"}
    for path, data in files.items():
        if data is not None:
            repo.contents[(head, path)] = data if isinstance(data, bytes) else dump_pointer(data).encode()
    return pr


def merged_pr(stub, repo, root: Path, *, merged: dict, base: dict | None = None, reviews=(), number=7,
              author="carol", how="squash") -> Pull:
    """PR `number`, merged: `merged` is the pointer it sets; `base` the one on main before it."""
    if base is not None:
        commit_on_main(root, {PATH: base})
    return land(stub, repo, root, {PATH: merged}, number=number, author=author, reviews=reviews, how=how)


def record(stub, root, capsys, *which: str, code: int = 0) -> dict:
    """Run the command with --json; its output, succeeding or failing, is what schemas/cli/ says."""
    capsys.readouterr()
    got = skillyard_main(["bot", "record-verification", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url,
                          "--root", str(root), "--json", *(which or ("--pr", "7"))])
    out = capsys.readouterr()
    assert got == code, out.err
    document = check_output("skillyard bot record-verification", got, out.out)
    return document if code == 0 else {"err": json.dumps(document)}


def block(root, path: str = PATH) -> dict:
    found, problems = parse_pointer((root / path).read_text(encoding="utf-8"), folder_name=path.split("/")[1])
    assert problems == []
    return found.data.get("verification")


def test_a_maintainers_approval_of_the_merged_head_verifies_the_new_pin(stub, registry_repo, checkout, capsys):
    pr = merged_pr(stub, registry_repo, checkout, merged=pointer(verification={"verified": False}),
                   reviews=[{"state": "APPROVED"}])
    outcome = record(stub, checkout, capsys)
    assert outcome["written"] == [PATH]
    assert block(checkout) == {"verified": True, "approved_by": "maintainer", "approved_at": AT,
                               "approved_in": f"{stub.root}/{REGISTRY_SLUG}/pull/{pr.number}"}
    entry = parse_pointer((checkout / PATH).read_text(encoding="utf-8"))[0].entry("skills/alpha")
    assert entry["verified"] is True and entry["verification"]["approved_by"] == "maintainer"
    assert record(stub, checkout, capsys)["written"] == []  # run again: nothing changes
    capsys.readouterr()
    assert skillyard_main(["bot", "record-verification", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url,
                           "--root", str(checkout), "--pr", "7"]) == 0
    assert capsys.readouterr().out == f"PR #7 {PATH}: verified by @maintainer (unchanged)\n"
    assert stub.writes() == []  # the bot never writes to GitHub here: the workflow commits the file


@pytest.mark.parametrize(("reviews", "why"), [
    ((), "no review at all (an automerged bump)"),
    (({"state": "APPROVED", "commit_id": "f" * 40},), "approved an older commit"),
    (({"state": "APPROVED", "user": "mallory"},), "approved by a user with triage permission"),
    (({"state": "APPROVED", "user": "renovate[bot]"},), "approved by a bot with write permission"),
    (({"state": "APPROVED"}, {"state": "DISMISSED"}), "the approval was dismissed"),
    (({"state": "APPROVED"}, {"state": "CHANGES_REQUESTED"}), "the approver then requested changes"),
    (({"state": "COMMENTED"},), "a comment is not an approval"),
])
def test_a_pin_merged_without_a_standing_maintainer_approval_stays_unverified(stub, registry_repo, checkout, capsys,
                                                                                reviews, why):
    registry_repo.permissions["renovate[bot]"] = "write"
    merged_pr(stub, registry_repo, checkout, merged=pointer(verification={"verified": False}), reviews=reviews)
    outcome = record(stub, checkout, capsys)
    assert block(checkout) == {"verified": False}, why
    assert outcome["written"] == [] and outcome["pointers"][0]["pin_set"] is True


def test_the_authors_own_approval_never_counts(stub, registry_repo, checkout, capsys):
    merged_pr(stub, registry_repo, checkout, merged=pointer(verification={"verified": False}), author="maintainer",
              reviews=[{"state": "APPROVED"}])
    record(stub, checkout, capsys)
    assert block(checkout) == {"verified": False}


def test_a_hand_written_approval_is_undone_at_merge(stub, registry_repo, checkout, capsys):
    forged = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/o/r/pull/1",
              "approved_at": AT}
    # A new pin whose PR writes its own approval, merged by hand with no review:
    merged_pr(stub, registry_repo, checkout, merged=pointer("c", forged), base=pointer("a"))
    assert record(stub, checkout, capsys)["written"] == [PATH]
    assert block(checkout) == {"verified": False}
    # The same pin, the PR only "verifying" it (and adding a tag):
    merged_pr(stub, registry_repo, checkout, merged=pointer("a", forged, tags=["x"]),
              base=pointer("a", {"verified": False}))
    record(stub, checkout, capsys)
    assert block(checkout) == {"verified": False}


def test_a_pr_that_leaves_the_pin_alone_keeps_its_approval(stub, registry_repo, checkout, capsys):
    merged_pr(stub, registry_repo, checkout, merged=pointer("a", {"verified": False}, tags=["x"]),
              base=pointer("a", APPROVED), reviews=[])
    outcome = record(stub, checkout, capsys)
    assert outcome["pointers"][0]["pin_set"] is False
    assert block(checkout) == APPROVED  # the approval of the pin stands, though this PR had none


def test_checked_at_is_kept_and_the_commit_finds_its_pr(stub, registry_repo, checkout, capsys):
    pr = merged_pr(stub, registry_repo, checkout,
                   merged=pointer(verification={"verified": False, "checked_at": "2026-11-26T11:00:00Z"}),
                   reviews=[{"state": "APPROVED"}])
    outcome = record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    assert outcome["pulls"] == [7]
    assert block(checkout)["checked_at"] == "2026-11-26T11:00:00Z" and block(checkout)["verified"] is True
    direct = commit_on_main(checkout, {"README.md": b"# registry, edited\n"})  # a push that merged no PR
    registry_repo.commits[direct] = {"date": AT, "tree": "", "parents": [], "message": "direct"}
    nothing = record(stub, checkout, capsys, "--commit", direct)
    assert nothing["pulls"] == [] and nothing["written"] == []


def test_dry_run_writes_nothing_and_a_broken_pointer_refuses(stub, registry_repo, checkout, capsys):
    merged_pr(stub, registry_repo, checkout, merged=pointer(verification={"verified": False}),
              reviews=[{"state": "APPROVED"}])
    before = (checkout / PATH).read_bytes()
    outcome = record(stub, checkout, capsys, "--pr", "7", "--dry-run")
    assert outcome["pointers"][0]["changed"] is True and (checkout / PATH).read_bytes() == before
    (checkout / PATH).write_text("schema_version: 1\nname: [\n", encoding="utf-8")
    failed = record(stub, checkout, capsys, code=1)
    assert PATH in failed["err"] and "not valid YAML" in failed["err"]
    assert record(stub, checkout, capsys, "--commit", "not-a-sha", code=2)["err"]
