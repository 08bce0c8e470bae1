"""Verified pins on the client (issue 26 items 6 and 7): `skill info` and `skill search` show a pointer entry's
upstream and whether a maintainer approved its pin; `--require-verified` / `install.require_verified` refuse an
unverified pointer entry on install, update and lockfile restore, naming the skill, why, and the fix. The
registry is built by `skillyard build` and served over HTTP; the files come from the upstream repository."""

from __future__ import annotations

import json

import pytest
from tests.client_install.test_pointer_install import pointer_registry  # noqa: F401 - the fixture
from tests.support.cli_schemas import check_output
from tests.support.registry import registry_url, skill_md

from skillyard.format.pointer import dump_pointer, parse_pointer

APPROVED = {"verified": True, "approved_by": "maintainer", "approved_in": "https://github.com/acme/reg/pull/4",
            "approved_at": "2026-11-26T10:00:00Z", "checked_at": "2026-11-27T03:00:00Z"}


def rebuild(git_server, capsys, *, verification: dict | None = None, own: bool = False) -> None:
    """acme/reg again: alpha's pointer with `verification`, and (with `own`) a skill of the registry's own."""
    from skillyard.cli.main import skillyard_main

    root = git_server.repo_path("acme", "reg")
    path = root / "skills" / "alpha" / "source.yaml"
    pointer, _ = parse_pointer(path.read_text(encoding="utf-8"))
    data = dict(pointer.data)
    data.pop("verification", None)
    if verification is not None:
        data["verification"] = verification
    path.write_text(dump_pointer(data), encoding="utf-8")
    if own:
        (root / "skills" / "beta").mkdir(exist_ok=True)
        (root / "skills" / "beta" / "SKILL.md").write_text(
            skill_md("beta", "Does beta things. Use when the user asks for beta.", license="MIT"), encoding="utf-8")
        (root / "skills" / "beta" / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\n', encoding="utf-8")
    git_server.commit("acme", "reg", {}, message="pointer")
    assert skillyard_main(["build", "--root", str(root)]) == 0, capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="build")


@pytest.fixture
def served(git_server, pointer_registry, configure, capsys):  # noqa: F811 - the imported fixture
    rebuild(git_server, capsys, verification={"verified": False}, own=True)
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    return pointer_registry[1]


def test_an_unverified_pointer_is_refused_naming_skill_why_and_fix(served, skill_cli, user_home, configure):
    result = skill_cli("install", "alpha", "--require-verified")
    assert result.code != 0
    assert "alpha" in result.err and "--require-verified was given" in result.err
    assert "is on" not in result.err and "run it again without --require-verified" in result.err  # the flag's fix
    assert "no maintainer of the registry approved its pin (verified: false)" in result.err
    assert "Ask the registry's maintainers to approve the pin" in result.err
    assert not (user_home / ".agents" / "skills" / "alpha").exists()
    assert skill_cli("install", "beta", "--require-verified").code == 0  # the registry's own skill passes
    configure("install.require_verified", True)
    again = skill_cli("install", "alpha")
    assert again.code != 0 and "verified: false" in again.err
    assert "the setting `install.require_verified` is on" in again.err and "--require-verified was" not in again.err
    assert "skill config set install.require_verified false" in again.err
    configure("install.require_verified", None)
    assert skill_cli("install", "alpha").code == 0  # off by default


def test_a_verified_pointer_installs_and_info_shows_who_approved_it(served, git_server, skill_cli, capsys):
    rebuild(git_server, capsys, verification=APPROVED)
    skill_cli("source", "refresh")
    installed = skill_cli("install", "alpha", "--require-verified")
    assert installed.code == 0, installed.err
    text = skill_cli("info", "alpha").out
    assert f"upstream commit: https://github.com/up/skills/commit/{served}" in text
    assert f"upstream files: https://github.com/up/skills/tree/{served}/skills/alpha" in text
    assert "  upstream: https://github.com/up/skills\n" in text and "tracks: main" in text
    assert ("verified: yes — the pin was approved by @maintainer on 2026-11-26T10:00:00Z in "
            "https://github.com/acme/reg/pull/4") in text
    assert "last checked: 2026-11-27T03:00:00Z" in text and "license: MIT" in text
    upstream = check_output("skill info", 0, skill_cli("info", "alpha", "--json").out)["upstream"]
    assert upstream["verified"] is True and upstream["approved_by"] == "maintainer"
    assert upstream["commit"] == served and upstream["repository"] == "https://github.com/up/skills"
    assert "upstream" not in check_output("skill info", 0, skill_cli("info", "beta", "--json").out)


