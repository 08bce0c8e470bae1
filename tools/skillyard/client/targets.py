"""Where each agent runtime reads skills, and how one installed copy reaches all of them.

The targets are a data table, not code per runtime. Every scope (project or user) keeps ONE canonical copy of a
skill at `<scope root>/.agents/skills/<name>/` (the shared convention that Codex, Cursor, Gemini CLI, Copilot,
OpenCode, Amp and others read). A target whose folder differs gets a relative symlink to that copy, or a full copy
when links are impossible or `copy=True`. API targets (openai, anthropic-api, gemini-api) have no folder a runtime
reads; for them `place()` generates the provider files into `<scope root>/.agents/emit/<target>/<name>/`, outside
the skill folder so the installed files still match the lockfile byte for byte.

Installed Python packages can add API-like targets (entry point group `skillyard.targets`, see client/adapters.py):
`get()` and `all_targets()` include them; the built-in table is never replaced by one.

A copy is marked with a `.skillyard-placed` file naming the canonical folder, so a later `place()` may replace it
and `remove()` deletes only folders it made; a folder someone else put there is never overwritten.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.fsutil import write_atomic

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


def all_targets() -> dict[str, Target]:
    """The built-in table plus the targets installed packages contribute (entry point group `skillyard.targets`)."""
    from skillyard.client import adapters

    return {**TARGETS, **adapters.discover().targets}


def get(name: str) -> Target:
    if name in TARGETS:
        return TARGETS[name]
    from skillyard.client import adapters

    found = adapters.discover()
    if name in found.targets:
        return found.targets[name]
    broken = "".join(f" {p}" for p in found.problems if f"'{name}'" in p)
    raise SkillyardError(f"unknown target {name!r}.{broken}",
                         f"Choose one of: {', '.join(all_targets())} (see `skill adapter list`).")


def unsupported_capabilities(target: str, capabilities) -> list[str]:
    t = get(target)
    return [c for c in (capabilities or []) if not t.supports(c)]


def scope_root(scope: str, *, project_root: Path, home: Path) -> Path:
    if scope not in SCOPES:
        raise SkillyardError(f"unknown scope {scope!r}", "Use scope 'project' or 'user'.")
    return Path(project_root if scope == "project" else home)


def canonical_path(name: str, *, scope: str, project_root: Path, home: Path) -> Path:
    return scope_root(scope, project_root=project_root, home=home) / CANONICAL / name


def target_path(name: str, target: str, *, scope: str, project_root: Path, home: Path) -> Path:
    """Where `target` reads (dir targets) or receives generated files (api targets) for skill `name`."""
    t = get(target)
    root = scope_root(scope, project_root=project_root, home=home)
    if t.kind == "api":
        return root / EMIT_DIR / t.name / name
    return root / t.folder(scope) / name


# --------------------------------------------------------------------------------------------------- placing


def place(canonical_dir: Path, name: str, target: str, *, scope: str, project_root: Path, home: Path,
          copy: bool = False) -> dict:
    """Make the canonical copy visible to `target`; returns the entry `remove()` needs to undo exactly this."""
    t = get(target)
    canonical_dir = Path(canonical_dir)
    path = target_path(name, target, scope=scope, project_root=project_root, home=home)
    entry = {"target": t.name, "scope": scope, "path": str(path)}
    if t.kind == "api":
        before = _generated_names(path) if path.is_dir() and not os.path.islink(path) else []
        files = emit(canonical_dir, target, path)
        current = {str(f) for f in files}
        # a file the previous version generated and this one does not (mcp_deps.json after the deps went away)
        _remove_files(path, [name for name in before if name not in current])
        # The lock records no file names (it may be edited by hand); this list, inside the folder, lets `remove()`
        # find what varies per skill (mcp_deps.json, a plugin's files) and never anything else.
        names = sorted(os.path.relpath(f, path).replace(os.sep, "/") for f in files)
        write_atomic(path / GENERATED_MARKER, json.dumps({"files": names}) + "\n")
        return {**entry, "mode": "generated", "files": [str(f) for f in files]}
    if _same(path, canonical_dir):
        return {**entry, "mode": "canonical"}
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep_temps(path)
    _check_replaceable(path, canonical_dir)
    if not copy:
        try:
            _link(canonical_dir, path)
            return {**entry, "mode": "link"}
        except OSError:
            pass  # no symlinks here (Windows without developer mode, some network shares): copy instead
    _copy_tree(canonical_dir, path)
    return {**entry, "mode": "copy"}


def _temp(path: Path, kind: str) -> Path:
    return path.parent / f"{TEMP_PREFIX}{path.name}-{kind}-{os.getpid()}-{os.urandom(4).hex()}"


def _sweep_temps(path: Path) -> None:
    """Delete what an interrupted placement of this skill left beside it (run under the store lock)."""
    for leftover in path.parent.glob(f"{TEMP_PREFIX}{path.name}-*"):
        if os.path.islink(leftover) or not leftover.is_dir():
            leftover.unlink(missing_ok=True)
        else:
            shutil.rmtree(leftover, ignore_errors=True)


def _same(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def _check_replaceable(path: Path, canonical_dir: Path) -> None:
    if not os.path.lexists(path) or os.path.islink(path):
        return
    if path.is_dir() and (path / COPY_MARKER).is_file():
        return
    raise SkillyardError(f"{path} already exists and was not placed by `skill`",
                         "Move or delete it, or install for another --target.")


def _link(canonical_dir: Path, path: Path) -> None:
    relative = os.path.relpath(os.path.abspath(canonical_dir), os.path.abspath(path.parent))
    temp = _temp(path, "link")
    os.symlink(relative, temp, target_is_directory=True)
    try:
        if os.path.lexists(path) and not os.path.islink(path):
            _swap_out(path)
        os.replace(temp, path)
    except OSError:
        os.unlink(temp)
        raise


def _copy_tree(canonical_dir: Path, path: Path) -> None:
    temp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{path.name}-copy-", dir=path.parent))
    try:
        shutil.copytree(canonical_dir, temp / "tree", symlinks=True,
                        ignore=shutil.ignore_patterns(COPY_MARKER))
        (temp / "tree" / COPY_MARKER).write_text(json.dumps({"canonical": str(canonical_dir)}) + "\n",
                                                 encoding="utf-8")
        if os.path.islink(path):
            os.unlink(path)
        elif os.path.lexists(path):
            _swap_out(path)
        os.rename(temp / "tree", path)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _swap_out(path: Path) -> None:
    """Move an old copy aside and delete it, so the new one appears in one rename."""
    old = _temp(path, "old")
    os.rename(path, old)
    shutil.rmtree(old, ignore_errors=True)


def _generated_names(path: Path) -> list[str]:
    """The files `place()` listed in a generated folder; names failing the shared path rule are ignored."""
    from skillyard.format.paths import path_problem

    marker = path / GENERATED_MARKER
    try:
        if os.path.islink(marker) or marker.stat().st_size > 1024 * 1024:
            return []
        names = json.loads(marker.read_text(encoding="utf-8")).get("files", [])
    except (OSError, ValueError, AttributeError, RecursionError):  # the marker may come with a project's checkout
        return []
    return [str(path / n) for n in names if isinstance(n, str) and path_problem(n) is None][:1000]


def _remove_files(path: Path, names) -> None:
    """Delete regular files inside `path` (never through a link), then the sub-folders they leave empty."""
    real = os.path.realpath(path)
    folders = set()
    for name in names:
        file = Path(name)
        if (os.path.commonpath([real, os.path.realpath(file.parent)]) == real and file.parent != file
                and os.path.lexists(file) and not os.path.islink(file) and file.is_file()):
            file.unlink()
            folders.update(p for p in file.parents if p != path and path in p.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not os.path.islink(folder) and not any(folder.iterdir()):
            folder.rmdir()


def remove(entry: dict) -> None:
    """Undo one `place()` entry: never the canonical folder, never what a link points to."""
    mode = entry.get("mode")
    path = Path(entry["path"])
    if mode == "canonical":
        return
    if mode == "link":
        if os.path.islink(path):
            os.unlink(path)
        return
    if mode == "copy":
        if not os.path.islink(path) and path.is_dir() and (path / COPY_MARKER).is_file():
            shutil.rmtree(path)
        return
    if mode == "generated":
        if os.path.islink(path) or not path.is_dir():
            return
        _remove_files(path, [*entry.get("files", []), *_generated_names(path), str(path / GENERATED_MARKER)])
        if not any(path.iterdir()):
            path.rmdir()
        return
    raise ValueError(f"unknown placement mode {mode!r}")


# --------------------------------------------------------------------------------------------------- emitting


def emit(skill_folder: Path, target: str, out_dir: Path, *, cli_inputs: dict | None = None,
         configured: dict | None = None) -> list[Path]:
    """Write `target`'s files for one skill into `out_dir` without installing it; returns the files written.

    Directory targets get a copy of the skill at `out_dir/<name>/`; API targets get their tool definitions and a
    `system.md` directly in `out_dir`. `{{inputs.x}}` placeholders are rendered as an install renders them
    (`--input` > per-skill config > default), so what other tools receive is what `skill install` would write.
    """
    from skillyard.format import Policy, load_skill

    t = get(target)
    skill_folder = Path(skill_folder)
    package = load_skill(skill_folder, Policy(strict=False))
    if not package.valid and not package.data.get("name"):
        first = package.errors[0]
        raise SkillyardError(f"{skill_folder}: {first.message}", first.fix)
    texts = _text_files(skill_folder, [f.path for f in package.files])
    values = emit_values(package, texts, cli_inputs or {}, configured or {})
    out_dir = Path(out_dir)
    if t.kind == "dir":
        dest = out_dir / package.name
        if os.path.lexists(dest):
            raise SkillyardError(f"{dest} already exists", "Choose an empty --out folder or delete it first.")
        out_dir.mkdir(parents=True, exist_ok=True)
        _copy_plain(skill_folder, dest, [f.path for f in package.files], texts, values)
        return sorted(p for p in dest.rglob("*") if p.is_file())
    if t.plugin is not None:
        from skillyard.client import adapters

        documents = adapters.run_emit(t, package, texts, values, skill_folder)
    else:
        documents = generate(package, t.name, values)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in documents.items():
        target_file = out_dir / file_name
        target_file.parent.mkdir(parents=True, exist_ok=True)
        written.append(write_atomic(target_file, text))
    return written


def _text_files(folder: Path, rel_paths: list[str]) -> dict[str, str]:
    """{path: text} of the skill's UTF-8 files (the ones placeholders can be rendered in); binary files are left out."""
    out = {}
    for rel in rel_paths:
        try:
            out[rel] = (folder / rel).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
    return out


