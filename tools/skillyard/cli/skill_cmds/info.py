"""skill info: everything known about one skill - a registry entry, or any ref `skill install` takes."""

from __future__ import annotations

NAME = "info"
HELP = "show a skill (registry name, github: ref, folder or archive): inputs, MCP dependencies, files, versions"
DESCRIPTION = """\
Show one skill: a registry entry as its registry describes it (and which versions each source offers), or a
github: ref, a folder or an archive exactly as `skill install` would fetch and check it - nothing is written.
A skill that lives in its own repository (a pointer entry) shows the upstream repository and pinned commit as
links, the ref it tracks, whether a maintainer of the registry approved the pin (verified, by whom, when) and
when the pin was last checked; --json gives them as `upstream`.
REF is anything install takes: NAME, NAME@VERSION, NAME@SOURCE, github:owner/repo[/path][@ref], ./folder,
./x.zip|./x.tar.gz|./x.tgz[/folder]. A registry entry works offline from the cache.

examples:
  skill info invoice-processor
  skill info pdf-tools@acme --json
  skill info github:acme/skills/pdf-tools@v1.2.0
  skill info ./my-skill
"""


def add_arguments(parser) -> None:
    parser.add_argument("ref", help="NAME[@VERSION|@SOURCE], github:owner/repo[/path][@ref], a folder or an archive")
    parser.add_argument("--source", help="take the skill from this source")
    parser.add_argument("--offline", action="store_true", help="use only the cache, never the network")
    parser.add_argument("--refresh", action="store_true", help="ask the servers for changes first")
    parser.add_argument("--json", action="store_true", help="print the entry as JSON")


def _text(value) -> str:
    """A metadata value as one line (a registry gives strings; a folder's frontmatter may hold anything)."""
    return value if isinstance(value, str) else "" if value is None else str(value)


def _lines(info: dict) -> list[str]:
    from skillyard.client.display import clean
    from skillyard.units import human_size

    skill = info["skill"]
    source = info["source"]
    label = source.get("name") or f"{source['type']}: {source.get('url') or source.get('path') or ''}".rstrip(": ")
    out = [f"{clean(skill['name'])} {clean(skill['version'])}  (source: {clean(label)}"
           + (", cached copy — could not check for changes)" if info["stale"] else ")")]
    if skill.get("display_name"):
        out.append(f"  {clean(skill['display_name'])}")
    out.append(f"  {clean(skill['description'])}")
    registry = info.get("registry")
    facts = [("tags", ", ".join(clean(_text(t)) for t in skill.get("tags", []))),
             ("author", clean(_text(skill.get("author", "")))),
             ("maintainers", ", ".join(clean(_text(m)) for m in skill.get("maintainers", []))),
             ("license", clean(_text(skill.get("license", "")))), ("homepage", clean(_text(skill.get("homepage", "")))),
             ("compatibility", clean(_text(skill.get("compatibility", "")))),
             ("allowed tools", ", ".join(clean(_text(t)) for t in skill.get("allowed_tools", []))),
             ("path", f"{clean(skill['path']) or '.'} @ {clean(skill['commit'][:12]) or '(no commit)'}"
              if registry or skill.get("commit") else clean(skill.get("path", ""))),
             ("updated", clean(skill.get("updated_at", ""))), ("integrity", clean(skill.get("integrity", ""))),
             ("registry", f"{clean(registry['name'])} ({clean(registry['repository'] or '')})" if registry else "")]
    out += [f"  {key}: {value}" for key, value in facts if value]
    if info.get("upstream"):
        from skillyard.client.pointer_info import lines

        out += lines(info["upstream"])
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
    if info.get("warnings"):
        out.append("  warnings:")
        out += [f"    {clean(w)}" for w in info["warnings"]]
    if info["versions"]:
        out.append("  versions:")
    for v in info["versions"]:
        mark = "*" if v["selected"] else " "
        out.append(f"    {mark} {clean(v['version'])}  {v['source']} (priority {v['priority']})")
    out.append(f"  install: {clean(info['install'])}")
    if "installed" in info:
        here = ", ".join(f"{clean(str(i['version']))} ({i['scope']})" for i in info["installed"]) or "no"
        out.append(f"  installed: {here}  [scope: {', '.join(info['scope'])}]")
    return out


def _installed(name: str, args) -> dict:
    """Where this skill is installed, read in the scopes every command reads by default (cli/skill_cmds/_scopes)."""
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.client import lockfile, store
    from skillyard.errors import SkillyardError

    scopes = _scopes.chosen(args)
    found = []
    for scope, root in _scopes.where_installed(name, scopes):
        try:
            version = lockfile.read_skill_lock(store.canonical_dir(root, name))["version"]
        except (SkillyardError, OSError, ValueError, KeyError):
            version = "?"
        found.append({"scope": scope, "version": version})
    return {"scope": _scopes.names(scopes), "installed": found}


def run(args) -> int:
    from skillyard.client import install as inst
    from skillyard.client.config import load_config
    from skillyard.errors import SkillyardError

    config = load_config()
    kind = inst.ref_kind(args.ref)  # the one ref parser install uses
    if kind == "registry":
        from skillyard.client.resolve import resolve
        from skillyard.client.store import check_ref_name

        found = resolve(check_ref_name(args.ref), config, source=args.source, offline=args.offline,
                        refresh=args.refresh)
        from skillyard.client.skill_info import describe

        info = describe(found)
        info.update(_installed(found.skill["name"], args))
    else:
        if args.source:
            raise SkillyardError(f"--source picks a registry; {args.ref} is a {kind} ref.", "Drop --source.",
                                 exit_code=2)
        if args.offline and kind == "github":
            raise SkillyardError(f"{args.ref} is read from GitHub, and --offline forbids the network.",
                                 "Drop --offline, or name a registry skill (read from the cache).")
        from skillyard.client.skill_info import describe_candidate

        info = describe_candidate(inst.candidate_for(args.ref, config), args.ref)
    if args.json:
        from skillyard.cli.common import print_json

        print_json(info)
    else:
        print("\n".join(_lines(info)))
    return 0
