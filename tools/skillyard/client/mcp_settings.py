"""`skill mcp add`: write the `skill mcp` server into an agent's MCP settings, touching nothing else.

The files are the ones `skill install` reads for MCP dependencies (client/agent_mcp.py AGENT_FILES), plus Claude
Desktop's, which only this command writes. They are the user's: a file that does not parse is refused, naming it,
and never overwritten. An edit changes only our one entry, as text:

- JSON and JSON with comments (VS Code, Cursor, Windsurf, Gemini CLI, Claude Desktop): the file is scanned with the
  position of every member, and the entry's value is replaced in place, or one member is inserted after the last
  one of the server map (created when missing) in the indentation found there. Comments, key order, spacing and
  every other entry stay byte for byte. The result is parsed again and must hold the same data plus our entry.
- TOML (Codex): our `[mcp_servers.NAME]` table (with its sub-tables) is replaced where it is, or appended; the
  rest of the file, comments included, is kept. An entry written some other way (inline) is refused, not guessed.

Writing is atomic (a temporary file, then rename), and a second run with the same entry changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from skillyard.client import agent_mcp
from skillyard.errors import SkillyardError

SERVER_NAME = "skillyard"
TARGETS = ("claude-desktop", "vscode", "cursor", "windsurf", "codex", "gemini")
TITLES = {"claude-desktop": "Claude Desktop", **agent_mcp.AGENTS}
WORKSPACE = "${workspaceFolder}"  # VS Code's and Cursor's variable for the open folder


@dataclass(frozen=True)
class Settings:
    """Where one agent keeps its MCP servers, and how an entry looks there."""

    target: str
    scope: str
    path: Path
    fmt: str  # json | jsonc | toml
    key: tuple[str, ...]


def claude_desktop_file(home: Path) -> Path:
    """Claude Desktop's claude_desktop_config.json (https://modelcontextprotocol.io/docs/develop/connect-local-servers):
    ~/Library/Application Support/Claude on macOS, %APPDATA%\\Claude on Windows, ~/.config/Claude on Linux."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "Claude" / "claude_desktop_config.json"
    return home / ".config" / "Claude" / "claude_desktop_config.json"


def settings_for(target: str, *, project: bool, project_root: Path, home: Path) -> Settings:
    """The settings file of `target` in the chosen scope; a scope the agent has no file for is refused."""
    if target not in TARGETS:
        raise SkillyardError(f"unknown target {target!r}", f"Give one of: {', '.join(TARGETS)}.", exit_code=2)
    scope = "project" if project else "user"
    if target == "claude-desktop":
        if project:
            raise SkillyardError("Claude Desktop has no project settings, only the user's "
                                 f"{claude_desktop_file(home)}", "Drop --project.", exit_code=2)
        return Settings(target, scope, claude_desktop_file(home), "json", ("mcpServers",))
    rows = [f for f in agent_mcp.AGENT_FILES if f.agent == target and f.scope == scope and "{project}" not in f.key]
    if not rows:
        raise SkillyardError(f"{TITLES[target]} has no {scope} MCP settings file",
                             "Drop --project." if project else "Add --project.", exit_code=2)
    row = rows[0]
    path = agent_mcp._file_path(row, project_root, home)  # the very path `skill install` reads (CODEX_HOME too)
    return Settings(target, scope, path, row.fmt, row.key)


def server_entry(settings: Settings, command: str, *, agent: str | None = None) -> dict:
    """The entry that starts `skill mcp` for this agent. In a project's file VS Code and Cursor get their workspace
    variable as --project; Codex and Gemini CLI start servers in the folder they run in, which `skill mcp` uses."""
    args = ["mcp"]
    if agent:
        args += ["--agent", agent]
    if settings.scope == "project" and settings.target in ("vscode", "cursor"):
        args += ["--project", WORKSPACE]
    entry: dict = {"command": command, "args": args}
    if settings.target == "vscode":
        entry = {"type": "stdio", **entry}
    return entry


@dataclass
class Change:
    status: str  # added | updated | unchanged
    before: str | None  # the file's text, None when it did not exist
    after: str


