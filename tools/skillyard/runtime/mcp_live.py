"""Tell connected MCP clients when the served skills change (issue 38, step 4).

A poll, not a watcher: every `interval` seconds the discovery's watched paths (each root, grouping folder, skill
folder and SKILL.md, design 002's cache key) are `stat`ed; only when one moved is the discovery refreshed and the
served set compared. `skill install`, `update` and `uninstall` rename whole folders in and out of a root (and
journal the change there first), so every one of them moves a root's modification time; so does a hand edit of a
SKILL.md or a folder created or removed by hand. When the set (names, SKILL.md locations and times, permissions,
prompts) differs, the prompts are re-registered and every client gets `notifications/tools/list_changed`,
`prompts/list_changed` and `resources/list_changed`: handshake-era sessions on their connection, 2026-07-28
clients through the server's subscription bus (`subscriptions/listen`).
"""

from __future__ import annotations

import logging
import os

import anyio
from mcp.server.lowlevel.server import NotificationOptions

from skillyard.runtime.cache import _fresh

LOG = logging.getLogger("skillyard.mcp")
DEFAULT_INTERVAL = 1.0
INTERVAL_ENV = "SKILL_MCP_POLL_SECONDS"


def interval_from_env() -> float:
    """`$SKILL_MCP_POLL_SECONDS` (tests use a short one), else one second; bad values fall back to the default."""
    try:
        value = float(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL))
    except ValueError:
        return DEFAULT_INTERVAL
    return min(max(value, 0.05), 60.0)


class Live:
    """Knows the connected sessions and the last served set; `run()` polls and notifies."""

    def __init__(self, state, server, *, interval: float | None = None, on_change=None):
        self.state = state  # the SkillServer
        self.server = server  # the MCPServer
        self.interval = interval_from_env() if interval is None else interval
        self.on_change = on_change  # re-registers prompts (mcp_server), called before clients are told
        self.sessions: dict[int, object] = {}
        self.seen = self.signature()
        self.changes = 0

    def install(self) -> None:
        """Declare `listChanged` for tools, prompts and resources and record each session as it initializes."""
        low = self.server._lowlevel_server
        original = low.create_initialization_options

        def with_changes(notification_options=None, *args, **kwargs):
            options = notification_options or NotificationOptions(prompts_changed=True, resources_changed=True,
                                                                  tools_changed=True)
            return original(options, *args, **kwargs)

        low.create_initialization_options = with_changes
        low.middleware.append(self._middleware)

    async def _middleware(self, ctx, call_next):
        result = await call_next(ctx)
        session = getattr(ctx, "session", None)
        connection = getattr(session, "_connection", None)
        if connection is not None and id(connection) not in self.sessions and ctx.method != "initialize":
            self.sessions[id(connection)] = session
        return result

    def signature(self) -> tuple:
        rt = self.state.rt
        allowed = rt.permissions()
        served = tuple((s.name, s.location, s.mtime_ns, allowed.get(s.name)) for s in rt.skills())
        prompts = tuple((s.name, s.location, s.description) for s in self.state.user_invocable())
        return served, prompts

    def changed(self) -> bool:
        """One `stat` per watched path; a rescan and comparison only when one moved."""
        rt = self.state.rt
        if _fresh(rt.discovery().watched):
            return False
        rt.discovery(refresh=True)
        now = self.signature()
        if now == self.seen:
            return False
        self.seen = now
        return True

    async def run(self) -> None:
        while True:
            await anyio.sleep(self.interval)
            try:  # in a worker thread: a rescan of many skills must not stall the calls being served
                if await anyio.to_thread.run_sync(self.changed):
                    await self.notify()
            except Exception:  # a damaged rules file or a vanished root must not stop the server
                LOG.exception("checking the skill folders failed")

    async def notify(self) -> None:
        self.changes += 1
        if self.on_change is not None:
            self.on_change()
        bus = getattr(self.server, "_subscriptions", None)
        if bus is not None:
            from mcp.server.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

            for event in (ToolsListChanged(), PromptsListChanged(), ResourcesListChanged()):
                await bus.publish(event)
        for key, session in list(self.sessions.items()):
            try:
                await session.send_tool_list_changed()
                await session.send_prompt_list_changed()
                await session.send_resource_list_changed()
            except Exception:  # the client went away
                self.sessions.pop(key, None)
