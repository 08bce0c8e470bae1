"""`skill emit` and the files API targets receive: a skill written out for a target without installing it, and
the generated tool definitions and system prompt of the openai, anthropic-api and gemini-api targets.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from skillyard.client.target_lookup import get, unsupported_capabilities
from skillyard.client.target_table import CAPABILITIES, mcp_tools
from skillyard.errors import SkillyardError
from skillyard.fsutil import write_atomic


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
