"""skill check-deps: ask the configured MCP hub -- or, with none, the target agents' own MCP servers -- whether
the tools a skill needs are there."""

from __future__ import annotations

NAME = "check-deps"
HELP = "check installed skills' MCP tool dependencies (hub, or the agents' MCP servers)"
DESCRIPTION = """\
Compare the `mcp_deps` of installed skills (or of a registry skill, by name) with the tools your MCP hub
offers. The hub is `mcp_hub.endpoint` in the config: a plain hub answering GET <endpoint>/tools/list, or an
MCP server over streamable HTTP (mcp_hub.type: mcp, or an endpoint ending in /mcp). With no hub, the MCP servers
configured for each skill's targets are read (Claude Code .mcp.json and ~/.claude.json, Codex config.toml,
Gemini CLI settings.json, VS Code mcp.json); --probe-servers starts the local ones to ask for their tools.
Exits 1 when a required tool is missing or the hub cannot be reached; a tool nothing can check is reported
"not checked" (exit 1 with --require-deps).

examples:
  skill check-deps
  skill check-deps invoice-processor --json
  skill check-deps --project --probe-servers
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    parser.add_argument("name", nargs="?", help="one skill (installed, else looked up in the registries)")
    _scopes.add_arguments(parser, project_help="only the current project's skills", user_help="only your home's skills")
    parser.add_argument("--target", action="append", metavar="TARGET",
                        help="check against this agent's MCP settings (repeatable; default: the skill's targets)")
    parser.add_argument("--probe-servers", action="store_true",
                        help="start the local MCP servers the agents have configured and ask for their tools")
    parser.add_argument("--require-deps", action="store_true", help="exit 1 when a required tool cannot be checked")
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")


def _installed_targets(folder) -> list[str]:
    """The targets an installed skill was placed for (its lock); [] when the lock cannot say."""
    from skillyard.client import lockfile
    from skillyard.errors import SkillyardError

    try:
        return sorted({t["target"] for t in lockfile.read_skill_lock(folder).get("targets", [])})
    except (OSError, SkillyardError):
        return []


def _installed(folder) -> tuple[str, list[dict], list[str]]:
    return (*_installed_deps(folder), _installed_targets(folder))


def _installed_deps(folder) -> tuple[str, list[dict]]:
    """Name and `mcp_deps` of an installed skill: SKILL.md's frontmatter merged with the skill.yaml beside it
    (where the standard split keeps `mcp_deps`)."""
    from skillyard.format import parse_skill_md
    from skillyard.format.manifest import merge_manifest, parse_manifest

    data: dict = {}
    for name in ("SKILL.md", "skill.md"):
        path = folder / name
        if path.is_file():
            data = parse_skill_md(path.read_text(encoding="utf-8"), strict=False, file=name).data
            break
    if (folder / "skill.yaml").is_file():
        manifest = parse_manifest((folder / "skill.yaml").read_text(encoding="utf-8"))[0]
        if manifest is not None:
            data = merge_manifest(data, manifest)[0]
    return str(data.get("name") or folder.name), list(data.get("mcp_deps") or [])


def run(args) -> int:
    from skillyard.cli.common import print_json, say
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.cli.skill_cmds._install_common import scope_of, warn
    from skillyard.client import agent_mcp, mcp, store
    from skillyard.client.config import load_config
    from skillyard.client.placement import default_targets
    from skillyard.errors import SkillyardError

    config = load_config()
    scopes = _scopes.chosen(args)
    _scope, project_root, home = scope_of(args)
    wanted: list[tuple[str, list[dict], list[str]]] = []
    if args.name is not None:
        found = _scopes.where_installed(store.check_name(args.name), scopes)
        if found:
            wanted.append(_installed(store.canonical_dir(found[0][1], args.name)))
        else:
            from skillyard.client import resolve

            skill = resolve.resolve(args.name, config).skill
            wanted.append((skill["name"], list(skill.get("mcp_deps") or []), []))
    else:
        seen = set()
        for _scope, root in scopes:  # a skill in both scopes is checked once (the same name needs the same tools)
            for n in store.installed_names(root):
                if n not in seen:
                    seen.add(n)
                    wanted.append(_installed(store.canonical_dir(root, n)))
    hub = mcp.hub_from_config(config) if any(deps for _, deps, _ in wanted) else None
    probe_config = mcp.config_flag(config, "mcp.probe_servers")
    tools = None
    reports = []
    notes: list[str] = []
    for name, deps, targets in wanted:
        if hub is not None:
            report = mcp.check(name, deps, hub, tools=tools)
            if report.checked and deps:
                tools = report.available  # ask the hub once
        else:  # no hub: the MCP servers the skill's agents have configured
            how = mcp.AgentCheck(tuple(args.target or targets or default_targets(config)), project_root, home,
                                 probe=args.probe_servers, probe_config=probe_config,
                                 timeout=agent_mcp.probe_timeout(config))
            report, warnings = mcp.check_agents(name, deps, how)
            notes += [w for w in warnings if w not in notes]
        reports.append(report)
    missing = sorted({t for r in reports for t in r.missing_required})
    unchecked = [r for r in reports if r.error and r.required]
    ok = not missing and not (unchecked and (hub is not None or args.require_deps))
    if args.json:
        print_json({"ok": ok, "hub": hub.endpoint if hub else None, "scope": _scopes.names(scopes),
                    "skills": [r.to_dict() for r in reports]})
    else:
        say(_scopes.line(scopes))
        for note in notes:
            warn(note)
        if not reports:
            say("no skills installed")
        for report in reports:
            if not report.deps:
                say(f"{report.skill}: no MCP dependencies")
                continue
            if not report.checked:
                say(f"{report.skill}: not checked ({report.error})")
            for dep in report.to_dict()["deps"]:
                state = {True: "ok", False: "MISSING", None: "unknown"}[dep["available"]]
                why = f" ({dep['why']})" if dep.get("why") else ""
                say(f"{report.skill}: {dep['tool']} ({'required' if dep['required'] else 'optional'}) {state}{why}")
    if not ok and not args.json:
        if missing:
            raise SkillyardError(f"Missing required MCP tool(s): {', '.join(missing)}.",
                                 "Add them to the MCP server named in the line above (or your hub: "
                                 "`skill config set mcp_hub.endpoint URL`).")
        if hub is not None:
            raise SkillyardError("The MCP hub could not be checked: " + "; ".join(sorted({r.error for r in unchecked})),
                                 "Start the hub or fix it (`skill config set mcp_hub.endpoint URL`).")
        raise SkillyardError("Required MCP tools could not be checked (--require-deps).",
                             "Configure the MCP server(s) in the agent and pass --probe-servers to ask local ones, "
                             "or configure a hub (`skill config set mcp_hub.endpoint URL`).")
    return 0 if ok else 1
