"""skill adapter list: the targets skills can be installed or emitted for, and what each can serve."""

from __future__ import annotations

NAME = "adapter"
HELP = "list install/emit targets (agent runtimes and API formats) and the capabilities each supports"
DESCRIPTION = """\
Show every target: where it reads skills (project and user scope) or which files it generates, and which abstract
capabilities (read-file, write-file, http-request, execute-code) it can serve, with that runtime's tool name.

examples:
  skill adapter list
  skill adapter list --json
"""


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="list targets")
    listing.add_argument("--json", action="store_true", help="print the table as JSON")


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.client.targets import CAPABILITIES, TARGETS

    rows = [t.to_dict() for t in TARGETS.values()]
    if args.json:
        print_json({"targets": rows, "capabilities": list(CAPABILITIES)})
        return 0
    for row in rows:
        kind = "folder" if row["kind"] == "dir" else "generated"
        print(f"{row['name']}  ({kind}) — {row['title']}")
        print(f"    project: {row['project_dir']}/<name>    user: {row['user_dir']}/<name>")
        if row["kind"] == "api":
            print(f"    files: {', '.join(row['files'])}")
        tools = ", ".join(f"{cap} → {tool}" for cap, tool in row["capabilities"].items())
        print(f"    supports: {tools}")
        print(f"    unsupported: {row['unsupported']}")
    return 0
