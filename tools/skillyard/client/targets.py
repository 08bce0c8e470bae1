"""Where each agent runtime reads skills, and how one installed copy reaches all of them.

The targets are a data table, not code per runtime. Every scope (project or user) keeps ONE canonical copy of a
skill at `<scope root>/.agents/skills/<name>/` (the shared convention that Codex, Cursor, Gemini CLI, Copilot,
OpenCode, Amp and others read). A target whose folder differs gets a relative symlink to that copy, or a full copy
when links are impossible or `copy=True`. API targets (openai, anthropic-api, gemini-api) have no folder a runtime
reads; for them `place()` generates the provider files into `<scope root>/.agents/emit/<target>/<name>/`, outside
the skill folder so the installed files still match the lockfile byte for byte.

A copy is marked with a `.skillyard-placed` file naming the canonical folder, so a later `place()` may replace it
and `remove()` deletes only folders it made; a folder someone else put there is never overwritten.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.fsutil import write_atomic

CANONICAL = ".agents/skills"
EMIT_DIR = ".agents/emit"
COPY_MARKER = ".skillyard-placed"
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

    def folder(self, scope: str) -> str | None:
        return self.project if scope == "project" else self.user

    def supports(self, capability: str) -> bool:
        return capability in self.capabilities

    def to_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "title": self.title, "capabilities": dict(self.capabilities),
               "unsupported": self.unsupported}
        if self.kind == "dir":
            out["project_dir"] = self.project
            out["user_dir"] = "~/" + self.user if self.user else None
        else:
            out["files"] = list(self.files)
            out["project_dir"] = f"{EMIT_DIR}/{self.name}"
            out["user_dir"] = f"~/{EMIT_DIR}/{self.name}"
        return out


_CUSTOM = "custom capabilities (anything other than read-file, write-file, http-request, execute-code)"


def _dir(name, title, project, user, tools):
    keys = dict(zip(CAPABILITIES, tools, strict=True))
    return Target(name, "dir", title, project, user, keys, unsupported=_CUSTOM)


def _api(name, title, files):
    tools = {"read-file": "read_file (function tool)", "write-file": "write_file (function tool)",
             "http-request": "http_request (function tool)", "execute-code": "code_interpreter (function tool)"}
    return Target(name, "api", title, capabilities=tools, files=files,
                  unsupported=_CUSTOM + "; your program must implement every generated function tool")


TARGETS: dict[str, Target] = {t.name: t for t in (
    _dir("claude-code", "Claude Code", ".claude/skills", ".claude/skills", ("Read", "Write", "WebFetch", "Bash")),
    _dir("agents", "Shared .agents convention (Codex, Cursor, Gemini CLI, Copilot, OpenCode, Amp, ...)",
         CANONICAL, CANONICAL, ("built-in file read", "built-in file edit", "built-in web fetch", "built-in shell")),
    _dir("codex", "OpenAI Codex CLI", CANONICAL, ".codex/skills", ("shell", "apply_patch", "shell (curl)", "shell")),
    _dir("cursor", "Cursor", CANONICAL, ".cursor/skills", ("read_file", "edit_file", "web_search / terminal",
                                                           "run_terminal_cmd")),
    _dir("gemini", "Gemini CLI", CANONICAL, ".gemini/skills", ("read_file", "write_file", "web_fetch",
                                                               "run_shell_command")),
    _dir("copilot", "GitHub Copilot", CANONICAL, ".copilot/skills", ("read", "edit", "fetch", "shell")),
    _dir("opencode", "OpenCode", CANONICAL, ".config/opencode/skills", ("read", "write", "webfetch", "bash")),
    _dir("goose", "Goose", ".goose/skills", ".config/goose/skills", ("text_editor", "text_editor", "shell (curl)",
                                                                     "shell")),
    _dir("windsurf", "Windsurf", ".windsurf/skills", ".codeium/windsurf/skills",
         ("view_file", "write_to_file", "read_url_content", "run_command")),
    _dir("openclaw", "OpenClaw", "skills", ".openclaw/skills", ("read", "write", "web_fetch", "exec")),
    _api("openai", "OpenAI API (Chat Completions / Responses function tools)",
         ("tools.json", "tools.responses.json", "system.md")),
    _api("anthropic-api", "Anthropic Messages API (tools)", ("tools.json", "system.md")),
    _api("gemini-api", "Gemini API (function_declarations)", ("tools.json", "system.md")),
)}


def get(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise SkillyardError(f"unknown target {name!r}",
                             f"Choose one of: {', '.join(TARGETS)} (see `skill adapter list`).") from None


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
        files = emit(canonical_dir, target, path)
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
        for name in entry.get("files", []):
            file = Path(name)
            if file.parent == path and os.path.lexists(file) and not os.path.islink(file) and file.is_file():
                file.unlink()
        if path.is_dir() and not os.path.islink(path) and not any(path.iterdir()):
            path.rmdir()
        return
    raise ValueError(f"unknown placement mode {mode!r}")


# --------------------------------------------------------------------------------------------------- emitting


def emit(skill_folder: Path, target: str, out_dir: Path) -> list[Path]:
    """Write `target`'s files for one skill into `out_dir` without installing it; returns the files written.

    Directory targets get a copy of the skill at `out_dir/<name>/`; API targets get their tool definitions and a
    `system.md` directly in `out_dir`.
    """
    from skillyard.format import Policy, load_skill

    t = get(target)
    skill_folder = Path(skill_folder)
    package = load_skill(skill_folder, Policy(strict=False))
    if not package.valid and not package.data.get("name"):
        first = package.errors[0]
        raise SkillyardError(f"{skill_folder}: {first.message}", first.fix)
    out_dir = Path(out_dir)
    if t.kind == "dir":
        dest = out_dir / package.name
        if os.path.lexists(dest):
            raise SkillyardError(f"{dest} already exists", "Choose an empty --out folder or delete it first.")
        out_dir.mkdir(parents=True, exist_ok=True)
        _copy_plain(skill_folder, dest, [f.path for f in package.files])
        return sorted(p for p in dest.rglob("*") if p.is_file())
    documents = generate(package, t.name)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in documents.items():
        written.append(write_atomic(out_dir / file_name, text))
    return written


def _copy_plain(source: Path, dest: Path, rel_paths: list[str]) -> None:
    temp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        for rel in rel_paths:
            target = temp / "tree" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(os.path.realpath(source / rel), target)
        (temp / "tree").mkdir(exist_ok=True)
        os.rename(temp / "tree", dest)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def generate(package, target: str) -> dict[str, str]:
    """The generated files of an API target, as {file name: text}. Pure given a loaded SkillPackage."""
    from skillyard.runtime import tooldefs

    capabilities = [c for c in (package.data.get("capabilities") or []) if isinstance(c, str)]
    missing = unsupported_capabilities(target, capabilities)
    if missing:
        raise SkillyardError(f"target {target} cannot serve capability {', '.join(missing)} of {package.name}",
                             "Remove the capability from the skill or choose another --target.")
    specs = [tooldefs.CAPABILITY_SPECS[c] for c in CAPABILITIES if c in capabilities]
    specs.append(tooldefs.read_skill_file_spec([package.name]))
    system = system_prompt(package, [s.name for s in specs])
    if target == "openai":
        tools = [tooldefs.openai_tool(s) for s in specs]
        responses = [tooldefs.openai_responses_tool(s) for s in specs]
        return {"tools.json": _json(tools), "tools.responses.json": _json(responses), "system.md": system}
    if target == "anthropic-api":
        return {"tools.json": _json([tooldefs.anthropic_tool(s) for s in specs]), "system.md": system}
    if target == "gemini-api":
        return {"tools.json": _json({"function_declarations": [tooldefs.gemini_declaration(s) for s in specs]}),
                "system.md": system}
    raise SkillyardError(f"target {target} is a folder target, not a generated one", "Use an API target.")


def _json(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def system_prompt(package, tool_names: list[str]) -> str:
    """The skill as system-prompt text: what it is, the tools it may call, its files, then its instructions."""
    lines = [f"# Skill: {package.name}", "", str(package.data.get("description", "")).strip(), ""]
    lines.append("Tools available for this skill: " + ", ".join(f"`{n}`" for n in tool_names) + ".")
    others = [f.path for f in package.files if f.path not in ("SKILL.md", "skill.md", "skill.yaml")]
    if others:
        lines += ["", f"Files you can open with `read_skill_file` (skill \"{package.name}\"):", ""]
        lines += [f"- {p}" for p in others]
    lines += ["", "## Instructions", "", package.body.strip(), ""]
    return "\n".join(lines)
