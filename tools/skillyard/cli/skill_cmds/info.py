"""skill info: everything the registry says about one skill."""

from __future__ import annotations

NAME = "info"
HELP = "show a skill's registry entry: inputs, MCP dependencies, capabilities, files, findings, versions"
DESCRIPTION = """\
Show one skill as its registry describes it, and which versions each source offers.
REF is NAME, NAME@VERSION or NAME@SOURCE. Works offline from the cache.

examples:
  skill info invoice-processor
  skill info pdf-tools@acme --json
"""


def add_arguments(parser) -> None:
    parser.add_argument("ref", help="NAME, NAME@VERSION or NAME@SOURCE")
    parser.add_argument("--source", help="take the skill from this source")
    parser.add_argument("--offline", action="store_true", help="use only the cache, never the network")
    parser.add_argument("--refresh", action="store_true", help="ask the servers for changes first")
    parser.add_argument("--json", action="store_true", help="print the entry as JSON")


def describe(found) -> dict:
    versions = [{"source": found.source.name, "priority": found.source.priority, "version": found.version,
                 "selected": True}]
    versions += [{"source": s.name, "priority": s.priority, "version": k["version"], "selected": False}
                 for s, k in found.others]
    versions.sort(key=lambda v: -v["priority"])
    return {"source": found.source.to_dict(), "skill": found.skill, "versions": versions, "stale": found.stale,
            "registry": {"name": found.registry.get("name"),
                         "repository": found.registry.get("repository", {}).get("url")},
            "skill_md_url": found.file_url("SKILL.md")}


def _lines(info: dict) -> list[str]:
    from skillyard.client.display import clean
    from skillyard.units import human_size

    skill = info["skill"]
    out = [f"{clean(skill['name'])} {clean(skill['version'])}  (source: {info['source']['name']}"
           + (", cached copy — could not check for changes)" if info["stale"] else ")")]
    if skill.get("display_name"):
        out.append(f"  {clean(skill['display_name'])}")
    out.append(f"  {clean(skill['description'])}")
    facts = [("tags", ", ".join(clean(t) for t in skill.get("tags", []))), ("author", clean(skill.get("author", ""))),
             ("maintainers", ", ".join(clean(m) for m in skill.get("maintainers", []))),
             ("license", clean(skill.get("license", ""))), ("homepage", clean(skill.get("homepage", ""))),
             ("compatibility", clean(skill.get("compatibility", ""))),
             ("allowed tools", ", ".join(clean(t) for t in skill.get("allowed_tools", []))),
             ("path", f"{clean(skill['path'])} @ {clean(skill['commit'][:12]) or '(no commit)'}"),
             ("updated", clean(skill.get("updated_at", ""))), ("integrity", clean(skill.get("integrity", ""))),
             ("registry", f"{clean(info['registry']['name'])} ({clean(info['registry']['repository'] or '')})")]
    out += [f"  {key}: {value}" for key, value in facts if value]
    if skill.get("capabilities"):
        out.append("  capabilities: " + ", ".join(clean(c) for c in skill["capabilities"]))
    if skill.get("inputs"):
        out.append("  inputs:")
        for item in skill["inputs"]:
            extra = "required" if item.get("required") else "optional"
            if "default" in item:
                import json

                extra += f", default {clean(json.dumps(item['default'], ensure_ascii=False))}"
            if item.get("enum"):
                extra += ", one of " + ", ".join(clean(v) for v in item["enum"])
            desc = f": {clean(item['description'])}" if item.get("description") else ""
            out.append(f"    {clean(item['name'])} ({clean(item['type'])}, {extra}){desc}")
    if skill.get("mcp_deps"):
        out.append("  MCP tools:")
        for dep in skill["mcp_deps"]:
            desc = f": {clean(dep['description'])}" if dep.get("description") else ""
            out.append(f"    {clean(dep['tool'])} ({'required' if dep.get('required') else 'optional'}){desc}")
    files = skill.get("files", [])
    out.append(f"  files ({len(files)}, {human_size(sum(f['size'] for f in files))}):")
    for item in files:
        flag = "  executable" if item.get("executable") else ""
        out.append(f"    {clean(item['path'])}  {human_size(item['size'])}{flag}")
    if skill.get("findings"):
        out.append("  findings:")
        for item in skill["findings"]:
            where = f" ({clean(item['file'])}{':' + str(item['line']) if item.get('line') else ''})" if item.get("file") else ""
            out.append(f"    {item['severity']} {clean(item['rule'])}{where}: {clean(item['message'])}")
    out.append("  versions:")
    for v in info["versions"]:
        mark = "*" if v["selected"] else " "
        out.append(f"    {mark} {clean(v['version'])}  {v['source']} (priority {v['priority']})")
    out.append(f"  install: skill install {clean(skill['name'])}@{info['source']['name']}")
    return out


def run(args) -> int:
    from skillyard.client.config import load_config
    from skillyard.client.resolve import resolve
    from skillyard.client.store import check_ref_name

    found = resolve(check_ref_name(args.ref), load_config(), source=args.source, offline=args.offline, refresh=args.refresh)
    info = describe(found)
    if args.json:
        from skillyard.cli.common import print_json

        print_json(info)
    else:
        print("\n".join(_lines(info)))
    return 0
