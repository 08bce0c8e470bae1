"""The whole chain: the lead's `skillyard build` compiles registry.json in a real git repository, the fixture
serves it, and `skill` installs from it (with the MCP check against a real MCP server)."""

import json
from pathlib import Path

from tests.support.registry import registry_url

from .test_github_mcp import repo_files

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_install_from_a_registry_built_by_skillyard_build(git_server, configure, mcp_server, skill_cli, user_home,
                                                           capsys):
    from skillyard.cli.main import skillyard_main

    files = {f"skills/invoice-processor/{k}": v for k, v in repo_files().items()}
    files["skillyard.toml"] = 'name = "acme"\nrepository = "acme/real"\nmode = "lenient"\n'
    git_server.create_repo("acme", "real", files)
    repo = git_server.repo_path("acme", "real")
    assert skillyard_main(["build", "--root", str(repo)]) == 0, capsys.readouterr()
    registry = json.loads((repo / "registry.json").read_text())
    git_server.commit("acme", "real", {"registry.json": (repo / "registry.json").read_text()}, message="build")
    assert registry["skills"][0]["name"] == "invoice-processor"

    configure.source("acme", registry_url(git_server, "acme", "real"))
    configure("mcp_hub.endpoint", mcp_server)
    result = skill_cli("install", "invoice-processor", "--input", "target_collection=bills", "--json")
    assert result.code == 0, result.err
    folder = user_home / ".agents" / "skills" / "invoice-processor"
    assert "`bills`" in (folder / "SKILL.md").read_text()
    assert (folder / "scripts" / "invoice_fields.py").read_bytes() == (
        REPO_ROOT / "skills" / "invoice-processor" / "scripts" / "invoice_fields.py").read_bytes()
    lock = json.loads((folder / "skill.lock.json").read_text())
    assert lock["resolved_source"]["integrity"] == registry["skills"][0]["integrity"]
    assert lock["resolved_source"]["commit"] == registry["skills"][0]["commit"]
    listed = skill_cli("list")
    assert "invoice-processor" in listed.out and "registry:acme" in listed.out