def plan_change(settings: Settings, name: str, entry: dict) -> Change:
    """The file's new text with `entry` as server `name`; SkillyardError naming the file when it cannot be edited."""
    path = settings.path
    before = _read(path)
    if settings.fmt == "toml":
        after, status = _toml_edit(before or "", name, entry, path)
    else:
        after, status = _json_edit(before, settings, name, entry)
    return Change(status, before, after)


def write(path: Path, text: str) -> None:
    """Atomically, through a symlink to its target, keeping the file's mode."""
    real = path.resolve() if path.is_symlink() else path
    real.parent.mkdir(parents=True, exist_ok=True)
    tmp = real.with_name(f".{real.name}.skill-{os.getpid()}.tmp")
    mode = real.stat().st_mode & 0o777 if real.exists() else None
    with open(tmp, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, real)


def _read(path: Path) -> str | None:
    if not path.exists():
        return None
    if not path.is_file():
        raise SkillyardError(f"{path} is not a file", "Move it away, or pick another --target.")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SkillyardError(f"{path} cannot be read ({exc.strerror or exc})", "Check its permissions.") from None
    if len(data) > agent_mcp.MAX_CONFIG_BYTES:
        raise SkillyardError(f"{path} is larger than {agent_mcp.MAX_CONFIG_BYTES // 2**20} MiB; it was not changed",
                             "Add the server by hand (see the MCP page of the docs).")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillyardError(f"{path} is not UTF-8 text; it was not changed", "Fix the file by hand.") from None


def _malformed(path: Path, why: str) -> SkillyardError:
    return SkillyardError(f"{path} {why}; it was left as it is", "Fix the file by hand (or move it away) and run "
                          "`skill mcp add` again.")


# ---- JSON / JSONC: edit the text where the member is ---------------------------------------------------------------

_WS = re.compile(r"(?:\s++|//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+\*/)*+")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]++|\\.)*+"')
_SCALAR = re.compile(r"-?\d[\d.eE+-]*+|true|false|null")


class _Node:
    """A parsed value's span; objects also keep their members (key, key start, value node) and brace positions."""

    def __init__(self, start: int, end: int, members: list | None = None):
        self.start, self.end, self.members = start, end, members


class _Scan:
    def __init__(self, text: str, path: Path, comments: bool):
        self.text, self.path, self.comments, self.depth = text, path, comments, 0

    def ws(self, at: int) -> int:
        if self.comments:
            return _WS.match(self.text, at).end()
        while at < len(self.text) and self.text[at] in " \t\r\n":
            at += 1
        return at

    def fail(self, at: int, what: str) -> SkillyardError:
        line = self.text.count("\n", 0, at) + 1
        return _malformed(self.path, f"is not valid JSON{' with comments' if self.comments else ''} (line {line}: "
                          f"{what})")

    def value(self, at: int) -> _Node:
        at = self.ws(at)
        char = self.text[at:at + 1]
        if char == "{":
            return self.obj(at)
        if char == "[":
            return self.arr(at)
        match = (_STRING if char == '"' else _SCALAR).match(self.text, at)
        if not match:
            raise self.fail(at, "a value was expected")
        return _Node(at, match.end())

    def _nested(self, at: int):
        self.depth += 1
        if self.depth > 200:
            raise self.fail(at, "nested too deeply")

    def obj(self, start: int) -> _Node:
        self._nested(start)
        members, at = [], self.ws(start + 1)
        while self.text[at:at + 1] != "}":
            key = _STRING.match(self.text, at)
            if not key:
                raise self.fail(at, "a quoted key or `}` was expected")
            at = self.ws(key.end())
            if self.text[at:at + 1] != ":":
                raise self.fail(at, "`:` was expected")
            node = self.value(at + 1)
            members.append((json.loads(key.group()), key.start(), node))
            at = self.ws(node.end)
            if self.text[at:at + 1] == ",":
                at = self.ws(at + 1)
                if self.text[at:at + 1] == "}" and not self.comments:
                    raise self.fail(at, "a trailing comma")
            elif self.text[at:at + 1] != "}":
                raise self.fail(at, "`,` or `}` was expected")
        self.depth -= 1
        return _Node(start, at + 1, members)

    def arr(self, start: int) -> _Node:
        self._nested(start)
        at = self.ws(start + 1)
        while self.text[at:at + 1] != "]":
            at = self.ws(self.value(at).end)
            if self.text[at:at + 1] == ",":
                at = self.ws(at + 1)
            elif self.text[at:at + 1] != "]":
                raise self.fail(at, "`,` or `]` was expected")
        self.depth -= 1
        return _Node(start, at + 1)


