"""`bot.verification_git` on real repositories: what a merge changed is read exactly (any file name), and the range
a PR landed as is the PR's own change, never one that takes in other PRs' commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.bot.test_record_verification import git  # one throwaway-git helper for both

from skillyard.bot import verification, verification_git
from skillyard.bot.changes import PrFile
from skillyard.errors import SkillyardError


def commit(root: Path, files: dict[str, str | None], message: str = "c") -> str:
    for path, text in files.items():
        if text is None:
            (root / path).unlink()
        else:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD")


def new_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    commit(root, {"README.md": "start\n"})
    return root


NAME = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="/\\"),
               min_size=1, max_size=12).filter(lambda s: s not in (".", "..") and s.strip() == s and s[0] != "-"
                                                and not s.startswith(".git"))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(NAME, min_size=1, max_size=4, unique_by=lambda s: s.casefold()))
def test_every_file_name_is_read_back_exactly(tmp_path_factory, names):
    """Spaces, quotes, non-ASCII: git's names come back as written (-z, no quoting), with the API's statuses."""
    root = new_repo(tmp_path_factory.mktemp("names") / "repo")
    start = git(root, "rev-parse", "HEAD")
    paths = [f"skills/{name}/source.yaml" for name in names]
    added = commit(root, {p: f"{i}\n" * 40 for i, p in enumerate(paths)})
    assert set(verification_git.changes(root, start, added)) == {PrFile(p, "added", None) for p in paths}
    moved = commit(root, {paths[0]: None, f"skills/moved/{names[0]}.yaml": "0\n" * 40})
    assert verification_git.changes(root, added, moved) == [
        PrFile(f"skills/moved/{names[0]}.yaml", "renamed", paths[0])]
    assert verification_git.touched(root, added, moved) == {paths[0], f"skills/moved/{names[0]}.yaml"}


@given(number=st.integers(1, 10**10 - 1), host=st.sampled_from(["https://github.com", "http://127.0.0.1:8080",
                                                                 "https://ghe.example/x"]))
def test_the_pr_number_is_read_from_approved_in(number, host):
    assert verification.pull_number_in(f"{host}/o/r/pull/{number}") == number
    for bad in (f"{host}/o/r/pull/{number}/files", f"{host}/o/r/issues/{number}", f"{host}/o/r/pull/0{number}",
                f"{host} /o/r/pull/{number}", None, number):
        assert verification.pull_number_in(bad) is None


def test_a_squashed_multi_commit_pr_never_takes_in_earlier_prs(tmp_path):
    """A squash of a 3-commit PR is one commit: its range is M^1..M, not the 3 commits before it (another PR's)."""
    root = new_repo(tmp_path / "repo")
    commit(root, {"skills/other/source.yaml": "x\n"}, "another PR")
    commit(root, {"docs/b.md": "b\n"}, "another PR")
    merge = commit(root, {"skills/alpha/source.yaml": "a\n", "docs/a.md": "a\n"}, "PR 7, squashed")
    listed = [PrFile("skills/alpha/source.yaml", "added"), PrFile("docs/a.md", "added")]
    start = verification_git.landed_range(root, 7, merge, commits=3, listed=listed, total=2)
    assert start == f"{merge}^1"
    assert {f.path for f in verification_git.changes(root, start, merge)} == {"skills/alpha/source.yaml",
                                                                              "docs/a.md"}


def test_a_rebase_merge_takes_its_own_commits_and_no_more(tmp_path):
    root = new_repo(tmp_path / "repo")
    before = commit(root, {"skills/other/source.yaml": "x\n"}, "another PR")
    commit(root, {"skills/alpha/source.yaml": "a\n"}, "PR 7, 1 of 2")
    merge = commit(root, {"docs/a.md": "a\n"}, "PR 7, 2 of 2")
    listed = [PrFile("skills/alpha/source.yaml", "added"), PrFile("docs/a.md", "added")]
    start = verification_git.landed_range(root, 7, merge, commits=2, listed=listed, total=2)
    assert git(root, "rev-parse", start) == before
    with pytest.raises(SkillyardError, match="some pointer could be missed"):  # GitHub says 3 files: one is not here
        verification_git.landed_range(root, 7, merge, commits=2, listed=listed, total=3)


@pytest.mark.parametrize("value", ["--output=/tmp/x", "main", "e" * 39, "HEAD~1", ""])
def test_only_a_full_sha_reaches_git(tmp_path, value):
    root = new_repo(tmp_path / "repo")
    with pytest.raises(SkillyardError, match="is not a full commit SHA"):
        verification_git.require_commit(root, value, "the merge commit of PR #7")