def emit_values(package, texts: dict[str, str], cli_inputs: dict, configured: dict) -> dict:
    """The input values to render: only inputs some file actually references (an installed copy, already rendered,
    then needs none), plus any given with --input so a misspelt name is still refused."""
    from skillyard.client.inputs import PLACEHOLDER, resolve

    declared = [d for d in (package.data.get("inputs") or []) if isinstance(d, dict) and isinstance(d.get("name"), str)]
    if set(cli_inputs) - {d["name"] for d in declared}:
        resolve(declared, cli=cli_inputs, skill=package.name)  # raises: names the unknown input and lists the known
    used = {m.group(1) for text in [package.body, *texts.values()] for m in PLACEHOLDER.finditer(text)}
    wanted = [d for d in declared if d["name"] in used or d["name"] in cli_inputs]
    return resolve(wanted, cli=cli_inputs, configured=configured, skill=package.name)


def _copy_plain(source: Path, dest: Path, rel_paths: list[str], texts: dict[str, str] | None = None,
                values: dict | None = None) -> None:
    from skillyard.format.inputs import RenderTooLarge, render

    texts, values = texts or {}, values or {}
    temp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        for rel in rel_paths:
            target = temp / "tree" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if values and rel in texts:
                try:
                    rendered = render(texts[rel], values)
                except RenderTooLarge as exc:
                    raise SkillyardError(f"{source / rel}: {exc.message}; nothing was written", exc.fix) from None
                target.write_bytes(rendered.encode("utf-8"))
                shutil.copymode(os.path.realpath(source / rel), target)
            else:
                shutil.copy2(os.path.realpath(source / rel), target)
        (temp / "tree").mkdir(exist_ok=True)
        os.rename(temp / "tree", dest)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def generate(package, target: str, values: dict | None = None) -> dict[str, str]:
    """The generated files of an API target, as {file name: text}, inputs rendered with `values`. Pure given a
    loaded SkillPackage."""
    from skillyard.runtime import tooldefs

    capabilities = [c for c in (package.data.get("capabilities") or []) if isinstance(c, str)]
    missing = unsupported_capabilities(target, capabilities)
    if missing:
        raise SkillyardError(f"target {target} cannot serve capability {', '.join(missing)} of {package.name}",
                             "Remove the capability from the skill or choose another --target.")
    if target not in ("openai", "anthropic-api", "gemini-api"):
        raise SkillyardError(f"target {target} is a folder target, not a generated one", "Use an API target.")
    # Gemini executes code with its built-in tool; the others get a function the program implements.
    builtin_code = target == "gemini-api" and "execute-code" in capabilities
    specs = [tooldefs.CAPABILITY_SPECS[c] for c in CAPABILITIES
             if c in capabilities and not (builtin_code and c == "execute-code")]
    specs.append(tooldefs.read_skill_file_spec([package.name]))
    deps = mcp_tools(package.data.get("mcp_deps"))
    names = [s.name for s in specs] + (["code_execution"] if builtin_code else [])
    out = {"system.md": system_prompt(package, names, values or {}, deps)}
    if deps:
        out["mcp_deps.json"] = _json({"target": target, "provided_by": "application", "tools": deps})
    if target == "openai":
        out["tools.json"] = _json([tooldefs.openai_tool(s) for s in specs])
        out["tools.responses.json"] = _json([tooldefs.openai_responses_tool(s) for s in specs])
    elif target == "anthropic-api":
        out["tools.json"] = _json([tooldefs.anthropic_tool(s) for s in specs])
    else:
        # A list of Gemini `Tool` objects, as `GenerateContentConfig(tools=...)` takes it.
        tools = [{"function_declarations": [tooldefs.gemini_declaration(s) for s in specs]}]
        if builtin_code:
            tools.append({"code_execution": {}})
        out["tools.json"] = _json(tools)
    return out


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


def _json(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def system_prompt(package, tool_names: list[str], values: dict | None = None, deps: list[dict] | None = None) -> str:
    """The skill as system-prompt text: what it is, the tools it may call, its files, then its instructions."""
    from skillyard.format.inputs import render

    lines = [f"# Skill: {package.name}", "", str(package.data.get("description", "")).strip(), ""]
    lines.append("Tools available for this skill: " + ", ".join(f"`{n}`" for n in tool_names) + ".")
    if deps:
        lines += ["", "Tools from the application's MCP servers (call them by these names):", ""]
        lines += [f"- `{d['function_name']}` (MCP `{d['tool']}`, {'required' if d['required'] else 'optional'})"
                  + (f": {d['description']}" if d["description"] else "") for d in deps]
    others = [f.path for f in package.files if f.path not in ("SKILL.md", "skill.md", "skill.yaml")]
    if others:
        lines += ["", f"Files you can open with `read_skill_file` (skill \"{package.name}\"):", ""]
        lines += [f"- {p}" for p in others]
    lines += ["", "## Instructions", "", render(package.body, values or {}).strip(), ""]
    return "\n".join(lines)
