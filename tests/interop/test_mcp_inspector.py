"""The MCP Inspector's command-line mode (npm @modelcontextprotocol/inspector, pinned in clients.py) against our
servers (issue 38): it lists our tools with its schema-portability check on, calls them, reads a skill:// resource,
and drives the registry tools against a registry served on 127.0.0.1. The Inspector's CLI cannot answer an
elicitation, so an install through it must be refused with nothing written: that is checked too."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tests.interop.clients import NPM, npm_install, run, skillyard_bin
from tests.support.fixtures import SAMPLE_SKILLS, git_server, skill_home  # noqa: F401 - fixtures
from tests.support.registry import publish_registry, registry_url

pytest.importorskip("mcp", reason="the mcp extra is not installed (the interop session installs it)")

REGISTRY_SERVER = ("from mcp.server.mcpserver import MCPServer\nfrom skillyard.client.mcp_registry import register\n"
                   "server = MCPServer('skillyard-registry')\nregister(server)\nserver.run('stdio')\n")


@pytest.fixture(scope="module")
def inspector(node22) -> list[str]:
    package = npm_install("inspector") / "node_modules" / "@modelcontextprotocol" / "inspector"
    launcher = package / json.loads((package / "package.json").read_text())["bin"]["mcp-inspector"]
    return [str(node22), str(launcher), "--cli"]


@pytest.fixture
def world(tmp_path, skill_home, node22):  # noqa: F811
    home = Path(os.environ["HOME"])
    folder = home / ".agents" / "skills" / "tidy-notes"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: tidy-notes\ndescription: Turns rough notes into a summary. Use when "
                                     "the user pastes notes.\n---\n\n# Tidy notes\n\nSee references/style.md.\n")
    (folder / "references" / "style.md").write_text("# Style\n\nOne line per decision.\n")
    (tmp_path / "secret.txt").write_text("outside the skill")
    env = {"HOME": str(home), "SKILLCLI_HOME": os.environ["SKILLCLI_HOME"], "SKILL_PATH": "",
           "SKILL_DEFAULT_SOURCE": "none", "PATH": f"{node22.parent}:{Path(sys.executable).parent}:/usr/bin:/bin"}
    return {"home": home, "env": env, "cwd": tmp_path}


def call(inspector, world, target: list[str], *args: str, ok: bool = True) -> dict:
    """One Inspector CLI run; its stdout is one JSON document. The Inspector hands its server only a few safe
    variables, so ours are passed with -e."""
    passed = [arg for key, value in world["env"].items() if key != "PATH" and value
              for arg in ("-e", f"{key}={value}")]
    done = run([*inspector, *passed, *target, *args], cwd=world["cwd"], env=world["env"], timeout=180)
    assert (done.returncode == 0) == ok, f"{NPM['inspector']} exit {done.returncode}: {done.stderr[-1500:]}"
    return json.loads(done.stdout[done.stdout.index("{"):done.stdout.rindex("}") + 1])


def text(result: dict) -> str:
    return "".join(c.get("text", "") for c in result["content"])


def test_inspector_lists_and_calls_the_skill_tools(inspector, world):
    skill = [skillyard_bin("skill"), "mcp"]
    listed = call(inspector, world, skill, "--method", "tools/list", "--strict")  # portability errors exit 6
    assert {t["name"] for t in listed["tools"]} >= {"list_skills", "load_skill", "read_skill_file"}
    index = call(inspector, world, skill, "--method", "tools/call", "--tool-name", "list_skills")
    assert "tidy-notes" in text(index) and not index["isError"]
    loaded = call(inspector, world, skill, "--method", "tools/call", "--tool-name", "load_skill",
                  "--tool-arg", "skill_name=tidy-notes")
    assert "See references/style.md." in text(loaded) and "- references/style.md" in text(loaded)
    read = call(inspector, world, skill, "--method", "tools/call", "--tool-name", "read_skill_file",
                "--tool-arg", "skill_name=tidy-notes", "file_path=references/style.md")
    assert text(read) == "# Style\n\nOne line per decision.\n"
    escape = call(inspector, world, skill, "--method", "tools/call", "--tool-name", "read_skill_file",
                  "--tool-arg", "skill_name=tidy-notes", "file_path=../../../secret.txt", ok=False)
    assert escape["isError"] and "outside the skill" not in text(escape)
    resource = call(inspector, world, skill, "--method", "resources/read", "--uri", "skill://tidy-notes/SKILL.md")
    assert resource["contents"][0]["text"].startswith("---\nname: tidy-notes\n")


def test_inspector_drives_the_registry_tools(inspector, world, git_server):  # noqa: F811
    from skillyard.client.config import Source, edit

    publish_registry(git_server, "acme", "skills", SAMPLE_SKILLS, name="acme")
    with edit() as config:
        config.put_source(Source("acme", registry_url(git_server, "acme", "skills"), None, config.next_priority()))
    world["env"].update({"SKILL_GITHUB_RAW_URL": git_server.url, "SKILL_GITHUB_CODELOAD_URL": git_server.url,
                         "SKILL_CACHE_TTL": "0"})
    server = [sys.executable, "-c", REGISTRY_SERVER]
    listed = call(inspector, world, server, "--method", "tools/list", "--strict")
    assert [t["name"] for t in listed["tools"]] == ["search_skills", "skill_info", "install_skill"]
    found = call(inspector, world, server, "--method", "tools/call", "--tool-name", "search_skills",
                 "--tool-arg", "query=pdf")
    assert [r["name"] for r in json.loads(text(found))["results"]][:2] == ["pdf-tools", "invoice-processor"]
    info = call(inspector, world, server, "--method", "tools/call", "--tool-name", "skill_info",
                "--tool-arg", "name=invoice-processor")
    assert json.loads(text(info))["skill"]["version"] == "1.2.0"
    refused = call(inspector, world, server, "--method", "tools/call", "--tool-name", "install_skill",
                   "--tool-arg", "name=pdf-tools", ok=False)
    assert refused["isError"] and "cannot ask the user" in text(refused)
    assert not (world["home"] / ".agents" / "skills" / "pdf-tools").exists()
