"""Targets contributed by installed Python packages (entry point group `skillyard.targets`), and installing them.

The protocol is small on purpose. An entry point names an object, or a class or factory called with no arguments
that returns one, with:

- `name` (str): the target name, lower-case letters, digits and dashes (it becomes a folder name);
- `description` (str, optional): one line for `skill adapter list`;
- `capabilities` (dict, optional): abstract capability (read-file, write-file, http-request, execute-code) -> the
  tool that serves it; a skill declaring any other capability is refused for this target;
- `emit(skill) -> dict[str, str | bytes]`: the files to write, relative path -> content. `skill` is a
  `PluginSkill` (name, description, version, capabilities, mcp_deps, instructions, files, data, folder).

A plugin is code the user chose to install and runs in-process, like any Python package; what it returns is still
checked as untrusted (the shared path rule, a file count and a byte limit) and written only when all of it passes.
A plugin can never replace a built-in target or another plugin's: both are refused by name, with the package.
A plugin that fails to import or to build is reported as a warning naming its package; every other target works.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError

GROUP = "skillyard.targets"
MAX_FILES = 200
MAX_BYTES = 16 * 1024 * 1024
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")


@dataclass(frozen=True)
class PluginSkill:
    """What a plugin's `emit` receives: the skill's data with inputs already rendered; a copy, so it can't leak."""

    name: str
    description: str
    version: str
    capabilities: list[str]
    mcp_deps: list[dict]
    instructions: str
    files: dict[str, str]  # every UTF-8 file of the skill (SKILL.md included), rendered
    data: dict
    folder: Path


@dataclass
class Discovery:
    targets: dict = field(default_factory=dict)  # name -> targets.Target
    problems: list[str] = field(default_factory=list)  # one warning per refused or broken plugin


def _package(ep) -> str:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return f"entry point {ep.name!r}"
    return f"package {dist.metadata['Name'] or dist.name} {dist.version}"


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:300]}" if str(exc) else type(exc).__name__


def _load(ep):
    """The adapter object of one entry point (calling a factory); raises what the plugin raises."""
    obj = ep.load()
    if isinstance(obj, type) or (not callable(getattr(obj, "emit", None)) and callable(obj)):
        obj = obj()
    return obj


def _check(obj) -> str | None:
    """Why `obj` does not follow the protocol, or None."""
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not _NAME.match(name):
        return f"its `name` is {name!r}; use lower-case letters, digits and dashes (at most 64)"
    if not callable(getattr(obj, "emit", None)):
        return "it has no `emit(skill)` method"
    capabilities = getattr(obj, "capabilities", {}) or {}
    if not isinstance(capabilities, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in capabilities.items()):
        return "its `capabilities` is not a mapping of capability name to tool name"
    return None


@functools.cache
def discover() -> Discovery:
    """Every plugin target, loaded once per process; broken or clashing ones become `problems`."""
    from importlib.metadata import entry_points

    from skillyard.client.target_table import _CUSTOM, TARGETS, Target

    found = Discovery()
    claimed: dict[str, list[str]] = {}
    seen = set()
    try:
        points = list(entry_points(group=GROUP))
    except Exception as exc:  # noqa: BLE001 - a damaged installed distribution: no plugin targets, built-ins work
        found.problems.append(f"the installed packages' entry points cannot be read ({_describe(exc)}); only "
                              "built-in targets are available. Reinstall the damaged package.")
        return found
    for ep in points:
        package = f"entry point {ep.name!r}"
        # Everything a plugin does — import, factory, attributes (which may be properties) — can fail: each
        # failure is one warning naming the package, and the other targets are unaffected.
        try:
            package = _package(ep)
            if (package, ep.name, ep.value) in seen:  # the same distribution on sys.path twice
                continue
            seen.add((package, ep.name, ep.value))
            obj = _load(ep)
            problem = _check(obj)
            if problem:
                found.problems.append(f"{package}: target {ep.name!r} is skipped because {problem}.")
                continue
            name = obj.name
            description = " ".join(str(getattr(obj, "description", "") or "").split())[:200]
            capabilities = dict(getattr(obj, "capabilities", {}) or {})
        except (Exception, SystemExit) as exc:
            found.problems.append(f"{package}: its target {ep.name!r} failed to load ({_describe(exc)}); "
                                  "it is skipped. Reinstall or upgrade the package, or uninstall it.")
            continue
        if name in TARGETS:
            found.problems.append(f"{package}: target {name!r} is refused: it would replace the built-in target "
                                  "of that name. Ask the package's author to rename it.")
            continue
        claimed.setdefault(name, []).append(package)
        found.targets[name] = Target(name, "api", description or f"{name} (plugin)", capabilities=capabilities,
                                     unsupported=_CUSTOM + " unless listed in supports",
                                     mcp="given to the plugin (PluginSkill.mcp_deps)", source=package, plugin=obj)
    for name, packages in claimed.items():
        if len(packages) > 1:
            del found.targets[name]
            found.problems.append(f"target {name!r} is refused: {' and '.join(packages)} both provide it. "
                                  "Uninstall one of them.")
    return found


