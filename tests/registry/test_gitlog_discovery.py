"""registry.gitlog.repo_toplevel: git is started only when it could find a repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skillyard.registry import gitlog


def _no_git(*args, **kwargs):
    raise AssertionError(f"git started: {args}")


def test_loose_folders_never_start_git(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "skills" / "a").mkdir(parents=True)
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    monkeypatch.setattr(subprocess, "run", _no_git)
    assert gitlog.repo_toplevel(tmp_path / "skills" / "a") is None


@pytest.mark.parametrize("where", [".", "skills/a"])
def test_inside_a_repository_git_answers(tmp_path: Path, where: str) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "skills" / "a").mkdir(parents=True)
    assert gitlog.repo_toplevel(tmp_path / where) == tmp_path.resolve()


def test_a_worktree_file_counts_as_a_repository(tmp_path: Path, monkeypatch) -> None:
    """`.git` may be a file (worktrees, submodules): git is asked, and its answer stands."""
    (tmp_path / ".git").write_text("gitdir: /nowhere\n")
    asked = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: asked.append(a) or subprocess.CompletedProcess(a, 128, "", ""))
    assert gitlog.repo_toplevel(tmp_path) is None
    assert asked


def test_git_dir_in_the_environment_is_asked(tmp_path: Path, monkeypatch) -> None:
    repo = tmp_path / "elsewhere"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(work))
    assert gitlog.repo_toplevel(work) == work.resolve()
