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
                    event = None
                    with anyio.fail_after(30):
                        async for arrived in sub:
                            event = arrived
                            break
                listed = await client.call_tool("list_skills", {})
                return client.session.protocol_version, tools, guarded, event, listed

    version, tools, guarded, event, listed = anyio.run(main)
    assert {"list_skills", "load_skill", "read_skill_file"} <= {t.name for t in tools.tools}
    assert "Deploy carefully." in text_of(guarded) and asked
    assert event is not None and "tidy-notes" in text_of(listed)
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    assert version in MODERN_PROTOCOL_VERSIONS  # the new protocol really was spoken


def test_modern_client_runs_a_script_after_yes_and_not_after_no(world):  # noqa: F811
    folder = make_skill(world["user"], "probe-tools", "Probes. Use in tests of run_script.", "# Probe")
    (folder / "hello.sh").write_text("echo hello from $(pwd)\n")
    answers = iter([True, False])
    asked = []

    async def elicit(context, request):
        asked.append(request.message)
        return types.ElicitResult(action="accept", content={"allow": next(answers)})

    async def main():
        params = StdioServerParameters(command=SKILL, args=server_args(world, "--allow-scripts"), env=server_env(world))
        with anyio.fail_after(120):
            async with Client(params, elicitation_callback=elicit) as client:
                first = await client.call_tool("run_script", {"skill_name": "probe-tools", "script_path": "hello.sh"})
                second = await client.call_tool("run_script", {"skill_name": "probe-tools", "script_path": "hello.sh"})
                return first, second

    first, second = anyio.run(main)
    assert "hello from" in text_of(first) and "exit code 0" in text_of(first)
    assert second.is_error and "did not approve running" in text_of(second)
    assert len(asked) == 2 and "hello.sh" in asked[0]
