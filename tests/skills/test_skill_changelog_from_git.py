"""Behaviour of skills/changelog-from-git/scripts/git_changelog.py against a real git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

GIT_ENV = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.invalid", "GIT_COMMITTER_NAME": "Ada",
           "GIT_COMMITTER_EMAIL": "ada@example.invalid", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def repo(tmp_path):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    env = dict(os.environ, **GIT_ENV, HOME=str(tmp_path))

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    messages = ["chore: initial", "feat(cli): add --json to status", "fix: handle empty config files",
                "refactor: split parser", "feat(api)!: list() returns an iterator",
                "perf: batch inserts\n\nBREAKING CHANGE: the insert hook now receives a list", "tidy up readme",
                "Merge pull request #3 from x/y"]
    for index, message in enumerate(messages):
        (tmp_path / "f.txt").write_text(str(index))
        git("add", "f.txt")
        git("commit", "-q", "-m", message)
        if index == 0:
            git("tag", "v1.0.0")
    return tmp_path


def test_groups_user_facing_changes_from_a_real_range(run, repo):
    done = run("changelog-from-git", "git_changelog.py", "--repo", str(repo), "--range", "v1.0.0..HEAD",
               "--version", "1.1.0", "--date", "2025-01-31")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("## 1.1.0 - 2025-01-31\n")
    breaking = out.split("### Breaking changes")[1].split("###")[0]
    assert "**api:** list() returns an iterator" in breaking
    assert "the insert hook now receives a list" in breaking
    assert out.index("### Features") < out.index("### Bug fixes") < out.index("### Performance")
    assert "- **cli:** add --json to status (" in out
    assert "split parser" not in out and "initial" not in out and "tidy up" not in out and "Merge" not in out


def test_all_types_lists_other_changes_with_authors_and_links(run, repo):
    done = run("changelog-from-git", "git_changelog.py", "--repo", str(repo), "--range", "v1.0.0..HEAD",
               "--types", "all", "--authors", "--commit-url", "https://example.invalid/c/{hash}")
    assert done.returncode == 0, done.stderr
    assert "### Refactoring" in done.stdout and "### Other changes" in done.stdout
    assert "- tidy up readme ([" in done.stdout
    assert "](https://example.invalid/c/" in done.stdout and ") by Ada" in done.stdout


def test_json_and_oneline_input(run, repo, tmp_path):
    done = run("changelog-from-git", "git_changelog.py", "--repo", str(repo), "--range", "v1.0.0..HEAD", "--json")
    commits = json.loads(done.stdout)
    assert [c["type"] for c in commits][:3] == ["other", "other", "perf"]
    assert commits[2]["breaking"] is True
    log = "abc1234 feat: one\ndef5678 fix(ui): two\n"
    done = run("changelog-from-git", "git_changelog.py", "--input", "-", "--date", "2025-01-01", stdin=log)
    assert done.returncode == 0
    assert "- one (abc1234)" in done.stdout and "- **ui:** two (def5678)" in done.stdout


def test_bad_range_and_bad_input_fail_clearly(run, repo):
    done = run("changelog-from-git", "git_changelog.py", "--repo", str(repo), "--range", "v9.9.9..HEAD")
    assert done.returncode == 2 and "v9.9.9..HEAD" in done.stderr
    done = run("changelog-from-git", "git_changelog.py", "--input", "-", stdin="not a log line\n")
    assert done.returncode == 2 and "line 1" in done.stderr
    done = run("changelog-from-git", "git_changelog.py", "--input", "-", "--commit-url", "https://x/")
    assert done.returncode == 2 and "{hash}" in done.stderr
