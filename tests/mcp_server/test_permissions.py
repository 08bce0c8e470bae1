"""allow / ask / deny over MCP, completed: an `ask` skill answered "always" is remembered in the runtime's approvals
store for that agent (what `skill permissions list` shows), so the next server does not ask again."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.mcp_server.support import Client, run_stdio, text_of  # noqa: E402
from tests.mcp_server.test_stdio import world  # noqa: E402,F401 (a fixture)


def load_guarded(world, client):  # noqa: F811
    async def body(s, init):
        return await s.call_tool("load_skill", {"skill_name": "guarded"})

    return run_stdio(world, body, client=client)[0]


def test_always_is_remembered_and_the_next_server_does_not_ask(world):  # noqa: F811
    first = Client(answer=True, always=True)
    assert "Deploy carefully." in text_of(load_guarded(world, first)) and len(first.asked) == 1
    stored = json.loads((world["home"] / ".skillcli" / "approvals.json").read_text())
    assert list(stored["agents"]["tester"]) == ["guarded"]
    second = Client(answer=False)  # would refuse, if it were asked
    result = load_guarded(world, second)
    assert not result.is_error and "Deploy carefully." in text_of(result) and second.asked == []


def test_a_plain_yes_is_for_this_session_only(world):  # noqa: F811
    first = Client(answer=True)
    assert not load_guarded(world, first).is_error
    assert not (world["home"] / ".skillcli" / "approvals.json").exists()
    second = Client(answer=False)
    assert load_guarded(world, second).is_error and len(second.asked) == 1
