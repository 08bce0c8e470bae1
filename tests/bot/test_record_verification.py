"""`skillyard bot record-verification` against the GitHub stand-in (issue 26 item 6): a pin is verified only when a
maintainer of the registry approved the merged head of the PR that set it; a hand-written block never survives."""

from __future__ import annotations

import copy
import json

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


def merged_pr(stub, repo, tmp_path, *, merged: dict, base: dict | None = None, reviews=(), number=7,
              author="carol", status="modified") -> Pull:
    """PR `number`, merged: `merged` is the pointer at its head and in the checkout; `base` the one before it."""
    head = stub.add_commit(repo, date=AT)
    pr = Pull(number, author, head, files=[(PATH, "added" if base is None else status)], state="closed",
              merged=True, merge_commit_sha=stub.add_commit(repo, date=AT))
    pr.reviews = [{"commit_id": head, "submitted_at": AT, "user": "maintainer", **r} for r in reviews]
    repo.pulls[number] = pr
    text = dump_pointer(merged).encode()
    repo.contents[(head, PATH)] = text
    if base is not None:
        repo.contents[(repo.refs["heads/main"], PATH)] = dump_pointer(base).encode()
    (tmp_path / "skills" / "alpha").mkdir(parents=True, exist_ok=True)
    (tmp_path / PATH).write_bytes(text)
    return pr


def record(stub, tmp_path, capsys, *which: str, code: int = 0) -> dict:
    """Run the command with --json; its output, succeeding or failing, is what schemas/cli/ says."""
    capsys.readouterr()
    got = skillyard_main(["bot", "record-verification", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url,
                          "--root", str(tmp_path), "--json", *(which or ("--pr", "7"))])
    out = capsys.readouterr()
    assert got == code, out.err
    document = check_output("skillyard bot record-verification", got, out.out)
    return document if code == 0 else {"err": json.dumps(document)}


def block(tmp_path) -> dict:
    found, problems = parse_pointer((tmp_path / PATH).read_text(encoding="utf-8"), folder_name="alpha")
    assert problems == []
    return found.data.get("verification")


def test_a_maintainers_approval_of_the_merged_head_verifies_the_new_pin(stub, registry_repo, tmp_path, capsys):
    pr = merged_pr(stub, registry_repo, tmp_path, merged=pointer(verification={"verified": False}),
                   reviews=[{"state": "APPROVED"}])
    outcome = record(stub, tmp_path, capsys)
    assert outcome["written"] == [PATH]
    assert block(tmp_path) == {"verified": True, "approved_by": "maintainer", "approved_at": AT,
                               "approved_in": f"{stub.root}/{REGISTRY_SLUG}/pull/{pr.number}"}
    entry = parse_pointer((tmp_path / PATH).read_text(encoding="utf-8"))[0].entry("skills/alpha")
    assert entry["verified"] is True and entry["verification"]["approved_by"] == "maintainer"
    assert record(stub, tmp_path, capsys)["written"] == []  # run again: nothing changes
    capsys.readouterr()
    assert skillyard_main(["bot", "record-verification", "--repo", REGISTRY_SLUG, "--api-url", stub.base_url,
                           "--root", str(tmp_path), "--pr", "7"]) == 0
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
def test_a_pin_merged_without_a_standing_maintainer_approval_stays_unverified(stub, registry_repo, tmp_path, capsys,
                                                                                reviews, why):
    registry_repo.permissions["renovate[bot]"] = "write"
    merged_pr(stub, registry_repo, tmp_path, merged=pointer(verification={"verified": False}), reviews=reviews)
    outcome = record(stub, tmp_path, capsys)
    assert block(tmp_path) == {"verified": False}, why
    assert outcome["written"] == [] and outcome["pointers"][0]["pin_set"] is True


def test_the_authors_own_approval_never_counts(stub, registry_repo, tmp_path, capsys):
    merged_pr(stub, registry_repo, tmp_path, merged=pointer(verification={"verified": False}), author="maintainer",
              reviews=[{"state": "APPROVED"}])
    record(stub, tmp_path, capsys)
    assert block(tmp_path) == {"verified": False}


def test_a_hand_written_approval_is_undone_at_merge(stub, registry_repo, tmp_path, capsys):
    forged = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/o/r/pull/1",
              "approved_at": AT}
    # A new pin whose PR writes its own approval, merged by hand with no review:
    merged_pr(stub, registry_repo, tmp_path, merged=pointer("c", forged), base=pointer("a"))
    assert record(stub, tmp_path, capsys)["written"] == [PATH]
    assert block(tmp_path) == {"verified": False}
    # The same pin, the PR only "verifying" it (and adding a tag):
    merged_pr(stub, registry_repo, tmp_path, merged=pointer("a", forged, tags=["x"]),
              base=pointer("a", {"verified": False}))
    record(stub, tmp_path, capsys)
    assert block(tmp_path) == {"verified": False}


def test_a_pr_that_leaves_the_pin_alone_keeps_its_approval(stub, registry_repo, tmp_path, capsys):
    merged_pr(stub, registry_repo, tmp_path, merged=pointer("a", {"verified": False}, tags=["x"]),
              base=pointer("a", APPROVED), reviews=[])
    outcome = record(stub, tmp_path, capsys)
    assert outcome["pointers"][0]["pin_set"] is False
    assert block(tmp_path) == APPROVED  # the approval of the pin stands, though this PR had none


def test_checked_at_is_kept_and_the_commit_finds_its_pr(stub, registry_repo, tmp_path, capsys):
    pr = merged_pr(stub, registry_repo, tmp_path,
                   merged=pointer(verification={"verified": False, "checked_at": "2026-11-26T11:00:00Z"}),
                   reviews=[{"state": "APPROVED"}])
    outcome = record(stub, tmp_path, capsys, "--commit", pr.merge_commit_sha)
    assert outcome["pulls"] == [7]
    assert block(tmp_path)["checked_at"] == "2026-11-26T11:00:00Z" and block(tmp_path)["verified"] is True
    direct = stub.add_commit(registry_repo, date=AT)  # a push that merged no PR
    nothing = record(stub, tmp_path, capsys, "--commit", direct)
    assert nothing["pulls"] == [] and nothing["written"] == []


def test_dry_run_writes_nothing_and_a_broken_pointer_refuses(stub, registry_repo, tmp_path, capsys):
    merged_pr(stub, registry_repo, tmp_path, merged=pointer(verification={"verified": False}),
              reviews=[{"state": "APPROVED"}])
    before = (tmp_path / PATH).read_bytes()
    outcome = record(stub, tmp_path, capsys, "--pr", "7", "--dry-run")
    assert outcome["pointers"][0]["changed"] is True and (tmp_path / PATH).read_bytes() == before
    (tmp_path / PATH).write_text("schema_version: 1\nname: [\n", encoding="utf-8")
    failed = record(stub, tmp_path, capsys, code=1)
    assert PATH in failed["err"] and "not valid YAML" in failed["err"]
    assert record(stub, tmp_path, capsys, "--commit", "not-a-sha", code=2)["err"]