def plugin_skill(package, texts: dict[str, str], values: dict, folder: Path) -> PluginSkill:
    from skillyard.client.target_table import mcp_tools
    from skillyard.format.inputs import render

    data = copy.deepcopy(package.data)
    return PluginSkill(name=package.name, description=str(data.get("description", "")),
                       version=str(data.get("version", "")),
                       capabilities=[c for c in (data.get("capabilities") or []) if isinstance(c, str)],
                       mcp_deps=mcp_tools(data.get("mcp_deps")), instructions=render(package.body, values),
                       files={rel: render(text, values) for rel, text in texts.items()}, data=data,
                       folder=Path(folder))


def run_emit(target, package, texts: dict[str, str], values: dict, folder: Path) -> dict[str, bytes]:
    """Call a plugin's `emit` and check everything it returns before anything is written."""
    from skillyard.format.paths import path_problem, path_set_problems, shown

    where = f"target {target.name!r} ({target.source})"
    missing = [c for c in (package.data.get("capabilities") or []) if not target.supports(c)]
    if missing:
        raise SkillyardError(f"{where} cannot serve capability {', '.join(missing)} of {package.name}",
                             "Remove the capability from the skill or choose another --target.")
    try:
        files = target.plugin.emit(plugin_skill(package, texts, values, folder))
    except (Exception, SystemExit) as exc:
        raise SkillyardError(f"{where} failed while emitting {package.name}: {_describe(exc)}; nothing was written",
                             "Report it to the package's author, or use another --target.") from None
    if not isinstance(files, dict) or not files:
        raise SkillyardError(f"{where} returned {type(files).__name__}, not a mapping of file names to contents; "
                             "nothing was written", "Report it to the package's author, or use another --target.")
    if len(files) > MAX_FILES:
        raise SkillyardError(f"{where} returned {len(files)} files; the limit is {MAX_FILES}; nothing was written",
                             "Report it to the package's author, or use another --target.")
    out, total = {}, 0
    for rel, content in files.items():
        problem = path_problem(rel) if isinstance(rel, str) else "is not a string"
        if problem:
            raise SkillyardError(f"{where} returned a file name that {problem} ({shown(str(rel))}); nothing was "
                                 "written", "Report it to the package's author, or use another --target.")
        if not isinstance(content, str | bytes):
            raise SkillyardError(f"{where} returned {type(content).__name__} for {shown(rel)}, not text or bytes; "
                                 "nothing was written", "Report it to the package's author.")
        out[rel] = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        total += len(out[rel])
        if total > MAX_BYTES:
            raise SkillyardError(f"{where} returned more than {MAX_BYTES:,} bytes; nothing was written",
                                 "Report it to the package's author, or use another --target.")
    clashes = path_set_problems(list(out))
    if clashes:
        rel, problem = clashes[0]
        raise SkillyardError(f"{where} returned {shown(rel)}, which {problem}; nothing was written",
                             "Report it to the package's author, or use another --target.")
    return out


def pip_command(spec: str) -> list[str]:
    """The pip call that installs `spec` into the environment `skill` itself runs from."""
    import sys

    if not spec.strip() or spec.startswith("-") or "\0" in spec or "\n" in spec:
        raise SkillyardError(f"{spec!r} is not a package to install",
                             "Give a package name (`skillyard-langchain`), a requirement (`name==1.0`) or a path to "
                             "a wheel; options are not passed to pip.")
    from skillyard.client.target_table import TARGETS

    if spec.strip().lower() in TARGETS:
        # the design's `skill adapter install claude-code`: that target is built in, and a PyPI package of the same
        # name would be someone else's code
        raise SkillyardError(f"{spec.strip()!r} is a built-in target; there is nothing to install",
                             f"Use it directly: `skill install NAME --target {spec.strip().lower()}`; "
                             "`skill adapter list` shows every target.")
    return [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--", spec]


def install(spec: str, *, runner=None, stdout=None) -> dict:
    """pip-install `spec`, then report the targets that appeared. Raises a clear error when pip fails."""
    import importlib
    import subprocess

    before = set(discover().targets)
    command = pip_command(spec)
    try:
        done = (runner or subprocess.run)(command, stdout=stdout, check=False)
    except OSError as exc:
        raise SkillyardError(f"could not run pip ({exc.strerror or exc})",
                             f"Install it into {command[0]}'s environment: `{command[0]} -m ensurepip`.") from None
    if done.returncode != 0:
        raise SkillyardError(f"pip could not install {spec!r} (exit {done.returncode}); nothing else was changed",
                             "Read pip's message above; check the name, the path or the network.")
    importlib.invalidate_caches()
    discover.cache_clear()
    found = discover()
    return {"ok": True, "installed": spec, "python": command[0], "new_targets": sorted(set(found.targets) - before),
            "problems": found.problems}
