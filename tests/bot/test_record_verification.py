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
    listed, tracked = [], set(git(root, "ls-files").splitlines())
    for path, data in files.items():
        existed = path in tracked
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
    found, problems = parse_pointer((root / path).read_text(encoding="utf-8"), folder_name=path.split("/")[-2])
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


# ---- issue 33 item 1: verification that cannot be smuggled -------------------------------------------------------

FORGED = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/skillyard/registry/pull/3",
          "approved_at": AT}


def test_a_forged_block_past_the_apis_3000_files_is_undone_from_git(stub, registry_repo, checkout, capsys):
    """The API lists 3,000 of the PR's 3,002 files; the forged pointer is the 3,002nd. git shows it all."""
    filler = {f"docs/pad/{i:04d}.md": b"x\n" for i in range(3001)}
    pr = land(stub, registry_repo, checkout, {**filler, PATH: pointer("c", FORGED)}, number=7)
    assert len(pr.files) == 3002 and pr.files[-1][0] == PATH  # past what the API lists
    outcome = record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    assert outcome["written"] == [PATH]
    assert block(checkout) == {"verified": False}
    assert outcome["pointers"] == [{"pointer": PATH, "pr": 7, "pin_set": True, "verification": {"verified": False},
                                    "changed": True}]


def test_a_merge_commit_and_a_rebase_merge_are_read_whole(stub, registry_repo, checkout, capsys):
    """Merge commits (two parents) and rebase merges (the PR's commits replayed; GitHub names the last one) are
    read as the whole change: the forged pointer in the first of three rebased commits is undone too."""
    pr = land(stub, registry_repo, checkout, {PATH: pointer("c", FORGED), "docs/a.md": b"a\n", "docs/b.md": b"b\n"},
              number=7, how="rebase", steps=3)
    assert git(checkout, "rev-list", "--count", f"{pr.merge_commit_sha}^1..{pr.merge_commit_sha}") == "1"
    assert record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)["written"] == [PATH]
    assert block(checkout) == {"verified": False}
    git(checkout, "commit", "-q", "-am", "registry: record verified pins")  # as the publish workflow does
    other = "skills/beta/source.yaml"
    merged = land(stub, registry_repo, checkout, {other: {**pointer("d", FORGED), "name": "beta"}}, number=8,
                  how="merge")
    assert record(stub, checkout, capsys, "--pr", "8")["written"] == [other]
    assert block(checkout, other) == {"verified": False} and merged.merge_commit_sha


def test_a_pr_git_does_not_show_whole_fails_loudly(stub, registry_repo, checkout, capsys):
    """GitHub counts more changed files than the merge shows (the merge commit is not the PR's change): no guess."""
    pr = land(stub, registry_repo, checkout, {PATH: pointer("c", FORGED)}, number=7)
    pr.changed_files = 5
    failed = record(stub, checkout, capsys, "--pr", "7", code=1)
    assert "PR #7" in failed["err"] and "5 changed files" in failed["err"] and "some pointer could be missed" \
        in failed["err"]
    assert block(checkout) == FORGED  # nothing written; the run (and so the publish) stops
    pr.changed_files, pr.files = None, [*pr.files, ("skills/ghost/source.yaml", "added")]
    assert "some pointer could be missed" in record(stub, checkout, capsys, "--pr", "7", code=1)["err"]


def test_a_shallow_or_incomplete_checkout_fails_loudly(stub, registry_repo, checkout, tmp_path, capsys):
    pr = merged_pr(stub, registry_repo, checkout, merged=pointer("c", FORGED), base=pointer("a"))
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{checkout}", str(shallow))
    for which in (("--commit", pr.merge_commit_sha), ("--all",)):
        failed = record(stub, shallow, capsys, *which, code=1)
        assert "is shallow" in failed["err"] and "fetch-depth: 0" in failed["err"], which
    assert block(shallow) == FORGED
    absent = "e" * 40  # a merge commit the API names but the checkout lacks
    registry_repo.commits[absent] = {"date": AT, "tree": "", "parents": [], "message": "elsewhere"}
    pr.merge_commit_sha = absent
    failed = record(stub, checkout, capsys, "--pr", "7", code=1)
    assert f"commit {absent} is not in the checkout" in failed["err"] and "fetch-depth: 0" in failed["err"]
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "not a git checkout" in record(stub, plain, capsys, "--all", code=1)["err"]


