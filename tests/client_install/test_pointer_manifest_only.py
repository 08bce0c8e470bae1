"""A repository whose skill is described by skill.yaml alone (design 000 §3.1's own example: no SKILL.md at all)
is listed by `skillyard external add` as `skill install github:` installs it: the same name (read from skill.yaml
by `format.manifest.declared_fields`), the pointer pinning the upstream files as they are, and `skill install NAME`
from the built registry giving the same folder `skill install github:` gives (SKILL.md generated from
`system_prompt` by the one function `skillyard migrate` uses). Against the GitHub stand-in on 127.0.0.1."""

from __future__ import annotations

import json

from tests.support.cli_schemas import check_output
from tests.support.registry import registry_url

from skillyard.cli.main import skillyard_main

from .conftest import tree
from .test_manifest_packages import MANIFEST, NAME


def test_external_add_lists_a_skill_yaml_only_skill_as_github_install_does(git_server, monkeypatch, capsys,
                                                                          configure, skill_cli, tmp_path):
    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    sha = git_server.create_repo("sga", NAME, {"skill.yaml": MANIFEST, "README.md": "An invoice skill.\n"})
    git_server.create_repo("acme", "reg", {"skillyard.toml": 'name = "acme"\nrepository = "acme/reg"\n'})
    root = git_server.repo_path("acme", "reg")
    capsys.readouterr()
    assert skillyard_main(["external", "add", f"github:sga/{NAME}", "--root", str(root), "--json"]) == 0, \
        capsys.readouterr().err
    added = check_output("skillyard external add", 0, capsys.readouterr().out)  # and its JSON Schema
    assert added["name"] == NAME and added["commit"] == sha and added["license"] == "MIT"  # skill.yaml's licence
    (said,) = [w for w in added["warnings"] if w["rule"] == "pointer-manifest-only"]
    assert "Claude Code" in said["message"] and "skillyard migrate" in said["fix"]  # what other clients will miss
    pointer = (root / "skills" / NAME / "source.yaml").read_text(encoding="utf-8")
    assert "path: skill.yaml" in pointer and "SKILL.md" not in pointer  # the upstream files as pinned, no more
    git_server.commit("acme", "reg", {}, message="pointer")
    assert skillyard_main(["validate", "--root", str(root)]) == 0, capsys.readouterr().err
    assert skillyard_main(["build", "--root", str(root)]) == 0, capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="build")
    (entry,) = json.loads((root / "registry.json").read_text())["skills"]
    assert entry["name"] == NAME and entry["version"] == "1.2.0"

    direct = tmp_path / "direct"
    direct.mkdir()
    done = skill_cli("install", f"github:sga/{NAME}", "--project-dir", str(direct), "--skip-deps-check")
    assert done.code == 0, done.err
    configure.source("acme", registry_url(git_server, "acme", "reg"))
    listed = tmp_path / "listed"
    listed.mkdir()
    done = skill_cli("install", NAME, "--project-dir", str(listed), "--skip-deps-check")
    assert done.code == 0, done.err
    by_github = tree(direct / ".agents" / "skills" / NAME)
    by_registry = tree(listed / ".agents" / "skills" / NAME)
    lock = "skill.lock.json"
    assert {k: v for k, v in by_registry.items() if k != lock} == {k: v for k, v in by_github.items() if k != lock}
    assert by_registry["SKILL.md"].startswith(b"---\nname: invoice-processor\n")

    # a restore of the project's lock reproduces it (the generated SKILL.md checked against the locked hash)
    import shutil

    shutil.rmtree(listed / ".agents")
    done = skill_cli("install", "--project-dir", str(listed))
    assert done.code == 0, done.err
    assert tree(listed / ".agents" / "skills" / NAME) == by_registry

    # ... also once the registry has moved the pointer on: the locked commit's skill.yaml is fetched, and its
    # SKILL.md, which upstream never had, generated again
    git_server.commit("sga", NAME, {"skill.yaml": MANIFEST.replace("version: 1.2.0", "version: 1.3.0")})
    shutil.rmtree(root / "skills" / NAME)
    assert skillyard_main(["external", "add", f"github:sga/{NAME}", "--root", str(root)]) == 0, \
        capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="pointer moved")
    assert skillyard_main(["build", "--root", str(root)]) == 0, capsys.readouterr().err
    git_server.commit("acme", "reg", {}, message="build")
    assert json.loads((root / "registry.json").read_text())["skills"][0]["version"] == "1.3.0"
    shutil.rmtree(listed / ".agents")
    done = skill_cli("install", "--project-dir", str(listed))
    assert done.code == 0, done.err
    assert tree(listed / ".agents" / "skills" / NAME) == by_registry
