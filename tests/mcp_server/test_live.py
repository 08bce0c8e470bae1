"""list_changed: `skill install` / `skill uninstall` in another process, and a skill added by hand, reach a connected
client as notifications, and what it lists afterwards is the new set (issue 38, step 4)."""

from __future__ import annotations

import shutil
import subprocess

import anyio
import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.mcp_server.support import SKILL, Client, HttpServer, run_http, run_stdio, server_env, text_of  # noqa: E402
from tests.mcp_server.test_stdio import make_skill, world  # noqa: E402,F401 (a fixture)

CHANGED = ("notifications/tools/list_changed", "notifications/prompts/list_changed",
           "notifications/resources/list_changed")


def skill_cli(world, *args: str) -> subprocess.CompletedProcess:  # noqa: F811
    return subprocess.run([SKILL, *args], capture_output=True, text=True, timeout=120, cwd=world["src"],
                          env=server_env(world))


@pytest.fixture
def src(world, tmp_path):  # noqa: F811
    world["src"] = tmp_path / "src"
    make_skill(world["src"], "tidy-notes", "Turns rough notes into a tidy summary. Use when the user pastes notes.",
               "# Tidy notes\n\nOne line per decision.")
    return world


async def _install_then_uninstall(s, world, client):  # noqa: F811
    before = text_of(await s.call_tool("list_skills", {}))
    installed = await anyio.to_thread.run_sync(lambda: skill_cli(world, "install", "./tidy-notes", "--json"))
    assert installed.returncode == 0, installed.stderr
    for method in CHANGED:
        await client.wait_for(method)
    after = text_of(await s.call_tool("list_skills", {}))
    prompts = {p.name for p in (await s.list_prompts()).prompts}
    loaded = text_of(await s.call_tool("load_skill", {"skill_name": "tidy-notes"}))
    count = client.notes.count(CHANGED[0])
    removed = await anyio.to_thread.run_sync(lambda: skill_cli(world, "uninstall", "tidy-notes", "--json"))
    assert removed.returncode == 0, removed.stderr
    with anyio.fail_after(30):
        while client.notes.count(CHANGED[0]) == count:
            await anyio.sleep(0.05)
    gone = text_of(await s.call_tool("list_skills", {}))
    prompts_gone = {p.name for p in (await s.list_prompts()).prompts}
    return before, after, prompts, loaded, gone, prompts_gone


def test_install_and_uninstall_in_another_process_notify_over_stdio(src):
    client = Client()

    async def body(s, init):
        assert init.capabilities.tools.list_changed and init.capabilities.resources.list_changed
        await s.list_tools()
        return await _install_then_uninstall(s, src, client)

    (before, after, prompts, loaded, gone, prompts_gone), _ = run_stdio(src, body, client=client)
    assert "tidy-notes" not in before and "tidy-notes" in after
    assert "tidy-notes" in prompts and "One line per decision." in loaded
    assert "tidy-notes" not in gone and "tidy-notes" not in prompts_gone


def test_install_notifies_over_http(src):
    server = HttpServer(src)
    client = Client()
    try:
        async def body(s, init):
            await s.list_tools()
            await anyio.sleep(0.5)  # the client's GET stream, which carries server-initiated notifications, opens
            return await _install_then_uninstall(s, src, client)

        (before, after, *_), _ = run_http(server, body, client=client)
    finally:
        server.stop()
    assert "tidy-notes" not in before and "tidy-notes" in after


def test_a_skill_added_and_removed_by_hand_notifies(src):
    client = Client()
    user = src["user"]

    async def body(s, init):
        await s.list_tools()
        make_skill(user, "by-hand", "Written by hand while the server runs. Use in tests.", "# By hand")
        await client.wait_for(CHANGED[0])
        listed = text_of(await s.call_tool("list_skills", {}))
        count = client.notes.count(CHANGED[0])
        shutil.rmtree(user / "by-hand")
        with anyio.fail_after(30):
            while client.notes.count(CHANGED[0]) == count:
                await anyio.sleep(0.05)
        gone = await s.call_tool("load_skill", {"skill_name": "by-hand"})
        return listed, gone

    (listed, gone), _ = run_stdio(src, body, client=client)
    assert "by-hand" in listed
    assert gone.is_error and "no available skill named 'by-hand'" in text_of(gone)


def test_nothing_changed_sends_nothing(src):
    client = Client()

    async def body(s, init):
        await s.list_tools()
        await anyio.sleep(1.5)  # several polls
        return await s.call_tool("list_skills", {})

    _, client = run_stdio(src, body, client=client)
    assert not [n for n in client.notes if n.endswith("list_changed")]