def test_a_forged_block_whose_publish_run_never_happened_is_undone_by_the_next_one(stub, registry_repo, checkout,
                                                                                   capsys):
    """PR 7 merges a hand-written approval and its publish run is cancelled (no record step); PR 8 merges something
    else. The publish run of PR 8's push re-proves every verified block and rewrites the forged one."""
    genuine = land(stub, registry_repo, checkout, {"skills/gamma/source.yaml": {**pointer("e"), "name": "gamma"}},
                   number=3, reviews=[{"state": "APPROVED"}])
    record(stub, checkout, capsys, "--commit", genuine.merge_commit_sha)  # gamma: verified by PR 3
    git(checkout, "commit", "-q", "-am", "registry: record verified pins")
    forged = {**FORGED, "approved_in": f"{stub.root}/{REGISTRY_SLUG}/pull/3"}  # a real approval, of another pin
    land(stub, registry_repo, checkout, {PATH: pointer("c", forged)}, number=7)  # its publish run never ran
    later = land(stub, registry_repo, checkout, {"docs/notes.md": b"n\n"}, number=8)
    capsys.readouterr()
    assert skillyard_main(["bot", "record-verification", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url,
                           "--root", str(checkout), "--commit", later.merge_commit_sha, "--all", "--dry-run"]) == 0
    assert capsys.readouterr().out == ("re-proved 2 verified pointer(s) naming 1 PR(s); 1 set to verified: false\n"
                                       f"  - {PATH}: the pin is not the one that PR merged\n")
    outcome = record(stub, checkout, capsys, "--commit", later.merge_commit_sha, "--all")
    assert outcome["pointers"] == [] and outcome["written"] == [PATH]
    assert outcome["proof"] == {"checked": 2, "pulls": 1, "revoked": [
        {"pointer": PATH, "pr": 3, "reason": "the pin is not the one that PR merged"}]}
    assert block(checkout) == {"verified": False}
    assert block(checkout, "skills/gamma/source.yaml")["verified"] is True


def test_a_genuine_approval_survives_every_later_re_proof(stub, registry_repo, checkout, capsys):
    for how, steps, pin in (("squash", 1, "b"), ("merge", 1, "c"), ("rebase", 2, "d")):
        commit_on_main(checkout, {PATH: pointer("a")})
        pr = land(stub, registry_repo, checkout, {PATH: pointer(pin), "docs/x.md": how.encode()},
                  number=7, reviews=[{"state": "APPROVED"}], how=how, steps=steps)
        outcome = record(stub, checkout, capsys, "--commit", pr.merge_commit_sha, "--all")
        assert block(checkout)["verified"] is True and outcome["proof"]["revoked"] == [], how
        git(checkout, "commit", "-q", "-am", "registry: record verified pins")
        later = land(stub, registry_repo, checkout, {"docs/later.md": how.encode()}, number=8)
        again = record(stub, checkout, capsys, "--commit", later.merge_commit_sha, "--all")
        assert again["proof"] == {"checked": 1, "pulls": 1, "revoked": []} and again["written"] == [], how


@pytest.mark.parametrize(("change", "reason"), [
    (lambda b, pr: {**b, "approved_in": "https://github.com/someone/else/pull/7"},
     "approved_in is not the address of a PR of this repository"),
    (lambda b, pr: {**b, "approved_in": b["approved_in"].replace("/pull/7", "/pull/99")},
     "PR #99 does not exist in this repository"),
    (lambda b, pr: {**b, "approved_by": "mallory"}, "approved_by has no write, maintain or admin permission"),
    (lambda b, pr: {**b, "approved_by": "carol"}, "approved_by is the PR's author"),
    (lambda b, pr: {**b, "approved_at": "2026-11-26T10:00:01Z"}, "approved_at is not the time of that approval"),
])
def test_the_re_proof_rewrites_every_block_it_cannot_derive(stub, registry_repo, checkout, capsys, change, reason):
    registry_repo.permissions["carol"] = "write"
    pr = merged_pr(stub, registry_repo, checkout, merged=pointer("c"), base=pointer("a"),
                   reviews=[{"state": "APPROVED"}])
    record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    assert block(checkout)["verified"] is True
    data = parse_pointer((checkout / PATH).read_text(encoding="utf-8"))[0].data
    (checkout / PATH).write_text(dump_pointer({**data, "verification": change(block(checkout), pr)}),
                                 encoding="utf-8")
    outcome = record(stub, checkout, capsys, "--all")
    assert [item["reason"] for item in outcome["proof"]["revoked"]] == [reason]
    assert block(checkout) == {"verified": False}


