"""Issue 24 item 7: a registry never publishes a sha256 that its pinned commit does not hold.

A host that pins by commit (github, github-enterprise) serves each skill's files from the skill's last commit: a file
the working tree changed would be listed with new bytes under an old commit, and every install would fail with a
misleading "download was cut short". `skillyard build` refuses such a tree, naming the files and the fix; a static
host build (which serves the working tree itself) says which working-tree state it published. Real git repositories.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from skillyard.cli.main import skillyard_main

from .conftest import git

ENTERPRISE = 'host = "github-enterprise"\nraw_url = "https://ghe.example/raw"\n'


def build(capsys, repo, *argv: str) -> tuple[int, dict | str, str]:
    code = skillyard_main(["build", "--root", str(repo.root), *argv])
    out, err = capsys.readouterr()
    return code, json.loads(out) if "--json" in argv else out, err


def committed_registry(repo, capsys, *names: str) -> bytes:
    for name in names:
        repo.add_skill(name)
    repo.write("skills/alpha/references/guide.md", "# Guide\n")
    repo.commit("skills")
    code, _, err = build(capsys, repo)
    assert code == 0, err
    return (repo.root / "registry.json").read_bytes()


CHANGES = {
    "modified": (lambda repo: repo.write("skills/alpha/SKILL.md", (repo.root / "skills/alpha/SKILL.md").read_text()
                                         + "\nOne more step.\n"), "skills/alpha/SKILL.md"),
    "staged": (lambda repo: (repo.write("skills/alpha/references/guide.md", "# Guide, staged\n"),
                             git(repo.root, "add", "skills/alpha/references/guide.md")),
               "skills/alpha/references/guide.md"),
    "untracked": (lambda repo: repo.write("skills/alpha/references/new.md", "# New\n"),
                  "skills/alpha/references/new.md"),
    "deleted": (lambda repo: (repo.root / "skills/alpha/references/guide.md").unlink(),
                "skills/alpha/references/guide.md (deleted)"),
    "deleted-staged": (lambda repo: git(repo.root, "rm", "-q", "skills/alpha/references/guide.md"),
                       "skills/alpha/references/guide.md (deleted)"),
    "new-skill": (lambda repo: repo.add_skill("gamma"), "skills/gamma/SKILL.md"),
    "ignored-but-published": (lambda repo: (repo.write(".gitignore", "*.txt\n"), repo.commit("ignore"),
                                            repo.write("skills/alpha/notes.txt", "local notes\n")),
                              "skills/alpha/notes.txt"),
}


@pytest.mark.parametrize("host", ["", ENTERPRISE])
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_host_that_pins_by_commit_refuses_a_dirty_skill_file(repo, capsys, change, host):
    if host:
        repo.write("skillyard.toml", 'name = "test-registry"\nrepository = "acme/skills"\n' + host)
    before = committed_registry(repo, capsys, "alpha", "beta")
    make, named = CHANGES[change]
    make(repo)
    code, out, err = build(capsys, repo)
    assert code == 1
    assert named in err and "differ from HEAD" in err and "nothing was written" in err
    assert "fix: commit them first" in err and "--host static" in err
    assert "skills/beta" not in err  # only the files that differ are named
    assert (repo.root / "registry.json").read_bytes() == before
    code, report, _ = build(capsys, repo, "--json")
    assert code == 1 and report["ok"] is False and named in report["differs_from_head"]
    assert "commit them first" in report["fix"]


def test_changes_the_registry_does_not_publish_are_no_reason_to_refuse(repo, capsys):
    committed_registry(repo, capsys, "alpha")
    repo.write("README.md", "# Our registry\n")  # outside skills/
    repo.write("skills/alpha/.notes", "hidden: never published\n")
    code, out, err = build(capsys, repo, "--json")
    assert code == 0, err
    assert out["working_tree"]["differs_from_head"] == 0


def test_after_the_commit_every_listed_sha256_is_what_the_pinned_commit_holds(repo, capsys):
    committed_registry(repo, capsys, "alpha", "beta")
    repo.write("skills/alpha/SKILL.md", (repo.root / "skills/alpha/SKILL.md").read_text() + "\nChanged.\n")
    repo.write("skills/beta/scripts/run.py", "print('hi')\n")
    assert build(capsys, repo)[0] == 1
    repo.commit("change alpha and beta")
    code, _, err = build(capsys, repo)
    assert code == 0, err
    registry = json.loads((repo.root / "registry.json").read_text(encoding="utf-8"))
    for skill in registry["skills"]:
        for entry in skill["files"]:
            pinned = git_bytes(repo.root, f"{skill['commit']}:{skill['path']}/{entry['path']}")
            assert hashlib.sha256(pinned).hexdigest() == entry["sha256"], (skill["name"], entry["path"])


def git_bytes(root, spec: str) -> bytes:
    import subprocess

    return subprocess.run(["git", "-C", str(root), "show", spec], check=True, capture_output=True).stdout


def test_a_static_host_build_publishes_the_working_tree_and_says_so(repo, capsys):
    committed_registry(repo, capsys, "alpha")
    head = git(repo.root, "rev-parse", "HEAD")
    repo.write("skills/alpha/references/new.md", "# New\n")
    code, out, err = build(capsys, repo, "--host", "static")
    assert code == 0, err
    assert f"note: built from the working tree: 1 skill file(s) differ from HEAD {head[:12]}" in out
    assert "skills/alpha/references/new.md" in out
    registry = json.loads((repo.root / "registry.json").read_text(encoding="utf-8"))
    assert registry["repository"]["raw_url_template"] == "{path}"
    code, report, _ = build(capsys, repo, "--host", "static", "--json")
    assert code == 0 and report["working_tree"] == {"head": head, "differs_from_head": 1,
                                                    "files": ["skills/alpha/references/new.md"]}


def test_a_configured_static_host_needs_no_option(repo, capsys):
    repo.write("skillyard.toml", 'name = "test-registry"\nhost = "static"\n')
    committed_registry(repo, capsys, "alpha")
    (repo.root / "skills/alpha/references/guide.md").unlink()
    code, report, err = build(capsys, repo, "--json")
    assert code == 0, err
    assert report["working_tree"]["files"] == ["skills/alpha/references/guide.md (deleted)"]


def test_a_repository_without_commits_has_nothing_to_pin(repo, capsys):
    repo.add_skill("alpha")
    code, out, err = build(capsys, repo)
    assert code == 1 and "the repository has none yet" in err and "skills/alpha/SKILL.md" in err
    assert not (repo.root / "registry.json").exists()


def test_check_compares_without_refusing(repo, capsys):
    committed_registry(repo, capsys, "alpha")
    repo.write("skills/alpha/references/new.md", "# New\n")
    code, out, err = build(capsys, repo, "--check")
    assert code == 1 and "out of date" in err and "differ from HEAD" not in err