def _indent_unit(text: str) -> str:
    found = re.search(r"\n([ \t]+)\S", text)
    return found.group(1) if found else "  "


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    prefix = text[start:at]
    return prefix if not prefix.strip() else re.match(r"[ \t]*", prefix).group()


def _dump(value, unit: str, indent: str) -> str:
    lines = json.dumps(value, indent="\t" if "\t" in unit else len(unit), ensure_ascii=False).split("\n")
    return "\n".join([lines[0]] + [indent + line for line in lines[1:]])


def _line_end(text: str, at: int) -> int:
    """Where a new member goes after position `at`: past a `// comment` ending that line, so it stays with its
    member; right at `at` when anything else follows on the line."""
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    return end if re.fullmatch(r"[ \t\r]*(?://[^\n]*)?", text[at:end]) else at


def _insert(text: str, obj: _Node, key: str, value, unit: str, scan: _Scan) -> str:
    """`text` with member key: value added as the last member of `obj`."""
    if obj.members and "\n" not in text[obj.start:obj.end]:  # a one-line object stays on one line
        last = obj.members[-1][2]
        member = json.dumps(key, ensure_ascii=False) + ": " + json.dumps(value, ensure_ascii=False)
        return text[:last.end] + ", " + member + text[last.end:]
    if obj.members:
        _, key_at, last = obj.members[-1]
        indent = _line_indent(text, key_at)
        member = json.dumps(key, ensure_ascii=False) + ": " + _dump(value, unit, indent)
        after = scan.ws(last.end)
        if text[after:after + 1] == ",":  # a trailing comma (JSONC): ours goes after it, and gets one too
            at = _line_end(text, after + 1)
            return text[:at] + "\n" + indent + member + "," + text[at:]
        at = _line_end(text, last.end)
        return text[:last.end] + "," + text[last.end:at] + "\n" + indent + member + text[at:]
    outer = _line_indent(text, obj.start)
    indent = outer + unit
    member = json.dumps(key, ensure_ascii=False) + ": " + _dump(value, unit, indent)
    return text[:obj.start] + "{\n" + indent + member + "\n" + outer + "}" + text[obj.end:]


def _json_edit(before: str | None, settings: Settings, name: str, entry: dict) -> tuple[str, str]:
    comments = settings.fmt == "jsonc"
    text = before if before is not None and before.strip() else "{}\n"
    body = text[1:] if text.startswith("\ufeff") else text
    bom = text[:len(text) - len(body)]
    scan = _Scan(body, settings.path, comments)
    root = scan.value(0)
    if scan.ws(root.end) != len(body):
        raise scan.fail(scan.ws(root.end), "text after the document")
    if root.members is None:
        raise _malformed(settings.path, "is not a JSON object at the top")
    try:
        old = agent_mcp.load_file(settings.path, settings.fmt) if before is not None and before.strip() else {}
    except ValueError as exc:
        raise _malformed(settings.path, str(exc)) from None
    unit = _indent_unit(body)
    node, wanted = root, dict(entry)
    for depth, part in enumerate(settings.key):
        found = next((m for m in reversed(node.members) if m[0] == part), None)
        if found is None:  # the rest of the path, and our entry in it, as one new member
            value: dict = {name: wanted}
            for outer in reversed(settings.key[depth + 1:]):
                value = {outer: value}
            body, status = _insert(body, node, part, value, unit, scan), "added"
            break
        if found[2].members is None:
            raise _malformed(settings.path, f"has `{'.'.join(settings.key[:depth + 1])}` that is not an object")
        node = found[2]
    else:
        current = next((m for m in reversed(node.members) if m[0] == name), None)
        if current is None:
            body, status = _insert(body, node, name, wanted, unit, scan), "added"
        elif json.loads(_strip(body[current[2].start:current[2].end], comments)) == wanted:
            return text, "unchanged"
        else:
            indent = _line_indent(body, current[1])
            body = body[:current[2].start] + _dump(wanted, unit, indent) + body[current[2].end:]
            status = "updated"
    after = bom + body
    _check_json(after, settings, old, name, entry)
    return after, status


