"""skill list: the installed skills, per scope, with version, source, targets and local edits."""

from __future__ import annotations

NAME = "list"
HELP = "list installed skills (your home's and the current project's)"
DESCRIPTION = """\
List the skills installed in your home (user scope) and in the current project (project scope), with their
version, where they came from, which agents they were placed for, and whether files were edited since.

examples:
  skill list
  skill list --project --json
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds._install_common import add_scope_arguments

    add_scope_arguments(parser, project_help="list only the current project's skills")
    parser.add_argument("--user", action="store_true", help="list only your home's skills")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


def collect(scope: str, root) -> list[dict]:
    from skillyard.client import lockfile, store

    out = []
    for name in store.installed_names(root):
        folder = store.canonical_dir(root, name)
        lock = lockfile.read_skill_lock(folder)
        source = lock["resolved_source"]
        out.append({
            "name": name, "version": lock["version"], "scope": scope, "path": str(folder),
            "source": source, "targets": [t["target"] for t in lock.get("targets", [])],
            "inputs": lock.get("resolved_inputs", {}),
            "edited": store.edited_files(folder, lock.get("files", [])),
        })
    return out


def run(args) -> int:
    import os
    import sys

    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds._install_common import scope_of, shorten

    scope, project_root, home = scope_of(args)
    scopes = []
    if not (args.project or args.project_dir):
        scopes.append(("user", home))
    if not args.user and (scope == "project" or os.path.abspath(project_root) != os.path.abspath(home)):
        scopes.append(("project", project_root))
    skills = [item for name, root in scopes for item in collect(name, root)]
    from skillyard.client.store import pending_changes

    pending = sorted({n for _, root in scopes for n in pending_changes(root)})
    if args.json:
        print_json({"skills": skills, **({"pending": pending} if pending else {})})
        return 0
    for name in pending:
        print(f"note: an interrupted change to {name!r} is pending; the next install, update or uninstall "
              "finishes it", file=sys.stderr)
    if not skills:
        print("no skills installed" + (" in this project" if scopes == [("project", project_root)] else ""))
        return 0
    for item in skills:
        source = item["source"]
        origin = {"registry": source.get("source"), "github": source.get("url"), "local": source.get("path")}
        where = origin.get(source["type"]) or source["type"]
        edited = f"  [edited: {', '.join(item['edited'])}]" if item["edited"] else ""
        print(f"{item['name']:<28} {item['version']:<10} {item['scope']:<8} {source['type']}:{where}  "
              f"→ {', '.join(item['targets']) or 'agents'}  {shorten(item['path'])}{edited}")
    return 0
