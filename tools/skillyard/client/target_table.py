"""The agent runtimes skills are installed for, as data: where each reads skills, its tool names, how MCP
dependencies reach it, and the function names API targets give MCP tools.

Pure data and pure functions, so that lookups (client/targets.py), plugin targets (client/adapters.py) and the
generated files (client/emit.py) all read it without importing each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skillyard.errors import SkillyardError

CANONICAL = ".agents/skills"
EMIT_DIR = ".agents/emit"
COPY_MARKER = ".skillyard-placed"
GENERATED_MARKER = ".skillyard-generated"
# Temporary names beside a placement (a link or copy being made, an old copy on its way out): recognisable, so a
# later `place()` deletes what a killed run left behind without touching the user's own files.
TEMP_PREFIX = ".skill-placing-"
CAPABILITIES = ("read-file", "write-file", "http-request", "execute-code")
SCOPES = ("project", "user")


@dataclass(frozen=True)
class Target:
    name: str
    kind: str  # "dir" (a runtime reads a folder) or "api" (we generate provider files)
    title: str
    project: str | None = None  # folder under the project root that holds <name>/
    user: str | None = None  # folder under the home directory that holds <name>/
    capabilities: dict[str, str] = field(default_factory=dict)  # abstract capability -> that target's tool
    unsupported: str = ""
    files: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()  # every skill folder the runtime scans, as its docs or source list them
    source: str = ""  # where `reads` was found (checked 2026-11), or why it was not
    mcp: str = ""  # how a skill's `mcp_deps` reach this target's model
    plugin: object = None  # an adapter from a package's `skillyard.targets` entry point (see client/adapters.py)

    def folder(self, scope: str) -> str | None:
        return self.project if scope == "project" else self.user

    def supports(self, capability: str) -> bool:
        return capability in self.capabilities

    def to_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "title": self.title, "capabilities": dict(self.capabilities),
               "unsupported": self.unsupported, "mcp_deps": self.mcp,
               "origin": self.source if self.plugin is not None else "built-in"}
        if self.kind == "dir":
            out["project_dir"] = self.project
            out["user_dir"] = "~/" + self.user if self.user else None
            out["reads"] = list(self.reads)
            out["source"] = self.source
        else:
            # a plugin's files depend on the skill; a built-in API target adds mcp_deps.json when the skill has some
            out["files"] = list(self.files)
            out["project_dir"] = f"{EMIT_DIR}/{self.name}"
            out["user_dir"] = f"~/{EMIT_DIR}/{self.name}"
        return out


_CUSTOM = "custom capabilities (anything other than read-file, write-file, http-request, execute-code)"


_DIR_MCP = "served by the runtime's own MCP client: configure the servers there (`skill check-deps` checks a hub)"
# A pure API has no MCP client of its own, and a skill's `mcp_deps` names tools without their input schemas (only
# the server knows them, from `tools/list`), so no honest declaration can be generated: mcp_deps.json lists them
# with the function name the system prompt uses, and the application declares and executes them.
_API_MCP = ("app-provided: listed in mcp_deps.json (tool, function name, required); your program declares each "
            "from its MCP server's tools/list and runs the calls")


def _dir(name, title, project, user, tools, reads=(), source=""):
    keys = dict(zip(CAPABILITIES, tools, strict=True))
    return Target(name, "dir", title, project, user, keys, unsupported=_CUSTOM, reads=tuple(reads), source=source,
                  mcp=_DIR_MCP)


def _api(name, title, files, code_tool="code_interpreter (function tool)"):
    tools = {"read-file": "read_file (function tool)", "write-file": "write_file (function tool)",
             "http-request": "http_request (function tool)", "execute-code": code_tool}
    return Target(name, "api", title, capabilities=tools, files=files,
                  unsupported=_CUSTOM + "; your program must implement every generated function tool", mcp=_API_MCP)


# A runtime that already scans the shared `.agents/skills` of a scope gets no folder of its own there (project or
# user = CANONICAL): a second link would show it every skill twice. `reads` and `source` record what each runtime
# scans and where that was found, so the table can be re-checked when a runtime changes.
TARGETS: dict[str, Target] = {t.name: t for t in (
    _dir("claude-code", "Claude Code", ".claude/skills", ".claude/skills", ("Read", "Write", "WebFetch", "Bash"),
         (".claude/skills", "~/.claude/skills", "plugins"),
         "https://code.claude.com/docs/en/skills (does not read .agents/skills)"),
    _dir("agents", "Shared .agents convention (Codex, Cursor, Gemini CLI, Copilot, OpenCode, Amp, ...)",
         CANONICAL, CANONICAL, ("built-in file read", "built-in file edit", "built-in web fetch", "built-in shell"),
         (".agents/skills", "~/.agents/skills"), "https://agentskills.io (client adoption list)"),
    _dir("codex", "OpenAI Codex CLI", CANONICAL, CANONICAL, ("shell", "apply_patch", "shell (curl)", "shell"),
         (".agents/skills (cwd up to repo root)", "~/.agents/skills", "/etc/codex/skills"),
         "https://developers.openai.com/codex/skills"),
    _dir("cursor", "Cursor", CANONICAL, CANONICAL, ("read_file", "edit_file", "web_search / terminal",
                                                    "run_terminal_cmd"),
         (".cursor/skills", ".agents/skills", ".claude/skills", "~/.cursor/skills", "~/.agents/skills"),
         "https://cursor.com/docs/context/skills"),
    _dir("gemini", "Gemini CLI", CANONICAL, CANONICAL, ("read_file", "write_file", "web_fetch", "run_shell_command"),
         (".gemini/skills", ".agents/skills", "~/.gemini/skills", "~/.agents/skills"),
         "https://geminicli.com/docs/cli/using-agent-skills/ (discovery tiers)"),
    _dir("copilot", "GitHub Copilot", CANONICAL, CANONICAL, ("read", "edit", "fetch", "shell"),
         (".github/skills", ".claude/skills", ".agents/skills", "~/.copilot/skills", "~/.claude/skills",
          "~/.agents/skills"),
         "https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/create-skills"),
    _dir("opencode", "OpenCode", CANONICAL, CANONICAL, ("read", "write", "webfetch", "bash"),
         (".opencode/skills", ".claude/skills", ".agents/skills", "~/.config/opencode/skills", "~/.claude/skills",
          "~/.agents/skills"),
         "https://opencode.ai/docs/skills/ (discovery)"),
    _dir("goose", "Goose", CANONICAL, ".config/goose/skills", ("text_editor", "text_editor", "shell (curl)", "shell"),
         (".goose/skills", ".claude/skills", ".agents/skills", "~/.claude/skills", "~/.config/agents/skills",
          "~/.config/goose/skills"),
         "https://block.github.io/goose/docs/guides/context-engineering/using-skills (skill locations)"),
    _dir("windsurf", "Windsurf", ".windsurf/skills", ".codeium/windsurf/skills",
         ("view_file", "write_to_file", "read_url_content", "run_command"),
         (".windsurf/skills", "~/.codeium/windsurf/skills"), "not re-checked for issue 11 (kept as before)"),
    _dir("openclaw", "OpenClaw", "skills", ".openclaw/skills", ("read", "write", "web_fetch", "exec"),
         ("skills", "~/.openclaw/skills"), "not re-checked for issue 11 (kept as before)"),
    _api("openai", "OpenAI API (Chat Completions / Responses function tools)",
         ("tools.json", "tools.responses.json", "system.md")),
    _api("anthropic-api", "Anthropic Messages API (tools)", ("tools.json", "system.md")),
    # Gemini runs code itself: its built-in `code_execution` tool, not a function the program must implement.
    _api("gemini-api", "Gemini API (tools: function_declarations, code_execution)", ("tools.json", "system.md"),
         "code_execution (Gemini built-in tool)"),
)}


_FUNCTION_NAME_LIMIT = 64  # the shortest limit of the three providers (OpenAI and Gemini)


def mcp_function_name(tool: str) -> str:
    """A function name every provider accepts for MCP tool `server.tool`: `server__tool`, other characters `_`."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", tool.replace(".", "__"))
    if not re.match(r"[A-Za-z_]", name):
        name = "_" + name
    return name[:_FUNCTION_NAME_LIMIT]


def mcp_tools(deps) -> list[dict]:
    """A skill's `mcp_deps` as the tools an API application must provide (validated data; malformed entries are
    left to `skill validate`)."""
    out, seen = [], {}
    for dep in deps if isinstance(deps, list) else []:
        if not isinstance(dep, dict) or not isinstance(dep.get("tool"), str) or not dep["tool"].strip():
            continue
        name = mcp_function_name(dep["tool"])
        if name in seen and seen[name] != dep["tool"]:
            raise SkillyardError(f"mcp_deps tools {seen[name]!r} and {dep['tool']!r} both become function {name!r}",
                                 "Rename one of the tools in the skill's mcp_deps.")
        seen[name] = dep["tool"]
        out.append({"tool": dep["tool"], "function_name": name, "required": dep.get("required", True) is not False,
                    "description": str(dep.get("description") or "")})
    return out
