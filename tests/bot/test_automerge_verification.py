"""The automerge gate and verified pins (issue 26 item 6): a PR that writes `verified: true` or approval facts into
a pointer's `verification` block never automerges; `verified: false` (what add and bump write) does not stop it."""

from __future__ import annotations

import copy

import pytest
from test_automerge import UPDATE, automerge, ready_pr

from skillyard.format.pointer import dump_pointer

pytestmark = pytest.mark.usefixtures("bot_env")

POINTER_PATH = "skills/pdf-tools/source.yaml"
BASE = {
    "schema_version": 1, "name": "pdf-tools",
    "upstream": {"host": "github", "repository": "up/skills", "path": "pdf-tools", "commit": "a" * 40,
                 "tracks": "main"},
    "license": "MIT", "skill": {"name": "pdf-tools", "description": "Does PDFs."},
    "files": [{"path": "SKILL.md", "size": 10, "sha256": "b" * 64}],
}
APPROVED = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/o/r/pull/3",
            "approved_at": "2026-11-01T09:00:00Z"}
REASON = "the PR writes `verified: true` or approval facts into the `verification` of skills/pdf-tools"


def pointer(commit="a", verification=None, tags=None) -> bytes:
    data = copy.deepcopy(BASE)
    data["upstream"]["commit"] = commit * 40
    if verification is not None:
        data["verification"] = verification
    if tags:
        data["registry"] = {"tags": tags}
    return dump_pointer(data).encode()


@pytest.mark.parametrize(("base", "head", "stops"), [
    (pointer(verification={"verified": False}), pointer(verification=APPROVED), True),   # verifies itself
    (pointer(verification=APPROVED), pointer("c", APPROVED), True),             # a new pin keeps an old approval
    (None, pointer(verification=APPROVED), True),                               # a new pointer, verified by hand
    (pointer(verification=APPROVED), pointer("c", {"verified": False}), False),  # a bump: unverified until approved
    (pointer(verification=APPROVED), pointer(verification=APPROVED, tags=["x"]), False),  # the approval untouched
    (None, pointer(verification={"verified": False}), False),                   # what `external add` writes
])
def test_a_pr_cannot_mark_its_own_pin_verified(stub, registry_repo, capsys, base, head, stops):
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(POINTER_PATH, "modified" if base else "added")])
    if base is not None:
        registry_repo.contents[("main", POINTER_PATH)] = base
    registry_repo.contents[(pr.head_sha, POINTER_PATH)] = head
    out = automerge(stub, capsys, "--dry-run")
    assert out["merge"] is (not stops)
    assert any(r.startswith(REASON) for r in out["reasons"]) is stops


def test_the_pr_bot_labels_a_self_verified_pin_needs_maintainer(stub, registry_repo, tmp_path):
    from botkit import make_report, write_artifact
    from ghstub import Pull, fake_sha
    from test_report import report_cmd

    files = [(POINTER_PATH, "modified")]
    registry_repo.contents[("main", POINTER_PATH)] = pointer(verification={"verified": False})
    for number, head in ((60, pointer(verification=APPROVED)), (61, pointer("c", {"verified": False}))):
        pr = Pull(number, "alice", fake_sha("head", number), files=list(files))
        registry_repo.pulls[number] = pr
        registry_repo.contents[(pr.head_sha, POINTER_PATH)] = head
        doc = make_report([{"name": "pdf-tools"}], [p for p, _ in files])
        assert report_cmd(stub, write_artifact(tmp_path, doc), number) == 0
    assert sorted(registry_repo.pulls[60].labels) == ["needs-maintainer", "skill-update"]
    assert sorted(registry_repo.pulls[61].labels) == ["skill-update"]  # a bump's `verified: false` is fine


NESTED_PATH = "skills/group/pdf-tools/source.yaml"   # the build publishes pointers in nested folders too


@pytest.mark.parametrize(("head", "stops"), [
    (pointer(verification=APPROVED), True),            # a forged block in a nested pointer
    (pointer(verification={"verified": False}), False),  # what `external add` writes there
])
def test_automerge_reads_a_nested_pointer_block(stub, registry_repo, capsys, head, stops):
    pr = ready_pr(stub, registry_repo, files=UPDATE + [(NESTED_PATH, "added")])
    registry_repo.contents[(pr.head_sha, NESTED_PATH)] = head
    out = automerge(stub, capsys, "--dry-run")
    nested_reason = "the PR writes `verified: true` or approval facts into the `verification` of skills/group/pdf-tools"
    assert any(r.startswith(nested_reason) for r in out["reasons"]) is stops
    if stops:
        assert out["merge"] is False


def test_the_pr_bot_labels_a_forged_nested_block_needs_maintainer(stub, registry_repo, tmp_path):
    from botkit import make_report, write_artifact
    from ghstub import Pull, fake_sha
    from test_report import report_cmd

    files = [(NESTED_PATH, "modified")]
    registry_repo.contents[("main", NESTED_PATH)] = pointer(verification={"verified": False})
    for number, head in ((62, pointer(verification=APPROVED)), (63, pointer("c", {"verified": False}))):
        pr = Pull(number, "alice", fake_sha("head", number), files=list(files))
        registry_repo.pulls[number] = pr
        registry_repo.contents[(pr.head_sha, NESTED_PATH)] = head
        doc = make_report([{"name": "pdf-tools", "path": "skills/group/pdf-tools"}], [p for p, _ in files])
        assert report_cmd(stub, write_artifact(tmp_path, doc), number) == 0
    assert "needs-maintainer" in registry_repo.pulls[62].labels
    assert "needs-maintainer" not in registry_repo.pulls[63].labels
