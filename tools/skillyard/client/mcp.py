"""MCP dependency checks: ask the configured hub which tools exist -- or, with no hub, the MCP servers the target
agents have configured (client/agent_mcp.py) -- and compare with a skill's `mcp_deps`.

Two ways to ask, chosen by `mcp_hub.type` (`hub` or `mcp`), or by the endpoint's URL when unset (a path ending in
`/mcp` means a real MCP server):

- hub: `GET <endpoint>/tools/list` answering a JSON list of names, or `{"tools": [name | {"name": ...}]}`.
- mcp: an MCP server over streamable HTTP, asked with the official `mcp` SDK (`initialize` then `tools/list`,
  following pagination). The SDK is an optional extra and imported only here, only when needed.

A skill with no `mcp_deps` never contacts the hub.

What refuses an install (`enforce`): a check that says a required tool is missing; a configured hub that cannot be
reached (configuring one asks for its checks); nothing able to check, when the user demanded a check
(`--require-deps` or `mcp.require_deps`). Anything else installs, with one warning line when a tool is unchecked,
and the lock records how (`deps_record`), so a restore from the lockfile does the same.
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
    against: str | None = None  # "hub" | "agents" | None
    states: dict[str, bool | None] | None = None  # per tool, when checked against the agents' servers
    reasons: dict[str, str] = field(default_factory=dict)  # per tool: where it was found, or why not
    skipped: bool = False

    @property
    def ok(self) -> bool:
        return not self.missing_required and (self.error is None or not self.required)

    @property
    def required(self) -> list[str]:
        return [d["tool"] for d in self.deps if d.get("required", True)]

    def state(self, tool: str) -> bool | None:
        if self.states is not None:
            return self.states.get(tool)
        return tool in self.available if self.checked else None

    def to_dict(self) -> dict:
        out = {"skill": self.skill, "ok": self.ok, "checked": self.checked, "error": self.error,
               "deps": [{"tool": d["tool"], "required": bool(d.get("required", True)), "available": self.state(d["tool"])}
                        | ({"why": self.reasons[d["tool"]]} if d["tool"] in self.reasons else {})
                        for d in self.deps],
               "missing_required": self.missing_required, "missing_optional": self.missing_optional}
        if self.against:
            out["against"] = self.against
        if self.skipped:
            out["skipped"] = True
        return out


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
    deps = clean_deps(deps)
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
    report.against = "hub"
    report.available = sorted(tools)
    have = set(tools)
    for dep in deps:
        if dep["tool"] not in have:
            (report.missing_required if dep.get("required", True) else report.missing_optional).append(dep["tool"])
    return report


def clean_deps(deps) -> list[dict]:
    return [d for d in deps or [] if isinstance(d, dict) and isinstance(d.get("tool"), str)]


@dataclass(frozen=True)
class AgentCheck:
    """How to check against the agents' own MCP servers (no hub configured)."""

    targets: tuple[str, ...]
    project_root: object  # Path
    home: object  # Path
    probe: bool = False  # --probe-servers
    probe_config: bool = False  # mcp.probe_servers
    timeout: float = 5.0


def check_agents(skill: str, deps: list[dict] | None, how: AgentCheck, *, servers=None) -> tuple[DepReport, list[str]]:
    """Compare `deps` with the MCP servers the target agents have configured. Returns the report and warnings
    about the config files (unreadable, malformed). `checked` when every required tool has a definite answer."""
    from skillyard.client import agent_mcp

    deps = clean_deps(deps)
    report = DepReport(skill, deps)
    if not deps:
        report.checked = True
        return report, []
    agents = agent_mcp.agents_for(how.targets)
    if not agents:
        report.error = f"no MCP hub is configured, and skillyard reads no MCP settings of {', '.join(how.targets)}"
        return report, []
    if servers is None:
        servers = agent_mcp.read_servers(agents, how.project_root, how.home)
        wanted = {server for d in deps for server, _ in agent_mcp.splits(d["tool"])}
        agent_mcp.probe(servers, wanted, flag=how.probe, config_flag=how.probe_config, timeout=how.timeout)
    names = ", ".join(agent_mcp.AGENTS[a] for a in agents)
    if not servers.files:
        report.error = f"no MCP hub is configured and no readable MCP settings of {names} were found"
        return report, servers.warnings
    report.states = {}
    for dep in deps:
        state, why = agent_mcp.verdict(dep["tool"], servers.servers)
        report.states[dep["tool"]] = state
        report.reasons[dep["tool"]] = why
        if state is False:
            (report.missing_required if dep.get("required", True) else report.missing_optional).append(dep["tool"])
    report.available = sorted(t for t, s in report.states.items() if s)
    unknown = [d["tool"] for d in deps if report.states[d["tool"]] is None and d.get("required", True)]
    report.against = "agents"
    report.checked = not unknown
    if unknown:
        report.error = "; ".join(f"{t}: {report.reasons[t]}" for t in unknown) + f" (read {', '.join(servers.files)})"
    return report, servers.warnings


