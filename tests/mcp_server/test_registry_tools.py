"""The registry over MCP (issue 38 item 5): search_skills, skill_info and install_skill, driven by the MCP Python
SDK's own client over stdio against a server process, with real registries served over HTTP on 127.0.0.1 (the
GitHub stand-in of tests/support/gitserver.py). Install always asks through elicitation: yes installs, anything
else installs nothing; the client's policy (install.require_verified) refuses exactly as `skill install` does."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import types  # noqa: E402
from mcp.client import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from tests.client_install.test_pointer_install import pointer_registry  # noqa: E402,F401 - the fixture
from tests.support.fixtures import SAMPLE_SKILLS, git_server, skill_cli, skill_home  # noqa: E402,F401
from tests.support.registry import publish_registry, registry_url  # noqa: E402

# The server under test: the registry tools on the skills server when its extra-tools hook exists, else alone.
LAUNCH = """
import inspect
from mcp.server.mcpserver import MCPServer
from skillyard.client.mcp_registry import register
from skillyard.runtime import mcp_server
if "extra_tools" in inspect.signature(mcp_server.build_server).parameters:
    from skillyard.runtime.service import SkillRuntime
    server = mcp_server.build_server(SkillRuntime(), extra_tools=register)
else:
    server = MCPServer("skillyard-registry-test")
    register(server)
