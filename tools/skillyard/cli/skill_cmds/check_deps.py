"""skill check-deps: ask the configured MCP hub whether the tools a skill needs are there."""

from __future__ import annotations

NAME = "check-deps"
HELP = "check installed skills' MCP tool dependencies against the hub (mcp_hub.endpoint)"
DESCRIPTION = """\
Compare the `mcp_deps` of installed skills (or of a registry skill, by name) with the tools your MCP hub
offers. The hub is `mcp_hub.endpoint` in the config: a plain hub answering GET <endpoint>/tools/list, or an
MCP server over streamable HTTP (mcp_hub.type: mcp, or an endpoint ending in /mcp). Exits 1 when a required
tool is missing or the hub cannot be reached.

examples:
  skill check-deps
  skill check-deps invoice-processor --json
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    parser.add_argument("name", nargs="?", help="one skill (installed, else looked up in the registries)")
    _scopes.add_arguments(parser, project_help="only the current project's skills", user_help="only your home's skills")
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")


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
    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.client import mcp, store
    from skillyard.client.config import load_config
    from skillyard.errors import SkillyardError

    config = load_config()
    scopes = _scopes.chosen(args)
    wanted: list[tuple[str, list[dict]]] = []
    if args.name is not None:
        found = _scopes.where_installed(store.check_name(args.name), scopes)
        if found:
            wanted.append(_installed_deps(store.canonical_dir(found[0][1], args.name)))
        else:
            from skillyard.client import resolve

            skill = resolve.resolve(args.name, config).skill
            wanted.append((skill["name"], list(skill.get("mcp_deps") or [])))
    else:
        seen = set()
        for _scope, root in scopes:  # a skill in both scopes is checked once (the same name needs the same tools)
            for n in store.installed_names(root):
                if n not in seen:
                    seen.add(n)
                    wanted.append(_installed_deps(store.canonical_dir(root, n)))
    hub = mcp.hub_from_config(config) if any(deps for _, deps in wanted) else None
    tools = None
    reports = []
    for name, deps in wanted:
        report = mcp.check(name, deps, hub, tools=tools)
        if report.checked and deps:
            tools = report.available  # ask the hub once
        reports.append(report)
    ok = all(r.ok for r in reports)
    if args.json:
        print_json({"ok": ok, "hub": hub.endpoint if hub else None, "scope": _scopes.names(scopes),
                    "skills": [r.to_dict() for r in reports]})
    else:
        print(_scopes.line(scopes))
        if not reports:
            print("no skills installed")
        for report in reports:
            if not report.deps:
                print(f"{report.skill}: no MCP dependencies")
                continue
            if not report.checked:
                print(f"{report.skill}: not checked ({report.error})")
            for dep in report.to_dict()["deps"]:
                state = {True: "ok", False: "MISSING", None: "unknown"}[dep["available"]]
                print(f"{report.skill}: {dep['tool']} ({'required' if dep['required'] else 'optional'}) {state}")
    if not ok and not args.json:
        missing = sorted({t for r in reports for t in r.missing_required})
        if missing:
            raise SkillyardError(f"Missing required MCP tool(s): {', '.join(missing)}.",
                                 "Add them to your MCP hub, or point mcp_hub.endpoint at one that has them.")
        raise SkillyardError("The MCP hub could not be checked: " + "; ".join(sorted({r.error for r in reports if r.error})),
                             "Start the hub or set mcp_hub.endpoint (`skill config set mcp_hub.endpoint URL`).")
    return 0 if ok else 1
