"""Issue 32 item 6: a pointer written by `skillyard external add … --name other-name` installs.

The registry lists the upstream `alpha` as `beta`; its entry says so openly (`source.declared_name: alpha`), and
`skill install beta` installs the upstream bytes unchanged into the folder `beta`, with a warning that agents know
the skill as `alpha`. Only that declared name is accepted: an entry whose files call themselves anything else is
still refused, as any registry entry is (tests/client_install/test_declared_name.py). Against the GitHub stand-in.
"""

from __future__ import annotations

import json

import pytest
from tests.support.gitserver import git
from tests.support.registry import registry_url, skill_md

SKILL = skill_md("alpha", "Does alpha things. Use when the user asks for alpha.", version="1.0.0", license="MIT")


@pytest.fixture
def renamed(git_server, monkeypatch, capsys):
    """up/skills' skills/alpha, listed by acme/reg as `beta` (built and committed)."""
    from skillyard.cli.main import skillyard_main

    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    sha = git_server.create_repo("up", "skills", {"skills/alpha/SKILL.md": SKILL, "skills/alpha/notes.md": "# n\n"})
    git_server.create_repo("acme", "reg", {"skillyard.toml": 'name = "acme"\nrepository = "acme/reg"\n'})
    root = git_server.repo_path("acme", "reg")
    assert skillyard_main(["external", "add", "github:up/skills/skills/alpha", "--name", "beta",
                           "--root", str(root)]) == 0, capsys.readouterr().err
    assert skillyard_main(["validate", "--root", str(root)]) == 0, capsys.readouterr().out
    git_server.commit("acme", "reg", {}, message="pointer")
    assert skillyard_main(["build", "--root", str(root)]) == 0, capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="build")
    return root, sha


def test_a_renamed_pointer_installs_under_the_registrys_name(git_server, renamed, configure, skill_cli, user_home):
    root, sha = renamed
    entry = next(s for s in json.loads((root / "registry.json").read_text())["skills"] if s["name"] == "beta")
    assert entry["source"]["declared_name"] == "alpha"
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    result = skill_cli("install", "beta", "--json")
    assert result.code == 0, result.err
    [outcome] = json.loads(result.out)["skills"]
    assert outcome["name"] == "beta"
    assert any("calls it `alpha`" in w and "installed as `beta`" in w for w in outcome["warnings"]), outcome
    folder = user_home / ".agents" / "skills" / "beta"
    upstream = git_server.repo_path("up", "skills")
    for rel in ("SKILL.md", "notes.md"):  # the upstream bytes, unchanged
        assert (folder / rel).read_bytes() == git(upstream, "show", f"{sha}:skills/alpha/{rel}")
    assert not (user_home / ".agents" / "skills" / "alpha").exists()
    listed = skill_cli("list", "--json")
    assert [s["name"] for s in json.loads(listed.out)["skills"]] == ["beta"]
    again = skill_cli("update", "beta", "--json")  # the lock and the entry agree: nothing to do
    assert again.code == 0 and json.loads(again.out)["skills"][0]["status"] == "up-to-date", again.out


def test_only_the_declared_name_is_accepted(git_server, renamed, configure, skill_cli, user_home):
    """A registry that declares one upstream name for files that call themselves another is refused."""
    root, _ = renamed
    path = root / "registry.json"
    doc = json.loads(path.read_text())
    for skill in doc["skills"]:
        if skill["name"] == "beta":
            skill["source"]["declared_name"] = "gamma"
    path.write_text(json.dumps(doc))
    git_server.commit("acme", "reg", {}, message="lie about the name")
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    result = skill_cli("install", "beta")
    assert result.code != 0
    assert "names itself `alpha`" in result.err and "nothing was installed" in result.err
    assert not (user_home / ".agents" / "skills" / "beta").exists()