server.run("stdio")
"""


@pytest.fixture
def world(git_server, pointer_registry, tmp_path):  # noqa: F811 - the imported fixtures
    from skillyard.client.config import Source, edit

    publish_registry(git_server, "acme", "skills", SAMPLE_SKILLS, name="acme")
    with edit() as config:
        config.put_source(Source("samples", registry_url(git_server, "acme", "skills"), None, config.next_priority()))
        config.put_source(Source("reg", registry_url(git_server, "acme", "reg"), None, config.next_priority()))
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return {"server": git_server, "home": os.environ["HOME"], "project": project}


def set_config(key, value) -> None:
    from skillyard.client.config import edit

    with edit() as config:
        config.set(key, value)


def run_session(world, body, *, answer="yes", can_elicit=True):
    """Start the server, initialize, run `body(session)`; `answer`: yes, no (accept with install=false), decline
    or cancel. Returns (body's result, the elicitation messages the user was shown)."""
    asked = []

    async def elicit(context, request):
        asked.append(request.message)
        if answer in ("decline", "cancel"):
            return types.ElicitResult(action=answer)
        return types.ElicitResult(action="accept", content={"install": answer == "yes"})

    keep = ("HOME", "SKILLCLI_HOME", "SKILL_GITHUB_RAW_URL", "SKILL_GITHUB_CODELOAD_URL", "SKILL_GITHUB_API_URL",
            "SKILL_HTTP_TIMEOUT", "SKILL_HTTP_BACKOFF", "SKILL_DEFAULT_SOURCE", "PATH")
    env = {k: os.environ[k] for k in keep if k in os.environ} | {"SKILL_CACHE_TTL": "0", "SKILL_PATH": ""}
    params = StdioServerParameters(command=sys.executable, args=["-c", LAUNCH], env=env, cwd=str(world["project"]))

    async def main():
        with anyio.fail_after(90):
            async with stdio_client(params) as (read, write), \
                    ClientSession(read, write, elicitation_callback=elicit if can_elicit else None) as s:
                await s.initialize()
                return await body(s)

    return anyio.run(main), asked


def text_of(result) -> str:
    return "".join(c.text for c in result.content if getattr(c, "text", None) is not None)


def call(name, arguments):
    async def body(s):
        return await s.call_tool(name, arguments)

    return body


def installed(world, name) -> bool:
    return (Path(world["home"]) / ".agents" / "skills" / name / "skill.lock.json").is_file()


def cli_json(run_cli, *argv) -> dict:
    result = run_cli(*argv, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    data.pop("skillyard", None)  # the CLI's envelope
    return data


def test_tools_are_listed_and_search_answers_as_the_cli(world, skill_cli):  # noqa: F811
    async def body(s):
        tools = await s.list_tools()
        return tools, await s.call_tool("search_skills", {"query": "pdf", "limit": 5})

    (tools, result), _ = run_session(world, body)
    names = {t.name for t in tools.tools}
    assert {"search_skills", "skill_info", "install_skill"} <= names
    install_tool = next(t for t in tools.tools if t.name == "install_skill")
    assert set(install_tool.input_schema["required"]) == {"name"}
    assert not result.is_error, text_of(result)
    served = json.loads(text_of(result))
    assert [h["name"] for h in served["results"]][:2] == ["pdf-tools", "invoice-processor"]
    assert served == cli_json(skill_cli, "search", "pdf", "--limit", "5")  # the same answer, field for field


def test_info_answers_as_the_cli_and_says_where_it_is_installed(world, skill_cli):  # noqa: F811
    result, _ = run_session(world, call("skill_info", {"name": "invoice-processor"}))
    assert not result.is_error, text_of(result)
    served = json.loads(text_of(result))
    cli = cli_json(skill_cli, "info", "invoice-processor")
    for key in ("skill", "versions", "source", "registry", "install", "skill_md_url", "installed"):
        assert served[key] == cli[key], key
    assert served["skill"]["mcp_deps"][0]["tool"] == "filesystem" and served["installed"] == []
    assert served["scope"] == ["user", "project"]


def test_info_of_a_pointer_carries_its_upstream_facts(world):
    result, _ = run_session(world, call("skill_info", {"name": "alpha@reg"}))
    served = json.loads(text_of(result))
    assert served["upstream"]["repository"] == "https://github.com/up/skills"
    assert served["source"]["name"] == "reg"


def test_only_registry_refs_are_taken(world):
    refs = ["./somewhere", "/etc", "github:up/skills/skills/alpha", "../x.zip"]

    async def body(s):
        return [await s.call_tool(tool, {"name": ref}) for ref in refs for tool in ("skill_info", "install_skill")]

    results, asked = run_session(world, body)
    for result in results:
        assert result.is_error and "only a configured registry's skills are served" in text_of(result)
    assert asked == []


def test_unknown_skill_is_a_clear_error(world):
    result, asked = run_session(world, call("install_skill", {"name": "no-such-skill"}))
    assert result.is_error and "no-such-skill" in text_of(result) and asked == []


def test_install_asks_with_the_facts_and_a_yes_installs(world, skill_cli):  # noqa: F811
    result, asked = run_session(world, call("install_skill", {"name": "commit-writer"}))
    assert not result.is_error, text_of(result)
    assert len(asked) == 1
    question = asked[0]
    assert "Install skill commit-writer 2.0.0?" in question
    assert "source: samples (http://127.0.0.1:" in question
    assert "the registry's own skill" in question
    assert "findings: 1" in question and "info long-description: Consider a shorter body." in question
    outcome = json.loads(text_of(result))["skills"][0]
    assert outcome["name"] == "commit-writer" and outcome["status"] == "installed"
    assert installed(world, "commit-writer")
    listed = cli_json(skill_cli, "list")
    assert "commit-writer" in json.dumps(listed)


@pytest.mark.parametrize("answer", ["no", "decline", "cancel"])
def test_anything_but_yes_installs_nothing(world, answer):
    result, asked = run_session(world, call("install_skill", {"name": "pdf-tools"}), answer=answer)
    assert len(asked) == 1 and "Install skill pdf-tools 0.3.1?" in asked[0]
    assert result.is_error and "nothing was installed" in text_of(result)
    assert not installed(world, "pdf-tools")
    skills = Path(world["home"]) / ".agents" / "skills"
    assert not skills.exists() or "pdf-tools" not in os.listdir(skills)


def test_a_client_that_cannot_ask_gets_a_refusal(world):
    result, asked = run_session(world, call("install_skill", {"name": "pdf-tools"}), can_elicit=False)
    assert result.is_error and "cannot ask the user" in text_of(result) and "nothing was installed" in text_of(result)
    assert not installed(world, "pdf-tools")


def test_require_verified_refuses_as_the_cli_does_before_asking(world, skill_cli):  # noqa: F811
    set_config("install.require_verified", True)
    result, asked = run_session(world, call("install_skill", {"name": "alpha"}))
    cli = skill_cli("install", "alpha")
    assert result.is_error and asked == []  # refused before the user is bothered
    text = text_of(result)
    assert "the setting `install.require_verified` is on" in text and "nothing was installed" in text
    message = text.split("\n")[0].removeprefix("Error executing tool install_skill: ")
    assert cli.code != 0 and message in cli.err  # the CLI's own message
    assert not installed(world, "alpha")
    set_config("install.require_verified", False)
    result, asked = run_session(world, call("install_skill", {"name": "alpha"}))
    assert not result.is_error, text_of(result)
    assert "NOT verified" in asked[0] and "upstream: https://github.com/up/skills @ " in asked[0]
    assert installed(world, "alpha")


def test_an_unknown_target_is_refused_before_asking(world):
    result, asked = run_session(world, call("install_skill", {"name": "pdf-tools", "targets": ["no-such-agent"]}))
    assert result.is_error and "no-such-agent" in text_of(result) and asked == []


def test_a_project_install_goes_to_the_servers_project(world):
    result, _ = run_session(world, call("install_skill", {"name": "pdf-tools", "scope": "project"}))
    assert not result.is_error, text_of(result)
    assert (world["project"] / ".agents" / "skills" / "pdf-tools" / "skill.lock.json").is_file()
    assert (world["project"] / "skills.lock.json").is_file()
    assert not installed(world, "pdf-tools")
