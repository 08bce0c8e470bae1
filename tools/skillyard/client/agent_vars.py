"""The variables an agent expands in its MCP settings, expanded the same way before we start one of its servers.

Each agent documents its own syntax (STYLES, with where). A reference we cannot resolve as the agent would (a
variable that is not set and has no default, a file's contents, anything else we do not know) raises Unresolved:
the server is then not started, with that reason. Starting a command that still holds a literal `${X}` would ask a
different program than the one the agent starts. The environment is ours, which is the agent's when it was started
from the same shell; one pass, no nesting (the agents do not nest either), so the result is bounded by the input.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

STYLES = {
    "claude": "https://code.claude.com/docs/en/mcp (\"Environment variable expansion in .mcp.json\": ${VAR} and "
              "${VAR:-default} in command, args, env, url and headers)",
    "cursor": "https://cursor.com/docs/context/mcp (config interpolation: ${env:NAME}, ${userHome}, "
              "${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/} in command, args, env, url "
              "and headers)",
    "windsurf": "https://docs.windsurf.com/windsurf/cascade/mcp (config interpolation: ${env:VAR_NAME} and "
                "${file:/path} in command, args, env, serverUrl, url and headers)",
}

_CLAUDE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_BRACED = re.compile(r"\$\{([^{}]*)\}")


class Unresolved(ValueError):
    """A reference the agent would resolve from something we do not read, or a variable that is not set."""


def expand(text: str, style: str, *, env: dict[str, str], project: Path, home: Path) -> str:
    """`text` with the references of `style` replaced ("" style: as it is); Unresolved names the first that is not."""
    if style == "claude":
        return _CLAUDE.sub(lambda m: _claude(m, env), text)
    if style in ("cursor", "windsurf"):
        fixed = {"userHome": str(home), "workspaceFolder": str(project), "workspaceFolderBasename": Path(project).name,
                 "pathSeparator": os.sep, "/": os.sep} if style == "cursor" else {}
        return _BRACED.sub(lambda m: _editor(m.group(1), env, fixed), text)
    return text


def _claude(match: re.Match, env: dict[str, str]) -> str:
    name, default = match.group(1), match.group(2)
    if name in env:
        return env[name]
    if default is not None:
        return default
    raise Unresolved(f"${{{name}}} is not set")


def _editor(name: str, env: dict[str, str], fixed: dict[str, str]) -> str:
    if name.startswith("env:"):
        if name[4:] in env:
            return env[name[4:]]
        raise Unresolved(f"${{{name}}} is not set")
    if name in fixed:
        return fixed[name]
    what = "a file's contents" if name.startswith("file:") else "a value skillyard does not resolve"
    raise Unresolved(f"${{{name[:60]}}} is {what}")
