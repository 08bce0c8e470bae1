"""skill mcp: serve the skills an agent would see over the Model Context Protocol (stdio, or loopback HTTP)."""

from __future__ import annotations

NAME = "mcp"
HELP = "serve available skills to MCP clients over stdio or loopback HTTP (index, load_skill, read_skill_file, "\
       "skill:// resources, prompts)"
DESCRIPTION = """\
Start an MCP server for clients that speak MCP but do not read skills folders (Claude Desktop, VS Code's agent
mode and others). It serves the skills `skill prompt` would list from the same roots, with the same precedence and
filters: the instructions and the list_skills tool carry the index, load_skill returns a skill's SKILL.md body and
its files, read_skill_file and resources skill://NAME/PATH read its other files (paths that leave the skill folder
are refused). --agent applies that agent's allow/ask/deny rules: a denied skill is absent, an `ask` skill is served
only after the user confirms through the client (MCP elicitation), and refused where the client cannot ask. An
installed skill whose files no longer match its skill.lock.json, or that is being installed right now, is refused
and the error says so. When skills are installed, updated or removed while it runs, clients are sent list_changed.
--project sets the folder project skills and project rules are looked up from (default: here).

Transport: stdin/stdout by default. --http serves streamable HTTP on 127.0.0.1 only (--port, default a free one),
and prints the URL and a random bearer token once (on stderr, or as JSON with --json): every request must send
`Authorization: Bearer TOKEN`, anything else gets 401.

Scripts: --allow-scripts (or config `mcp.allow_scripts: true`) adds the run_script tool. Each run asks the user
through the client, showing the exact command, and is refused where the client cannot ask; it runs in the skill's
folder with a scrubbed environment, output capped at 64 KiB per stream and a time limit (--script-timeout, config
`mcp.script_timeout`, default 60 s).
Needs the `mcp` extra: pip install 'skillyard[mcp]'. Exit code 0 when the client closes the connection (stdio) or
on Ctrl-C (HTTP).

examples:
  skill mcp
  skill mcp --agent reviewer --project ~/code/app
  skill mcp --http --port 8765 --json
  skill mcp --allow-scripts --script-timeout 30
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import (
        _mcp_add,  # `skill mcp add`: write this server into a client's settings
    )

    _mcp_add.add_parser(parser.add_subparsers(dest="action", metavar="ACTION"))
    from skillyard.cli.skill_cmds.prompt import add_runtime_arguments

    parser.add_argument("--project", metavar="DIR", help="look for project skills and rules from this folder")
    add_runtime_arguments(parser)
    parser.add_argument("--http", action="store_true", help="serve streamable HTTP on 127.0.0.1 instead of stdio")
    parser.add_argument("--port", type=int, default=0, metavar="N",
                        help="with --http: the port on 127.0.0.1 (default 0: any free port, printed)")
    parser.add_argument("--allow-scripts", action="store_true",
                        help="add the run_script tool (each run asks the user; config mcp.allow_scripts)")
    parser.add_argument("--script-timeout", type=float, default=None, metavar="SECONDS",
                        help="longest a script may run (default: config mcp.script_timeout, else 60)")
    parser.add_argument("--json", action="store_true",
                        help="with --http: print the URL and token as one JSON object on stdout once listening")


def run(args) -> int:
    import os

    from skillyard.cli.skill_cmds.prompt import make_runtime
    from skillyard.errors import SkillyardError

    if args.json and not args.http:
        raise SkillyardError("--json needs --http: over stdio, stdout carries the MCP messages",
                             "Add --http, or drop --json.")
    if not 0 <= args.port <= 65535:
        raise SkillyardError(f"--port {args.port} is not a port", "Give a number from 1 to 65535, or 0 for any.")
    if args.project:
        project = os.path.expanduser(args.project)
        if not os.path.isdir(project):
            raise SkillyardError(f"--project {args.project} is not a folder", "Give the project's folder.")
        os.chdir(project)  # discovery and the project's permissions.toml both walk up from the working directory
    options = script_options(args)
    try:
        from skillyard.runtime import mcp_server
    except ImportError as exc:
        raise SkillyardError(f"the MCP server needs the `mcp` package ({exc.name or exc})",
                             "Install it: pip install 'skillyard[mcp]'.") from None
    runtime = make_runtime(args)
    if not args.http:
        mcp_server.serve_stdio(runtime, extra_tools=extra_tools(args), **options)
        return 0
    try:
        mcp_server.serve_http(runtime, port=args.port, on_ready=lambda url, token: _announce(args, url, token),
                              extra_tools=extra_tools(args), **options)
    except OSError as exc:
        raise SkillyardError(f"cannot listen on 127.0.0.1:{args.port} ({exc.strerror or exc})",
                             "Pick another --port, or 0 for any free one.") from None
    except KeyboardInterrupt:
        pass
    return 0


def script_options(args) -> dict:
    """allow_scripts and script_timeout from the flags, else config.yaml (`mcp.allow_scripts`, `mcp.script_timeout`)."""
    from skillyard.client.config import load_config
    from skillyard.client.mcp import config_flag
    from skillyard.errors import SkillyardError

    config = load_config()
    allow = bool(args.allow_scripts) or config_flag(config, "mcp.allow_scripts")
    timeout = args.script_timeout
    if timeout is None:
        raw = config.get("mcp.script_timeout", 60)
        try:
            timeout = float(raw)
        except (TypeError, ValueError):
            raise SkillyardError(f"mcp.script_timeout in {config.path} is {raw!r}, expected seconds",
                                 "Run `skill config set mcp.script_timeout 60`.") from None
    if not 0 < timeout <= 3600:
        raise SkillyardError(f"the script timeout {timeout:g} s is out of range", "Give 1 to 3600 seconds.")
    return {"allow_scripts": allow, "script_timeout": timeout}


def _announce(args, url: str, token: str) -> None:
    """Print the URL and token once: JSON on stdout with --json, else two lines on stderr."""
    import sys

    if args.json:
        from skillyard.cli.common import print_json

        print_json({"ok": True, "transport": "http", "url": url, "token": token,
                    "header": f"Authorization: Bearer {token}"})
        sys.stdout.flush()
        return
    print(f"skill mcp: serving MCP over streamable HTTP at {url}", file=sys.stderr)
    print(f"skill mcp: send the header  Authorization: Bearer {token}", file=sys.stderr)
    sys.stderr.flush()


def extra_tools(args):
    """The hook for tools served beside the skills (the registry's: search, info, install), or None.

    Returns a callable `(server: MCPServer) -> None` that registers them; it lives outside `runtime/`, which must
    not import the client."""
    from skillyard.client.mcp_registry import register
    return register