def test_the_re_proof_undoes_an_approval_withdrawn_or_a_pr_not_merged(stub, registry_repo, checkout, capsys):
    pr = merged_pr(stub, registry_repo, checkout, merged=pointer("c"), base=pointer("a"),
                   reviews=[{"state": "APPROVED"}])
    record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    recorded = (checkout / PATH).read_text(encoding="utf-8")
    pr.reviews.append({"state": "DISMISSED", "commit_id": pr.head_sha, "submitted_at": AT, "user": "maintainer"})
    assert record(stub, checkout, capsys, "--all", "--dry-run")["proof"]["revoked"][0]["reason"] == \
        "approved_by has no standing approval of the PR's merged head commit"
    pr.reviews.pop()
    pr.merged = False
    assert record(stub, checkout, capsys, "--all", "--dry-run")["proof"]["revoked"][0]["reason"] == \
        "the PR it names is not merged into the default branch"
    assert (checkout / PATH).read_text(encoding="utf-8") == recorded  # a dry run writes nothing
    pr.merged = True
    registry_repo.permissions["maintainer"] = "read"  # the approver left: the pin is no longer verified
    assert record(stub, checkout, capsys, "--all")["written"] == [PATH]


def test_an_api_failure_during_the_re_proof_fails_the_run(stub, registry_repo, checkout, capsys):
    pr = merged_pr(stub, registry_repo, checkout, merged=pointer("c"), base=pointer("a"),
                   reviews=[{"state": "APPROVED"}])
    record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    recorded = (checkout / PATH).read_text(encoding="utf-8")
    stub.tokens.clear()  # every API call now answers 401
    failed = record(stub, checkout, capsys, "--all", code=1)
    assert "401" in failed["err"]
    assert (checkout / PATH).read_text(encoding="utf-8") == recorded


def test_the_re_proof_is_bounded(stub, registry_repo, checkout, capsys, monkeypatch):
    from skillyard.bot import verification_proof

    pr = merged_pr(stub, registry_repo, checkout, merged=pointer("c"), base=pointer("a"),
                   reviews=[{"state": "APPROVED"}])
    record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    monkeypatch.setattr(verification_proof, "MAX_PULLS", 0)
    assert "one run re-proves at most 0" in record(stub, checkout, capsys, "--all", code=1)["err"]
    monkeypatch.setattr(verification_proof, "MAX_CLAIMS", 0)
    assert "1 pointers claim `verified: true`" in record(stub, checkout, capsys, "--all", code=1)["err"]


def test_record_verification_needs_something_to_do(stub, registry_repo, checkout, capsys):
    assert "needs --pr, --commit or --all" in record(stub, checkout, capsys, "--dry-run", code=2)["err"]


def test_a_forged_block_in_a_nested_pointer_folder_is_undone(stub, registry_repo, checkout, capsys):
    """The build publishes `skills/group/alpha/source.yaml` as a skill too: its block is decided at merge, and
    re-proved with every other (a block left there by a run that never happened is undone)."""
    nested = "skills/group/alpha/source.yaml"
    pr = land(stub, registry_repo, checkout, {nested: pointer("c", FORGED)}, number=7)
    outcome = record(stub, checkout, capsys, "--commit", pr.merge_commit_sha)
    assert outcome["written"] == [nested] and block(checkout, nested) == {"verified": False}
    deeper = "skills/a/b/c/source.yaml"
    land(stub, registry_repo, checkout, {deeper: {**pointer("d", FORGED), "name": "c"}}, number=8)
    later = land(stub, registry_repo, checkout, {"docs/n.md": b"n\n"}, number=9)
    proof = record(stub, checkout, capsys, "--commit", later.merge_commit_sha, "--all")["proof"]
    assert [item["pointer"] for item in proof["revoked"]] == [deeper]
    assert block(checkout, deeper) == {"verified": False}
