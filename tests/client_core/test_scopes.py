"""Issue 27 item 5: every command that reads installed skills looks at the same scopes by default - your home's
(user) and the current project's (project), as `skill list` always did - and says which it used: a `scope: …`
line in text output and a `scope` field in --json. `skill outdated`'s suggestion `skill update --all` then finds
what outdated listed."""

import json

import pytest

from skillyard.client.config import load_config


@pytest.fixture
def two_scopes(published, skill_cli, tmp_path, monkeypatch):
    """pdf-tools in the user scope, commit-writer in the project (the current folder)."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    assert skill_cli("install", "pdf-tools", "--target", "agents").code == 0
    assert skill_cli("install", "commit-writer", "--project", "--target", "agents").code == 0
    return project


def by_json(skill_cli, *argv):
    result = skill_cli(*argv, "--json")
    return result.code, json.loads(result.out), result.err


def test_list_reads_both_and_says_so(two_scopes, skill_cli):
    code, data, _ = by_json(skill_cli, "list")
    assert code == 0 and data["scope"] == ["user", "project"]
    assert sorted((s["name"], s["scope"]) for s in data["skills"]) == [("commit-writer", "project"),
                                                                       ("pdf-tools", "user")]
    lines = skill_cli("list").out.splitlines()
    assert lines[0] == f"scope: user (~), project ({two_scopes})"
    assert lines[1].split() == ["NAME", "VERSION", "SCOPE", "SOURCE", "TARGETS", "PATH"]
    assert [line.split()[0] for line in lines[2:]] == ["pdf-tools", "commit-writer"]
    assert by_json(skill_cli, "list", "--project")[1]["scope"] == ["project"]
    assert by_json(skill_cli, "list", "--user")[1]["scope"] == ["user"]


def test_outdated_and_update_all_agree(two_scopes, skill_cli):
    code, data, _ = by_json(skill_cli, "outdated", "--all")
    assert code == 0 and data["scope"] == ["user", "project"]
    assert sorted(s["name"] for s in data["skills"]) == ["commit-writer", "pdf-tools"]
    assert skill_cli("outdated", "--all").out.splitlines()[0].startswith("scope: user (~), project (")
    code, data, err = by_json(skill_cli, "update", "--all", "--dry-run")
    assert code == 0, err
    assert data["scope"] == ["user", "project"]
    assert sorted((c["name"], c["scope"]) for c in data["skills"]) == [("commit-writer", "project"),
                                                                       ("pdf-tools", "user")]
    named = skill_cli("update", "commit-writer")  # found where it is installed, no --project needed
    assert named.code == 0 and "commit-writer (project): up to date" in named.out


def test_outdated_suggests_the_scope_it_read(two_scopes, published, skill_cli):
    from tests.client_core.test_outdated import republish_newer

    republish_newer(published.server)
    assert skill_cli("source", "refresh").code == 0
    text = skill_cli("outdated", "--user").out
    assert "`skill update --all --user`" in text


def test_uninstall_finds_the_scope_and_refuses_to_guess(two_scopes, skill_cli):
    assert skill_cli("install", "pdf-tools", "--project", "--target", "agents").code == 0
    both = skill_cli("uninstall", "pdf-tools")
    assert both.code == 2 and "installed in both the user and the project scope" in both.err
    assert "`skill uninstall pdf-tools --user`" in both.err
    code, data, err = by_json(skill_cli, "uninstall", "commit-writer")
    assert code == 0, err
    assert data["scope"] == ["user", "project"] and data["uninstalled"][0]["scope"] == "project"
    assert not (two_scopes / ".agents" / "skills" / "commit-writer").exists()
    user = skill_cli("uninstall", "pdf-tools", "--user")
    assert user.code == 0 and user.out.startswith("scope: user (~)")
    missing = skill_cli("uninstall", "nothing-here")
    assert missing.code == 1 and "not installed (user or project scope)" in missing.err


def test_check_deps_and_doctor_read_both(two_scopes, skill_cli):
    code, data, _ = by_json(skill_cli, "check-deps")
    assert code == 0 and data["scope"] == ["user", "project"]
    assert sorted(r["skill"] for r in data["skills"]) == ["commit-writer", "pdf-tools"]
    assert skill_cli("check-deps").out.startswith("scope: user (~), project (")
    code, data, _ = by_json(skill_cli, "doctor", "--offline")
    assert data["scope"] == ["user", "project"]
    checked = {(f["skill"], f["scope"]) for f in data["findings"] if f["check"] == "installed"}
    assert checked == {("pdf-tools", "user"), ("commit-writer", "project")}
    assert skill_cli("doctor", "--offline").out.startswith("scope: user (~), project (")


def test_home_as_the_current_folder_is_one_scope(published, skill_cli, monkeypatch):
    home = load_config().home.parent / "userhome"
    monkeypatch.chdir(home)
    assert by_json(skill_cli, "list")[1]["scope"] == ["user"]
    both = skill_cli("list", "--user", "--project")
    assert both.code == 2 and "--user and --project" in both.err


def test_info_says_where_a_skill_is_installed(two_scopes, skill_cli):
    assert skill_cli("install", "pdf-tools", "--project", "--target", "agents").code == 0
    code, data, _ = by_json(skill_cli, "info", "pdf-tools")
    assert code == 0 and data["scope"] == ["user", "project"]
    assert data["installed"] == [{"scope": "user", "version": "0.3.1"}, {"scope": "project", "version": "0.3.1"}]
    assert "  installed: 0.3.1 (user), 0.3.1 (project)  [scope: user, project]" in skill_cli("info", "pdf-tools").out
    assert by_json(skill_cli, "info", "invoice-processor")[1]["installed"] == []