def config_flag(config, key: str) -> bool:
    """A yes/no config key (`mcp.require_deps`, `mcp.probe_servers`); anything else is a clear error."""
    from skillyard.client.config_keys import fix_for
    from skillyard.client.config_values import as_bool

    raw = config.get(key, False) if config is not None else False
    value = as_bool(raw)
    if value is None:
        raise SkillyardError(f"{key} in {config.path} is {raw!r}, expected true or false", fix_for(key))
    return value


def policy_of(*, skip: bool, require: bool | None, config) -> str:
    """`skip` | `require` | `check`: the flags win; else `mcp.require_deps`."""
    if skip and require:
        raise SkillyardError("--skip-deps-check and --require-deps contradict each other.", "Pass one of them.")
    if skip:
        return "skip"
    if require is None:
        require = config_flag(config, "mcp.require_deps")
    return "require" if require else "check"


def skipped(skill: str, deps: list[dict] | None) -> DepReport:
    report = DepReport(skill, clean_deps(deps))
    report.skipped = True
    report.checked = not report.deps
    if report.deps:
        report.error = "skipped (--skip-deps-check)"
    return report


def _where(report: DepReport) -> str:
    return "the MCP hub" if report.against == "hub" else "the MCP servers configured for the target agent(s)"


def enforce(report: DepReport, *, policy: str = "check", hub_configured: bool = False) -> list[str]:
    """Raise for what blocks an install; return warnings (one line each) for what does not."""
    warnings = []
    if report.skipped:
        if report.required:
            warnings.append(f"MCP dependencies of {report.skill} not checked (--skip-deps-check): it needs "
                            f"{', '.join(report.required)}")
        return warnings
    if report.missing_required:
        tools = ", ".join(report.missing_required)
        why = "; ".join(f"{t}: {report.reasons[t]}" for t in report.missing_required if t in report.reasons)
        if report.against == "hub":
            fix = ("Add the tool(s) to your MCP hub, or point it at one that has them "
                   "(`skill config set mcp_hub.endpoint URL`); --skip-deps-check installs anyway.")
        else:
            fix = ("Add the tool(s) to that MCP server (or configure the server that has them in the agent); "
                   "--skip-deps-check installs anyway.")
        raise SkillyardError(f"Skill {report.skill} needs the MCP tool(s) {tools}, which {_where(report)} "
                             f"do(es) not offer{' (' + why + ')' if why else ''}; nothing was installed.", fix)
    if report.error and report.required:
        if hub_configured and report.against != "agents":
            raise SkillyardError(f"Cannot check the MCP dependencies of {report.skill} "
                                 f"({', '.join(report.required)}): {report.error}; nothing was installed.",
                                 "Start the hub or fix it (`skill config set mcp_hub.endpoint URL`), or pass "
                                 "--skip-deps-check to install anyway.")
        if policy == "require":
            raise SkillyardError(f"Cannot check the MCP dependencies of {report.skill} "
                                 f"({', '.join(report.required)}), and a check is required (--require-deps or "
                                 f"mcp.require_deps): {report.error}; nothing was installed.",
                                 "Configure the MCP server(s) in the agent (pass --probe-servers to ask local ones) "
                                 "or a hub (`skill config set mcp_hub.endpoint URL`); or drop the requirement "
                                 "(`skill config unset mcp.require_deps`).")
        warnings.append(f"MCP tool(s) {', '.join(t for t in report.required if report.state(t) is not True)} "
                        f"of {report.skill} not checked: {report.error}; installed anyway (--require-deps refuses)")
    elif report.error:
        warnings.append(f"MCP dependencies of {report.skill} not checked: {report.error}")
    for tool in report.missing_optional:
        desc = next((d.get("description") for d in report.deps if d["tool"] == tool), None)
        where = "the hub" if report.against == "hub" else "the agent's MCP servers"
        warnings.append(f"optional MCP tool {tool} is not offered by {where}"
                        + (f" ({desc}); the skill works without it" if desc else "; the skill works without it"))
    return warnings


def deps_record(report: DepReport, policy: str) -> dict | None:
    """The lock's `deps`: how the skill's MCP tools were handled, so a restore handles them the same way."""
    if not report.deps:
        return None
    if report.skipped:
        return {"status": "skipped", "checked": False}
    record = {"status": "checked" if report.checked else "unchecked", "checked": report.checked}
    if policy == "require":
        record["required"] = True
    if report.checked and report.against:
        record["against"] = report.against
    return record
