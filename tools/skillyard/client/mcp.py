"""MCP dependency checks: ask the configured hub which tools exist, compare with a skill's `mcp_deps`.

Two ways to ask, chosen by `mcp_hub.type` (`hub` or `mcp`), or by the endpoint's URL when unset (a path ending in
`/mcp` means a real MCP server):

- hub: `GET <endpoint>/tools/list` answering a JSON list of names, or `{"tools": [name | {"name": ...}]}`.
- mcp: an MCP server over streamable HTTP, asked with the official `mcp` SDK (`initialize` then `tools/list`,
  following pagination). The SDK is an optional extra and imported only here, only when needed.

A skill with no `mcp_deps` never contacts the hub.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from skillyard.errors import SkillyardError


@dataclass(frozen=True)
class Hub:
    endpoint: str
    kind: str  # "hub" | "mcp"
    timeout: float  # seconds


@dataclass
class DepReport:
    """What one skill needs and what the hub has."""

    skill: str
    deps: list[dict]
    available: list[str] = field(default_factory=list)
    missing_required: list[str] = field(default_factory=list)
    missing_optional: list[str] = field(default_factory=list)
    checked: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        return not self.missing_required and (self.error is None or not self.required)

    @property
    def required(self) -> list[str]:
        return [d["tool"] for d in self.deps if d.get("required", True)]

    def to_dict(self) -> dict:
        return {"skill": self.skill, "ok": self.ok, "checked": self.checked, "error": self.error,
                "deps": [{"tool": d["tool"], "required": bool(d.get("required", True)),
                          "available": d["tool"] in self.available if self.checked else None}
                         for d in self.deps],
                "missing_required": self.missing_required, "missing_optional": self.missing_optional}


def hub_from_config(config) -> Hub | None:
    endpoint = config.mcp_hub_endpoint
    if not endpoint:
        return None
    kind = str(config.get("mcp_hub.type") or "").strip().lower()
    if kind not in ("", "hub", "mcp"):
        raise SkillyardError(f"mcp_hub.type in {config.path} is {kind!r}.", "Set it to `hub` or `mcp` (or remove it).")
    if not kind:
        from urllib.parse import urlsplit

        kind = "mcp" if urlsplit(endpoint).path.rstrip("/").endswith("/mcp") else "hub"
    return Hub(endpoint.rstrip("/") if kind == "hub" else endpoint, kind, config.mcp_hub_timeout / 1000.0)


def parse_tool_list(payload: object) -> list[str]:
    """Tool names from a hub answer: `[names]` or `{"tools": [name | {"name": ...}]}`."""
    items = payload.get("tools") if isinstance(payload, dict) else payload
    if not isinstance(items, list):
        raise ValueError("expected a JSON list of tool names or an object with a `tools` list")
    names = []
    for item in items:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            names.append(item["name"])
        else:
            raise ValueError(f"unexpected entry in the tool list: {item!r}")
    return sorted(set(names))


HUB_MAX_BYTES = 4 * 1024 * 1024  # a tool list of ~100,000 names; a hub is a server like any other: bounded


def _hub_tools(hub: Hub) -> list[str]:
    """GET `<endpoint>/tools/list` through the client's one bounded fetcher: the hub's timeout is a whole-transfer
    deadline and the answer is capped, so a dripping or endless hub cannot hold `skill install` or its memory."""
    from skillyard.client import http

    url = hub.endpoint + "/tools/list"
    try:
        response = http.fetch(url, timeout=hub.timeout, deadline=hub.timeout, retries=0, accept="application/json",
                              max_bytes=HUB_MAX_BYTES)
    except SkillyardError as exc:
        raise OSError(f"cannot list the tools at {url}: {exc.message}") from None
    try:
        return parse_tool_list(json.loads(response.body))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise OSError(f"{url} did not answer a tool list: {str(exc)[:200]}") from None


def _mcp_tools(hub: Hub) -> list[str]:
    try:
        import mcp
        from mcp.client.streamable_http import streamable_http_client
        from mcp.types import PaginatedRequestParams
    except ImportError:
        raise SkillyardError("mcp_hub.type is `mcp` but the MCP SDK is not installed.",
                             "Install it with `pip install 'skillyard[mcp]'`, or use a plain hub endpoint.") from None
    import asyncio

    async def ask() -> list[str]:
        names: list[str] = []
        async with streamable_http_client(hub.endpoint) as streams, mcp.ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            cursor = None
            for _ in range(100):
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                result = await session.list_tools(params=params)
                names += [tool.name for tool in result.tools]
                cursor = getattr(result, "next_cursor", None)
                if not cursor:
                    break
        return sorted(set(names))

    async def bounded() -> list[str]:
        return await asyncio.wait_for(ask(), hub.timeout)

    try:
        return asyncio.run(bounded())
    except SkillyardError:
        raise
    except TimeoutError:
        raise OSError(f"the MCP server at {hub.endpoint} did not answer within {hub.timeout:g}s") from None
    except BaseException as exc:  # the SDK wraps transport failures in exception groups
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        raise OSError(f"cannot list the tools of the MCP server at {hub.endpoint}: {_first_cause(exc)}") from None


def _first_cause(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def list_tools(hub: Hub) -> list[str]:
    """Every tool name the hub offers; OSError when it cannot be reached or answers nonsense."""
    return _mcp_tools(hub) if hub.kind == "mcp" else _hub_tools(hub)


def check(skill: str, deps: list[dict] | None, hub: Hub | None, *, tools: list[str] | None = None) -> DepReport:
    """Compare `deps` with the hub's tools. Never raises for an unreachable hub: the report carries the error."""
    deps = [d for d in deps or [] if isinstance(d, dict) and isinstance(d.get("tool"), str)]
    report = DepReport(skill, deps)
    if not deps:
        report.checked = True
        return report
    if tools is None:
        if hub is None:
            report.error = "no MCP hub is configured (mcp_hub.endpoint)"
            return report
        try:
            tools = list_tools(hub)
        except OSError as exc:
            report.error = str(exc)
            return report
    report.checked = True
    report.available = sorted(tools)
    have = set(tools)
    for dep in deps:
        if dep["tool"] not in have:
            (report.missing_required if dep.get("required", True) else report.missing_optional).append(dep["tool"])
    return report


def enforce(report: DepReport, *, skip_unreachable: bool = False) -> list[str]:
    """Raise for what blocks an install; return warnings for what does not."""
    warnings = []
    if report.missing_required:
        tools = ", ".join(report.missing_required)
        raise SkillyardError(f"Skill {report.skill} needs the MCP tool(s) {tools}, which the hub does not offer; "
                             "nothing was installed.",
                             "Add the tool(s) to your MCP hub, or point mcp_hub.endpoint at a hub that has them.")
    if report.error:
        if report.required and not skip_unreachable:
            raise SkillyardError(f"Cannot check the MCP dependencies of {report.skill} "
                                 f"({', '.join(report.required)}): {report.error}; nothing was installed.",
                                 "Start the hub or fix mcp_hub.endpoint, or pass --skip-deps-check to install anyway.")
        warnings.append(f"MCP dependencies of {report.skill} not checked: {report.error}")
    for tool in report.missing_optional:
        desc = next((d.get("description") for d in report.deps if d["tool"] == tool), None)
        warnings.append(f"optional MCP tool {tool} is not offered by the hub"
                        + (f" ({desc}); the skill works without it" if desc else "; the skill works without it"))
    return warnings
