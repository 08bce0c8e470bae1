"""Remembered approvals are read once per command (not once per skill), yet a change to the file — a revocation
by another process included — is seen by the next check."""

from __future__ import annotations

import pytest

from conftest import make_skill
from skillyard.runtime import SkillRuntime
from skillyard.runtime import approvals as approvals_mod
from skillyard.runtime.approvals import Approvals
from skillyard.runtime.discovery import Root


@pytest.fixture
def reads(monkeypatch):
    counted = []
    original = approvals_mod.read_json

    def counting(path, limit):
        counted.append(path)
        return original(path, limit)

    monkeypatch.setattr(approvals_mod, "read_json", counting)
    monkeypatch.setattr(approvals_mod, "SETTLE_SECONDS", 0.0)  # files count as settled at once
    return counted


def runtime(tmp_path, store):
    root = tmp_path / "root"
    for name in ("code-a", "code-b", "code-c", "other"):
        make_skill(root, name)
    return SkillRuntime([Root(str(root), "user", 200)], rules=[("code-*", "ask")], cache_dir=False,
                        agent="reviewer", approvals=store), root


def test_the_prompt_reads_the_approvals_once_and_sees_a_revocation(tmp_path, reads):
    store = Approvals(tmp_path / "approvals.json")
    rt, root = runtime(tmp_path, store)
    for name in ("code-a", "code-b", "code-c"):
        store.remember("reviewer", name, str(root / name / "SKILL.md"))
    reads.clear()
    assert rt.permissions() == {"code-a": "allow", "code-b": "allow", "code-c": "allow", "other": "allow"}
    rt.prompt("xml")
    assert len(reads) == 1
    Approvals(tmp_path / "approvals.json").revoke("reviewer", "code-b")  # another process, another object
    reads.clear()
    assert rt.permissions()["code-b"] == "ask" and len(reads) == 1
    assert rt.permissions()["code-a"] == "allow" and len(reads) == 1


def test_a_file_changed_just_now_is_read_at_every_check(tmp_path, reads, monkeypatch):
    monkeypatch.setattr(approvals_mod, "SETTLE_SECONDS", 3600.0)
    store = Approvals(tmp_path / "approvals.json")
    rt, root = runtime(tmp_path, store)
    store.remember("reviewer", "code-a", str(root / "code-a" / "SKILL.md"))
    reads.clear()
    assert rt.permissions()["code-a"] == "allow"
    assert len(reads) == 3  # one per `ask` skill, as before: the stamp could hide a quick rewrite


def test_no_file_means_no_approvals(tmp_path, reads):
    rt, _ = runtime(tmp_path, Approvals(tmp_path / "approvals.json"))
    assert rt.permissions() == {"code-a": "ask", "code-b": "ask", "code-c": "ask", "other": "allow"}