def _strip(text: str, comments: bool) -> str:
    return agent_mcp.strip_jsonc(text) if comments else text


def _check_json(after: str, settings: Settings, old: object, name: str, entry: dict) -> None:
    """The edited text must parse to the old data plus our entry: a safety net under the textual edit."""
    data = json.loads(_strip(after.lstrip("\ufeff"), settings.fmt == "jsonc"))
    expected = json.loads(json.dumps(old))
    node = expected
    for part in settings.key:
        node = node.setdefault(part, {})
    node[name] = entry
    if data != expected:
        raise SkillyardError(f"editing {settings.path} would change more than the `{name}` entry; it was left as "
                             "it is", "Add the server by hand (see the MCP page of the docs) and report this.")


# ---- TOML (Codex): replace or append our table -----------------------------------------------------------------

_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(?:#[^\n]*)?$", re.MULTILINE)


def _header_parts(raw: str) -> list[str]:
    parts, at = [], 0
    pattern = re.compile(r'[ \t]*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))[ \t]*(?:\.|$)')
    while at < len(raw):
        match = pattern.match(raw, at)
        if not match or match.end() == at:
            return []
        value = match.group(1)
        parts.append(json.loads(f'"{value}"') if value is not None else match.group(2) or match.group(3))
        at = match.end()
    return parts


def _toml_value(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string


def _toml_edit(before: str, name: str, entry: dict, path: Path) -> tuple[str, str]:
    import tomllib

    try:
        data = tomllib.loads(before)
    except tomllib.TOMLDecodeError as exc:
        raise _malformed(path, f"is not valid TOML ({str(exc)[:120]})") from None
    key = _toml_key(name)
    table = f"[mcp_servers.{key}]\n" + "".join(f"{k} = {_toml_value(v)}\n" for k, v in entry.items())
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise _malformed(path, "has `mcp_servers` that is not a table")
    headers = [(m, _header_parts(m.group(1))) for m in _HEADER.finditer(before)]
    ours = [i for i, (_, parts) in enumerate(headers) if parts[:2] == ["mcp_servers", name]]
    if name in servers and not any(len(headers[i][1]) == 2 for i in ours):
        raise _malformed(path, f"defines mcp_servers.{key} in a form this command does not rewrite (not as a "
                         f"[mcp_servers.{key}] table)")
    if not ours:
        glue = "" if not before or before.endswith("\n\n") else "\n" if before.endswith("\n") else "\n\n"
        return _toml_checked(before + glue + table, data, name, entry, path), "added"
    if servers.get(name) == entry:
        return before, "unchanged"
    start = headers[ours[0]][0].start()
    following = [m.start() for m, parts in headers[ours[-1] + 1:] if parts[:2] != ["mcp_servers", name]]
    end = following[0] if following else len(before)
    while True:  # comments and blank lines right above the next table belong to it
        line_start = before.rfind("\n", start, max(start, end - 1)) + 1
        if line_start <= start or before[line_start:end].strip()[:1] not in ("#", ""):
            break
        end = line_start
    kept = before[start:end]
    tail = kept[len(kept.rstrip()):]  # the blank lines before the next table stay
    after = before[:start] + table.rstrip("\n") + (tail if "\n" in tail else "\n") + before[end:]
    return _toml_checked(after, data, name, entry, path), "updated"


def _toml_checked(after: str, data: dict, name: str, entry: dict, path: Path) -> str:
    """The edited text must parse to the old data with only our table new or changed."""
    import tomllib

    expected = dict(data, mcp_servers=dict(data.get("mcp_servers", {}), **{name: entry}))
    try:
        same = tomllib.loads(after) == expected
    except tomllib.TOMLDecodeError:
        same = False
    if not same:
        raise _malformed(path, f"has an mcp_servers.{_toml_key(name)} table this command cannot replace cleanly")
    return after


def _toml_key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)
