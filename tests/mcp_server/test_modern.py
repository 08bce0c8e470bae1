"""The SDK's high-level `Client` in its default mode (it discovers and speaks the 2026-07-28 protocol when the
server does): tools, elicitation through input-required rounds, and list_changed through `subscriptions/listen`."""

from __future__ import annotations

import subprocess

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import types  # noqa: E402
from mcp.client import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from tests.mcp_server.support import SKILL, server_args, server_env, text_of  # noqa: E402
from tests.mcp_server.test_stdio import make_skill, world  # noqa: E402,F401 (a fixture)


def test_modern_client_lists_asks_and_hears_changes(world, tmp_path):  # noqa: F811
    src = tmp_path / "src"
    make_skill(src, "tidy-notes", "Turns rough notes into a tidy summary. Use when the user pastes notes.", "# Tidy")
    asked = []

    async def elicit(context, request):
        asked.append(request.message)
        return types.ElicitResult(action="accept", content={"allow": True})

    async def main():
        params = StdioServerParameters(command=SKILL, args=server_args(world), env=server_env(world))
        with anyio.fail_after(120):
            async with Client(params, elicitation_callback=elicit) as client:
                tools = await client.list_tools()
                guarded = await client.call_tool("load_skill", {"skill_name": "guarded"})
                async with client.listen(tools_list_changed=True, prompts_list_changed=True) as sub:
                    done = await anyio.to_thread.run_sync(lambda: subprocess.run(
                        [SKILL, "install", "./tidy-notes"], capture_output=True, text=True, timeout=120, cwd=src,
                        env=server_env(world)))
                    assert done.returncode == 0, done.stderr
                    with anyio.fail_after(30):
                        async for event in sub:
                            break
                listed = await client.call_tool("list_skills", {})
                return client.session.protocol_version, tools, guarded, event, listed

    version, tools, guarded, event, listed = anyio.run(main)
    assert {"list_skills", "load_skill", "read_skill_file"} <= {t.name for t in tools.tools}
    assert "Deploy carefully." in text_of(guarded) and asked
    assert event is not None and "tidy-notes" in text_of(listed)
    print("protocol", version, type(event).__name__)
