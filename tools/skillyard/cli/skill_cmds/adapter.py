"""skill adapter list|install: the targets skills can be installed or emitted for, and adding one from a package."""

from __future__ import annotations

NAME = "adapter"
HELP = "list install/emit targets (agent runtimes and API formats) or install one from a Python package"
DESCRIPTION = """\
list: every target: where it reads skills (project and user scope) or which files it generates, which abstract
capabilities (read-file, write-file, http-request, execute-code) it can serve with that runtime's tool name, how a
skill's mcp_deps reach it, and where it comes from (built-in, or the package that provides it).

install: pip-install a package that provides targets (entry point group `skillyard.targets`) into the Python
environment `skill` runs from. A package runs code on your machine: install only what you trust. Asks first; --yes
skips the question (needed when not run from a terminal).

examples:
  skill adapter list
  skill adapter list --json
  skill adapter install skillyard-langchain
  skill adapter install ./dist/my_adapter-1.0-py3-none-any.whl --yes
"""


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="list targets")
    listing.add_argument("--json", action="store_true", help="print the table as JSON")
    install = sub.add_parser("install", help="pip-install a package that provides targets")
    install.add_argument("package", metavar="PACKAGE", help="a package name, requirement or wheel path for pip")
    install.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")
    install.add_argument("--json", action="store_true", help="print the result as JSON")


def warn(problems) -> None:
    """Plugins that were skipped, on stderr: never a traceback, and the other targets still work."""
    import sys

    from skillyard.cli.common import visible

    for problem in problems:
        print(f"skill: warning: {visible(problem)}", file=sys.stderr)


def run(args) -> int:
    if args.action == "install":
        return _install(args)
    from skillyard.cli.common import print_json, visible
    from skillyard.client import adapters
    from skillyard.client.targets import CAPABILITIES, all_targets

    rows = [t.to_dict() for t in all_targets().values()]
    problems = adapters.discover().problems
    if args.json:
        print_json({"targets": rows, "capabilities": list(CAPABILITIES), "problems": problems})
        return 0
    warn(problems)
    for row in rows:
        kind = "folder" if row["kind"] == "dir" else "generated"
        print(visible(f"{row['name']}  ({kind}, {row['origin']}) — {row['title']}"))
        print(f"    project: {row['project_dir']}/<name>    user: {row['user_dir']}/<name>")
        if row["kind"] == "api" and row["files"]:
            print(f"    files: {', '.join(row['files'])}")
        tools = ", ".join(f"{cap} → {tool}" for cap, tool in row["capabilities"].items())
        print(visible(f"    supports: {tools or 'no abstract capabilities'}"))
        print(f"    unsupported: {row['unsupported']}")
        print(f"    mcp_deps: {row['mcp_deps']}")
    return 0


def _install(args) -> int:
    import sys

    from skillyard.cli.common import print_json
    from skillyard.client import adapters
    from skillyard.errors import SkillyardError

    command = adapters.pip_command(args.package)
    if not args.yes:
        if not sys.stdin.isatty():
            raise SkillyardError(f"`skill adapter install {args.package}` needs confirmation",
                                 "Run it in a terminal, or add --yes to install without asking.")
        answer = input(f"Run `{' '.join(command)}`? The package's code will run on this machine. [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing installed.", file=sys.stderr)
            return 1
    result = adapters.install(args.package, stdout=sys.stderr if args.json else None)
    if args.json:
        print_json(result)
        return 0
    warn(result["problems"])
    if result["new_targets"]:
        print(f"Installed {args.package}: new target(s) {', '.join(result['new_targets'])} "
              "(see `skill adapter list`).")
    else:
        print(f"Installed {args.package}, but it adds no new target (no `{adapters.GROUP}` entry point, or only "
              "refused ones: see the warnings above).")
    return 0
