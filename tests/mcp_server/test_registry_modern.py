"""The registry tools of a real `skill mcp` process on the protocols a client may speak: install_skill through the
SDK's default `Client` (2026-07-28, where the question travels as an input-required round and a plain ctx.elicit
has no back-channel), and the registry tools over streamable HTTP. The registries are served on 127.0.0.1 by the
GitHub stand-in (the fixtures of test_registry_tools.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import types  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from tests.client_install.test_pointer_install import pointer_registry  # noqa: E402,F401 - the fixture
from tests.mcp_server import support  # noqa: E402
from tests.mcp_server.support import SKILL, HttpServer, run_http, server_args, text_of  # noqa: E402
from tests.mcp_server.test_registry_tools import installed, set_config, world  # noqa: E402,F401 - world: a fixture
from tests.support.fixtures import git_server, skill_cli, skill_home  # noqa: E402,F401

PASSED = ("HOME", "SKILLCLI_HOME", "SKILL_GITHUB_RAW_URL", "SKILL_GITHUB_CODELOAD_URL", "SKILL_GITHUB_API_URL",
          "SKILL_HTTP_TIMEOUT", "SKILL_HTTP_BACKOFF")


def served(world) -> tuple[dict, dict[str, str]]:  # noqa: F811
    """The `world` support.py's helpers take, and the environment that points the server at the test's registries
    and home (support.server_env's defaults would give it an empty home of its own)."""
    where = {"home": Path(world["home"]), "project": world["project"]}
    env = {k: os.environ[k] for k in PASSED if k in os.environ} | {"SKILL_CACHE_TTL": "0"}
    return where, env


def run_modern(world, answers, body, *, can_elicit=True):  # noqa: F811
    """`skill mcp` driven by the SDK's default Client; `answers`: what the user says to each question in turn
    (yes, no = accept with install false, decline, cancel). Returns (body's result, questions shown, protocol)."""
    where, env = served(world)
    replies, asked = iter(answers), []

    async def elicit(context, request):
        asked.append(request.message)
        said = next(replies)
        if said in ("decline", "cancel"):
            return types.ElicitResult(action=said)
        return types.ElicitResult(action="accept", content={"install": said == "yes"})

    async def main():
        params = StdioServerParameters(command=SKILL, args=server_args(where), env=support.server_env(where, **env))
        with anyio.fail_after(180):
            async with Client(params, elicitation_callback=elicit if can_elicit else None) as client:
                return await body(client), client.session.protocol_version

    result, version = anyio.run(main)
    return result, asked, version


def test_the_modern_client_installs_after_yes_and_nothing_after_no(world):  # noqa: F811
    async def body(client):
        return [await client.call_tool("install_skill", {"name": "pdf-tools"}) for _ in range(4)]

    (no, declined, cancelled, yes), asked, version = run_modern(world, ["no", "decline", "cancel", "yes"], body)
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    assert version in MODERN_PROTOCOL_VERSIONS  # the input-required protocol really was spoken
    assert len(asked) == 4 and all("Install skill pdf-tools 0.3.1?" in q for q in asked)  # once per call
    assert "source: samples (http://127.0.0.1:" in asked[0]
    for refused, said in ((no, "did not confirm"), (declined, "declined"), (cancelled, "cancelled")):
        assert refused.is_error and said in text_of(refused) and "nothing was installed" in text_of(refused)
    assert not yes.is_error, text_of(yes)
    outcome = json.loads(text_of(yes))["skills"][0]
    assert outcome["name"] == "pdf-tools" and outcome["status"] == "installed"
    assert installed(world, "pdf-tools")


def test_the_modern_client_is_refused_by_policy_before_it_is_asked(world):  # noqa: F811
    set_config("install.require_verified", True)

    async def body(client):
        return await client.call_tool("install_skill", {"name": "alpha"})

    result, asked, _ = run_modern(world, [], body)
    assert result.is_error and "the setting `install.require_verified` is on" in text_of(result)
    assert asked == [] and not installed(world, "alpha")


def test_a_modern_client_that_cannot_ask_is_refused(world):  # noqa: F811
    async def body(client):
        return await client.call_tool("install_skill", {"name": "pdf-tools"})

    result, asked, _ = run_modern(world, [], body, can_elicit=False)
    assert result.is_error and "nothing was installed" in text_of(result)
    assert asked == [] and not installed(world, "pdf-tools")


class Installer(support.Client):
    """support.Client answering the install question (its field is `install`, not `allow`)."""

    async def elicit(self, context, request):
        self.asked.append(request.message)
        return types.ElicitResult(action="accept", content={"install": bool(self.answer)})


def test_registry_tools_over_http(world):  # noqa: F811
    where, env = served(world)
    server = HttpServer(where, env=env)
    try:
        async def body(s, init):
            found = await s.call_tool("search_skills", {"query": "pdf", "limit": 5})
            return found, await s.call_tool("install_skill", {"name": "commit-writer"})

        (found, result), client = run_http(server, body, client=Installer(answer=True))
    finally:
        server.stop()
    assert not found.is_error, text_of(found)
    assert [h["name"] for h in json.loads(text_of(found))["results"]][:2] == ["pdf-tools", "invoice-processor"]
    assert not result.is_error, text_of(result)
    assert len(client.asked) == 1 and "Install skill commit-writer 2.0.0?" in client.asked[0]
    assert installed(world, "commit-writer")
