"""skill mcp: serve the skills an agent would see over the Model Context Protocol (stdio)."""

from __future__ import annotations

NAME = "mcp"
HELP = "serve available skills to MCP clients over stdio (index, load_skill, read_skill_file, skill:// resources)"
DESCRIPTION = """\
Start an MCP server on stdin/stdout for clients that speak MCP but do not read skills folders (Claude Desktop,
VS Code's agent mode and others). It serves the skills `skill prompt` would list from the same roots, with the same
precedence and filters: the instructions and the list_skills tool carry the index, load_skill returns a skill's
SKILL.md body and its files, read_skill_file and resources skill://NAME/PATH read its other files (paths that leave
the skill folder are refused). --agent applies that agent's allow/ask/deny rules: a denied skill is absent, an `ask`
skill is served only after the user confirms through the client (MCP elicitation), and refused where the client
cannot ask. --project sets the folder project skills and project rules are looked up from (default: here).
Needs the `mcp` extra: pip install 'skillyard[mcp]'. Exit code 0 when the client closes the connection.

examples:
  skill mcp
  skill mcp --agent reviewer --project ~/code/app
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _mcp_add  # `skill mcp add`: write this server into a client's settings

    _mcp_add.add_parser(parser.add_subparsers(dest="action", metavar="ACTION"))
    from skillyard.cli.skill_cmds.prompt import add_runtime_arguments

    parser.add_argument("--project", metavar="DIR", help="look for project skills and rules from this folder")
    add_runtime_arguments(parser)


def run(args) -> int:
    import os

    from skillyard.cli.skill_cmds.prompt import make_runtime
    from skillyard.errors import SkillyardError

    if args.project:
        project = os.path.expanduser(args.project)
        if not os.path.isdir(project):
            raise SkillyardError(f"--project {args.project} is not a folder", "Give the project's folder.")
        os.chdir(project)  # discovery and the project's permissions.toml both walk up from the working directory
    try:
        from skillyard.runtime.mcp_server import serve_stdio
    except ImportError as exc:
        raise SkillyardError(f"the MCP server needs the `mcp` package ({exc.name or exc})",
                             "Install it: pip install 'skillyard[mcp]'.") from None
    serve_stdio(make_runtime(args))
    return 0
