"""Precision helpers for the behaviour rules: what looks like an attack but is an honest skill's everyday code.

- A child process given a copy of the environment (`env = os.environ.copy(); env["X"] = "1";
  subprocess.run(..., env=env)`) keeps the variables on this machine: that is how every launcher passes settings
  (Anthropic's office skills start LibreOffice this way). Only the environment reaching a network call leaks it.
- A socket that is a Unix-domain socket, or that connects to this machine's loopback address, sends nothing off the
  machine: probing whether a local LibreOffice listener answers is not exfiltration.
- A security guide that names a dangerous flag in order to warn against it ("flag it as high risk") teaches; it
  does not switch the protection off.
"""

from __future__ import annotations

import re

from skillyard.format.scan.context import Context

# `name = os.environ.copy()` / `dict(os.environ)` / `{**os.environ}` / `Object.assign({}, process.env)`.
_ENV_ASSIGN = re.compile(r"^[ \t]*(?:const\s+|let\s+|var\s+)?([A-Za-z_]\w{0,60})\s*(?::[^=\n]{1,40})?=\s*"
                         r"(?:dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|\{\s*\*\*os\.environ|"
                         r"\{\s*\.\.\.process\.env\b|Object\.assign\(\s*\{\s*\}\s*,\s*process\.env\b)", re.M)
_LOCAL_HOSTS = re.compile(r"[\"'](?:127\.0\.0\.1|localhost|::1|0\.0\.0\.0)[\"']|AF_UNIX|\bunix:", re.I)
# Any destination a socket could reach beyond this machine: a URL or a host literal that is not loopback.
_REMOTE = re.compile(r"(?:https?|ftp|wss?)://(?!(?:127\.0\.0\.1|localhost|\[::1\])\b)|"
                     r"[\"'](?!127\.|0\.0\.0\.0|localhost)\d{1,3}(?:\.\d{1,3}){3}[\"']|"
                     r"(?:connect|create_connection)\w*\(\s*\(\s*(?![\"'](?:127\.0\.0\.1|localhost|::1)[\"'])[^)\s]",
                     re.I)
_SOCKET_SINKS = ("socket.socket(", "create_connection(", ".send(", ".sendall(")
_WARNED = re.compile(r"\b(?:flag (?:it|this|them|that)|high[- ]risk|is risky|unsafe|insecure|warn(?:s|ing)?\b|"
                     r"report (?:it|each|them|this)|never use|do not use|don't use|audit|red flag)", re.I)


def env_for_child(ctx: Context, index: int) -> bool:
    """Whether the environment copy at `index` only goes to a child process's `env=` (and is returned or changed in
    place), never into any other call."""
    if not ctx.code:
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    match = _ENV_ASSIGN.match(ctx.text, start)
    if not match or "env=" not in ctx.text.replace(" ", ""):
        return False
    name = re.escape(match.group(1))
    for use in re.finditer(rf"(?<![\w.]){name}(?!\w)", ctx.text):
        if use.start() == match.start(1):
            continue
        before = ctx.text[max(0, use.start() - 12):use.start()].replace(" ", "")
        after = ctx.text[use.end():use.end() + 3].lstrip(" ")
        if before.endswith(("env=", "env:", "return", "in", "if")) or after.startswith(("[", ".get(", ".update(",
                                                                                       ".pop(", ".setdefault(")):
            continue
        return False
    return True


def network_sink(ctx: Context, pattern: re.Pattern, start: int, end: int) -> re.Match | None:
    """The first match of `pattern` (rules.NETWORK_SINK) in text[start:end] that can leave the machine: in a script
    whose sockets are Unix-domain or loopback only and that names no remote destination, socket calls are local."""
    local: bool | None = None
    for sink in pattern.finditer(ctx.text, start, end):
        if ctx.code and sink.group().startswith(_SOCKET_SINKS):
            if local is None:
                local = bool(_LOCAL_HOSTS.search(ctx.text)) and not _REMOTE.search(ctx.text)
            if local:
                continue
        return sink
    return None


def warned_about(ctx: Context, index: int) -> bool:
    """A prose line that names a control in order to warn about it (a security audit's checklist)."""
    if ctx.code:
        return False
    start = ctx.text.rfind("\n", 0, index) + 1
    end = ctx.text.find("\n", index)
    end = len(ctx.text) if end < 0 else end
    following = ctx.text.find("\n", end + 1)
    line = ctx.text[start:following if following > 0 and ctx.text[end + 1:end + 3].startswith("  ") else end]
    return bool(_WARNED.search(line))