def test_info_of_an_unverified_pointer_says_so(served, skill_cli):
    text = skill_cli("info", "alpha").out
    assert "verified: no — no maintainer of the registry approved this pin yet" in text
    assert "last checked: never recorded" in text


def test_search_marks_pointer_and_verified(served, git_server, skill_cli, capsys):
    found = check_output("skill search", 0, skill_cli("search", "does", "--json").out)
    results = {r["name"]: r for r in found["results"]}
    assert (results["alpha"]["pointer"], results["alpha"]["verified"]) == (True, False)
    assert (results["beta"]["pointer"], results["beta"]["verified"]) == (False, None)
    rows = {line.split()[0]: line for line in skill_cli("search", "does").out.splitlines()[1:]}
    assert "pointer, unverified" in rows["alpha"] and " own " in rows["beta"]
    rebuild(git_server, capsys, verification=APPROVED)
    results = {r["name"]: r for r in json.loads(skill_cli("search", "does", "--refresh", "--json").out)["results"]}
    assert results["alpha"]["verified"] is True
    assert "pointer, verified" in skill_cli("search", "alpha").out


def bump(git_server, capsys) -> str:
    """A new upstream commit of alpha, added again at it (a new pin: unverified until a maintainer approves it)."""
    import shutil

    from skillyard.cli.main import skillyard_main

    sha = git_server.commit("up", "skills", {"skills/alpha/references/notes.md": "# Notes\n\nNew steps.\n"},
                            message="notes")
    root = git_server.repo_path("acme", "reg")
    shutil.rmtree(root / "skills" / "alpha")
    assert skillyard_main(["external", "add", "github:up/skills/skills/alpha", "--root", str(root)]) == 0
    git_server.commit("acme", "reg", {}, message="bump")
    assert skillyard_main(["build", "--root", str(root)]) == 0, capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="build")
    return sha


def test_update_refuses_a_new_unverified_pin(served, git_server, skill_cli, capsys):
    rebuild(git_server, capsys, verification=APPROVED)
    assert skill_cli("install", "alpha", "--require-verified").code == 0
    assert skill_cli("update", "alpha", "--require-verified").code == 0  # nothing new: up to date
    bump(git_server, capsys)
    update = skill_cli("update", "alpha", "--require-verified")
    assert update.code != 0 and "alpha" in update.err and "verified: false" in update.err
    assert "nothing was installed" in update.err
    moved = skill_cli("update", "alpha", "--json")
    assert moved.code == 0 and json.loads(moved.out)["skills"][0]["status"] == "updated"


def test_restore_refuses_an_unverified_pin(served, skill_cli, tmp_path):
    import shutil

    project = tmp_path / "proj"
    project.mkdir()
    assert skill_cli("install", "alpha", "--project-dir", str(project)).code == 0
    shutil.rmtree(project / ".agents")
    restore = skill_cli("install", "--project-dir", str(project), "--require-verified")
    assert restore.code != 0 and "alpha" in restore.err and "verified: false" in restore.err
    assert not (project / ".agents" / "skills" / "alpha").exists()
    assert skill_cli("install", "--project-dir", str(project)).code == 0


def test_restore_of_a_pin_other_than_the_verified_one_is_refused(served, git_server, skill_cli, capsys, tmp_path):
    import shutil

    rebuild(git_server, capsys, verification=APPROVED)
    project = tmp_path / "proj"
    project.mkdir()
    assert skill_cli("install", "alpha", "--project-dir", str(project)).code == 0
    bump(git_server, capsys)
    rebuild(git_server, capsys, verification=APPROVED)  # the new pin is approved; the locked one is not it
    shutil.rmtree(project / ".agents")
    restore = skill_cli("install", "--project-dir", str(project), "--require-verified")
    assert restore.code != 0 and "alpha" in restore.err and "the lock pins commit" in restore.err
    assert not (project / ".agents" / "skills" / "alpha").exists()
