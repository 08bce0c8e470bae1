"""The MCP servers an agent itself has configured, as a source of truth for a skill's `mcp_deps` when no hub is.

Each agent keeps its servers in its own files (table `AGENT_FILES`, each row with the documentation it was found
in). Every file is the user's or a cloned project's, so it is read as hostile input: capped in size, parse errors
and odd shapes become one warning naming the file, never a crash.

A dependency `<server>.<tool>` names the server as the agent's config names it (that key is also how the agent
names the tool to the model, e.g. Claude Code's `mcp__<server>__<tool>`), so:

- available: a server of that name offers the tool (its tool list was asked for, see below);
- missing: a server of that name was asked and does not offer it, or the config filters the tool out
  (`excludeTools` / `disabled_tools`, or an allow-list without it) -- the only answer that refuses an install;
- unknown: no server of that name in the files read (agents also load servers from plugins, extensions, managed
  settings and command-line flags, which we cannot see), or one that was not asked (a remote server, a local one
  without `--probe-servers`, or one that failed to answer). Unknown installs with a warning.

Asking a local (stdio) server for its tools starts the command the agent would start. That runs code, so it is
never done by default: `--probe-servers` asks every local server in the files read for this command (the user is
standing in the project and asks for it), the config key `mcp.probe_servers: true` asks only the servers of the
user's own files in the home folder (never the commands of a project's files, which come with a clone -- the
reason the agents themselves ask before starting them). See site/pages/targets.md.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_CONFIG_BYTES = 8 * 1024 * 1024  # ~/.claude.json keeps per-project history: a few MiB is normal, 8 is generous
MAX_SERVERS = 256  # servers read per file; more is not a configuration, it is an attack
MAX_TOOLS = 10_000  # tool names kept per server
MAX_PAGES = 100  # tools/list pages followed per server
PROBE_TIMEOUT_MS = 30_000  # `mcp.probe_timeout` (client/config_keys.py): a first `npx -y ...` downloads its package before it answers


@dataclass(frozen=True)
class AgentFile:
    """One file an agent reads its MCP servers from."""

    agent: str  # key of AGENTS
    scope: str  # "project" (relative to the project root) or "user" (relative to the home folder)
    path: str
    fmt: str  # "json" | "jsonc" (comments and trailing commas, as VS Code and Gemini CLI accept) | "toml"
    key: tuple[str, ...]  # where the server map is; "{project}" is the project's absolute path
    source: str  # where the file and key are documented (checked 2026-11)
    expand: str = ""  # the agent's variable syntax in command, args and env (client/agent_vars.py STYLES)


AGENTS = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI", "vscode": "VS Code (Copilot)",
          "cursor": "Cursor", "windsurf": "Windsurf"}

AGENT_FILES: tuple[AgentFile, ...] = (
    # Claude Code's precedence: local scope, then project, then user (first one of a name wins here too).
    AgentFile("claude-code", "user", ".claude.json", "json", ("projects", "{project}", "mcpServers"),
              "https://code.claude.com/docs/en/mcp (local scope: ~/.claude.json under the project's path)"),
    AgentFile("claude-code", "project", ".mcp.json", "json", ("mcpServers",),
              "https://code.claude.com/docs/en/mcp (project scope: .mcp.json at the project root)", "claude"),
    AgentFile("claude-code", "user", ".claude.json", "json", ("mcpServers",),
              "https://code.claude.com/docs/en/mcp (user scope: ~/.claude.json mcpServers)"),
    AgentFile("codex", "project", ".codex/config.toml", "toml", ("mcp_servers",),
              "https://developers.openai.com/codex/mcp ([mcp_servers.<name>]; project file in trusted projects)"),
    AgentFile("codex", "user", ".codex/config.toml", "toml", ("mcp_servers",),
              "https://developers.openai.com/codex/mcp (~/.codex/config.toml, or $CODEX_HOME/config.toml)"),
    AgentFile("gemini", "project", ".gemini/settings.json", "jsonc", ("mcpServers",),
              "https://geminicli.com/docs/tools/mcp-server/ and https://geminicli.com/docs/cli/configuration"),
    AgentFile("gemini", "user", ".gemini/settings.json", "jsonc", ("mcpServers",),
              "https://geminicli.com/docs/tools/mcp-server/ (~/.gemini/settings.json)"),
    AgentFile("vscode", "project", ".vscode/mcp.json", "jsonc", ("servers",),
              "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration (workspace .vscode/mcp.json)"),
    AgentFile("vscode", "user", ".config/Code/User/mcp.json", "jsonc", ("servers",),
              "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration (user profile mcp.json, Linux)"),
    # Cursor: the project's file wins over the global one. JSON, read leniently as the VS Code it is built on.
    AgentFile("cursor", "project", ".cursor/mcp.json", "jsonc", ("mcpServers",),
              "https://cursor.com/docs/context/mcp (project: .cursor/mcp.json)", "cursor"),
    AgentFile("cursor", "user", ".cursor/mcp.json", "jsonc", ("mcpServers",),
              "https://cursor.com/docs/context/mcp (global: ~/.cursor/mcp.json)", "cursor"),
    AgentFile("windsurf", "user", ".codeium/windsurf/mcp_config.json", "jsonc", ("mcpServers",),
              "https://docs.windsurf.com/windsurf/cascade/mcp (~/.codeium/windsurf/mcp_config.json; no project file)",
              "windsurf"),
)

# Which agents' servers a skill installed for a target can call. The shared `.agents` folder is read by several.
TARGET_AGENTS = {"claude-code": ("claude-code",), "codex": ("codex",), "gemini": ("gemini",),
                 "copilot": ("vscode",), "cursor": ("cursor",), "windsurf": ("windsurf",),
                 "agents": ("codex", "gemini", "vscode", "cursor")}


@dataclass
class Server:
    name: str
    agent: str
    file: str  # the file it was read from, for messages
    scope: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    allow: list[str] | None = None  # only these tools reach the model
    deny: list[str] = field(default_factory=list)
    tools: list[str] | None = None  # asked and answered
    why_unlisted: str = ""
    unresolved: str = ""  # a variable in command, args or env that we cannot expand as the agent would

    def filtered_out(self, tool: str) -> bool:
        return tool in self.deny or (self.allow is not None and tool not in self.allow)


@dataclass
class AgentServers:
    servers: list[Server] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # files that exist and were read
    agents: list[str] = field(default_factory=list)


def agents_for(targets) -> list[str]:
    out: list[str] = []
    for target in targets:
        for agent in TARGET_AGENTS.get(target, ()):
            if agent not in out:
                out.append(agent)
    return out


def _file_path(entry: AgentFile, project_root: Path, home: Path) -> Path:
    if entry.agent == "codex" and entry.scope == "user" and os.environ.get("CODEX_HOME"):
        return Path(os.environ["CODEX_HOME"]).expanduser() / "config.toml"
    return (project_root if entry.scope == "project" else home) / entry.path


def _shown(path: Path, home: Path) -> str:
    text = str(path)
    return "~" + text[len(str(home)):] if text.startswith(str(home) + os.sep) else text


def load_file(path: Path, fmt: str) -> object:
    """Parse one config file, bounded; ValueError with a short reason for anything that is not a document."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(f"is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8-sig")
        if fmt == "toml":
            import tomllib

            return tomllib.loads(text)
        try:
            return json.loads(text)
        except ValueError:
            if fmt != "jsonc":
                raise
            return json.loads(strip_jsonc(text))
    except RecursionError:
        raise ValueError("is nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError, TOMLDecodeError are ValueErrors
        raise ValueError(f"is not valid {fmt.upper()} ({str(exc)[:120]})") from None


_JSONC_TOKEN = re.compile(r'(?P<keep>"(?:[^"\\]++|\\.)*+"?)|(?P<drop>//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/)?'
                          r'|,(?=(?:\s++|//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+\*/)*+[}\]]))|(?P<other>[^"/,]++|.)', re.DOTALL)


def strip_jsonc(text: str) -> str:
    """JSON with comments (`//`, `/* */`) and trailing commas, as plain JSON; strings are left alone."""
    return "".join(" " if m.lastgroup == "drop" else m.group() for m in _JSONC_TOKEN.finditer(text))


def _strings(value) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def parse_server(name: str, raw: object, entry: AgentFile, shown: str, *, project: Path | None = None,
                 home: Path | None = None) -> Server | None:
    """One server entry, or None when it is switched off or not a server, with the agent's variables in command,
    args and env expanded (client/agent_vars.py; `project` and `home` are what Cursor's names stand for).
    Never raises."""
    if not isinstance(raw, dict):
        return None
    if raw.get("enabled") is False or raw.get("disabled") is True:
        return None
    server = Server(name, entry.agent, shown, entry.scope)
    command, url = raw.get("command"), raw.get("url") or raw.get("httpUrl") or raw.get("serverUrl")
    if isinstance(command, str) and command.strip():
        server.command = command
        server.args = _strings(raw.get("args")) or []
        env = raw.get("env")
        server.env = {k: v for k, v in env.items() if isinstance(k, str) and isinstance(v, str)} \
            if isinstance(env, dict) else {}
        server.cwd = raw.get("cwd") if isinstance(raw.get("cwd"), str) else None
    elif isinstance(url, str):
        server.url = url
    server.allow = _strings(raw.get("includeTools")) or _strings(raw.get("enabled_tools"))
    server.deny = (_strings(raw.get("excludeTools")) or []) + (_strings(raw.get("disabled_tools")) or [])
    if entry.expand and server.command is not None:
        _expand(server, entry.expand, Path(project or "."), Path(home or "~").expanduser())
    return server


def _expand(server: Server, style: str, project: Path, home: Path) -> None:
    from skillyard.client.agent_vars import Unresolved, expand

    env = dict(os.environ)
    try:
        def one(text: str) -> str:
            return expand(text, style, env=env, project=project, home=home)

        command, args = one(server.command or ""), [one(a) for a in server.args]
        values = {key: one(value) for key, value in server.env.items()}
        cwd = one(server.cwd) if server.cwd is not None else None
    except Unresolved as exc:
        server.unresolved = str(exc)
        return
    server.command, server.args, server.env, server.cwd = command, args, values, cwd


def read_servers(agents: list[str], project_root: Path, home: Path) -> AgentServers:
    """Every MCP server the given agents have configured for this project, from the files of `AGENT_FILES`."""
    out = AgentServers(agents=list(agents))
    parsed: dict[Path, object] = {}
    seen: set[tuple[str, str]] = set()
    project_key = str(Path(project_root).absolute())
    for entry in AGENT_FILES:
        if entry.agent not in agents:
            continue
        path = _file_path(entry, Path(project_root), Path(home))
        shown = _shown(path, Path(home))
        if path not in parsed:
            if not path.is_file():
                parsed[path] = None
                continue
            try:
                parsed[path] = load_file(path, entry.fmt)
                out.files.append(shown)
            except ValueError as exc:
                parsed[path] = None
                out.warnings.append(f"{shown} {exc}; its MCP servers were not read")
                continue
        node = parsed[path]
        for part in entry.key:
            node = node.get(project_key if part == "{project}" else part) if isinstance(node, dict) else None
        if node is None:
            continue
        if not isinstance(node, dict):
            out.warnings.append(f"{shown}: `{'.'.join(entry.key)}` is not a table of servers; ignored")
            continue
        for index, (name, raw) in enumerate(node.items()):
            if index >= MAX_SERVERS:
                out.warnings.append(f"{shown}: more than {MAX_SERVERS} MCP servers; the rest were not read")
                break
            if (entry.agent, name) in seen:  # the narrower scope came first and wins, as in the agents
                continue
            server = parse_server(str(name), raw, entry, shown, project=Path(project_key), home=Path(home))
            if server is not None:
                seen.add((entry.agent, name))
                out.servers.append(server)
    return out


def probe_allowed(server: Server, *, flag: bool, config_flag: bool) -> bool:
    """`--probe-servers` asks every local server; `mcp.probe_servers` only those of the user's own files."""
    return server.command is not None and (flag or (config_flag and server.scope == "user"))


def list_stdio_tools(server: Server, timeout: float) -> list[str]:
    """Start the server's command, `initialize`, `tools/list` (paginated), stop it; OSError on any failure.
    The whole exchange, start to stop, is bounded by `timeout`."""
    try:
        import mcp
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.types import PaginatedRequestParams
    except ImportError:
        raise OSError("the MCP SDK is not installed (pip install 'skillyard[mcp]')") from None
    import asyncio

    if any("${input:" in s for s in [server.command or "", *server.args, *server.env.values()]):
        raise OSError("it asks VS Code for an input value")
    # The SDK passes a safe few variables (PATH, HOME, ...) plus the configured `env`, as the agents do.
    params = StdioServerParameters(command=server.command, args=list(server.args), env=dict(server.env) or None,
                                   cwd=server.cwd)

    async def ask() -> list[str]:
        names: list[str] = []
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as streams, \
                    mcp.ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                cursor = None
                for _ in range(MAX_PAGES):
                    result = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
                    names += [tool.name for tool in result.tools][:MAX_TOOLS - len(names)]
                    cursor = getattr(result, "next_cursor", None)
                    if not cursor or len(names) >= MAX_TOOLS:
                        break
        return sorted(set(names))

    async def bounded() -> list[str]:
        return await asyncio.wait_for(ask(), timeout)

    import logging

    sdk_log = logging.getLogger("mcp")  # a server that prints junk makes the SDK log a traceback per line
    level = sdk_log.level
    sdk_log.setLevel(logging.CRITICAL + 1)
    try:
        return asyncio.run(bounded())
    except TimeoutError:
        raise OSError(f"it did not answer within {timeout:g}s") from None
    except BaseException as exc:  # the SDK wraps failures in exception groups
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            exc = exc.exceptions[0]
        raise OSError(f"{type(exc).__name__}: {str(exc)[:200]}" if str(exc) else type(exc).__name__) from None
    finally:
        sdk_log.setLevel(level)


_ASKED: dict[tuple, list[str] | str] = {}  # one answer per command line and process: several skills, one start


def probe_timeout(config) -> float:
    """Seconds one local server may take, start to stop (`mcp.probe_timeout`, milliseconds)."""
    from skillyard.client.config_keys import KEYS, fix_for
    from skillyard.errors import SkillyardError

    raw = config.get("mcp.probe_timeout", PROBE_TIMEOUT_MS) if config is not None else PROBE_TIMEOUT_MS
    spec = KEYS["mcp.probe_timeout"]
    try:
        value = int(raw)
    except (TypeError, ValueError):
        value = 0
    if not spec.low <= value <= spec.high:
        raise SkillyardError(f"mcp.probe_timeout in {config.path} is {raw!r}, expected milliseconds "
                             f"({spec.low:g} to {spec.high:g})", fix_for("mcp.probe_timeout"))
    return value / 1000.0


def probe(servers: AgentServers, wanted: set[str], *, flag: bool, config_flag: bool, timeout: float) -> None:
    """Ask the local servers named in `wanted` for their tools (in place); say why the others were not asked."""
    for server in servers.servers:
        if server.name not in wanted:
            continue
        if server.command is None:
            server.why_unlisted = "a remote server (its tools are not asked for)" if server.url else "no command"
        elif server.unresolved:
            server.why_unlisted = f"not started: {server.unresolved}"
        elif not probe_allowed(server, flag=flag, config_flag=config_flag):
            server.why_unlisted = ("a local server, not started without --probe-servers"
                                   if server.scope == "project" or not config_flag else "not started")
        else:
            key = (server.command, tuple(server.args), tuple(sorted(server.env.items())), server.cwd)
            if key not in _ASKED:
                try:
                    _ASKED[key] = list_stdio_tools(server, timeout)
                except OSError as exc:
                    _ASKED[key] = f"could not be asked: {exc}"
            answer = _ASKED[key]
            if isinstance(answer, str):
                server.why_unlisted = answer
            else:
                server.tools = list(answer)


def splits(tool: str) -> list[tuple[str, str]]:
    """(server, tool) readings of `server.tool` (a server name may itself hold dots)."""
    return [(tool[:i], tool[i + 1:]) for i, ch in enumerate(tool) if ch == "." and 0 < i < len(tool) - 1]


def verdict(tool: str, servers: list[Server]) -> tuple[bool | None, str]:
    """(True available | False missing | None unknown, why) for one `server.tool` against the servers read."""
    named = [(s, name) for server_name, name in splits(tool) for s in servers if s.name == server_name]
    for server, name in named:
        if server.tools is not None and name in server.tools and not server.filtered_out(name):
            return True, f"offered by `{server.name}` ({AGENTS[server.agent]}, {server.file})"
    for server in servers:  # a server that lists the tool under its full dotted name
        if server.tools is not None and tool in server.tools and not server.filtered_out(tool):
            return True, f"offered by `{server.name}` ({AGENTS[server.agent]}, {server.file})"
    unknown = [s for s, name in named if s.tools is None and not s.filtered_out(name)]
    if unknown:
        s = unknown[0]
        return None, f"server `{s.name}` ({AGENTS[s.agent]}, {s.file}) is {s.why_unlisted or 'not asked'}"
    if named:
        s, name = named[0]
        how = "filters it out" if s.filtered_out(name) else "does not offer it"
        return False, f"server `{s.name}` ({AGENTS[s.agent]}, {s.file}) {how}"
    return None, "no MCP server named " + " or ".join(f"`{s}`" for s, _ in splits(tool)[:1] or [(tool, "")]) + \
        " is configured"
