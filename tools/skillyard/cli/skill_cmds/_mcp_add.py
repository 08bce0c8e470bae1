"""skill mcp add: write the `skill mcp` server into an agent's MCP settings (a subcommand of `skill mcp`)."""

from __future__ import annotations

HELP = "write the `skill mcp` server into an agent's MCP settings (Claude Desktop, VS Code, Cursor, ...)"
DESCRIPTION = """\
Add the skills server (`skill mcp`) to an MCP client's settings file, so an agent that speaks MCP but does not read
skills folders gets your skills. Only the server's own entry (named `skillyard`, or --name) is written: other
servers, keys, their order, comments and formatting stay as they are; running it again changes nothing. A settings
file that does not parse is refused, naming it, and left untouched.

targets and files (user scope; --project writes the project's file where the agent has one):
  claude-desktop  ~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/,
                  Windows: %APPDATA%\\Claude\\)  -- no project file
  vscode          ~/.config/Code/User/mcp.json          project: .vscode/mcp.json
  cursor          ~/.cursor/mcp.json                     project: .cursor/mcp.json
  windsurf        ~/.codeium/windsurf/mcp_config.json    -- no project file
  codex           ~/.codex/config.toml ($CODEX_HOME)     project: .codex/config.toml
  gemini          ~/.gemini/settings.json                project: .gemini/settings.json

examples:
  skill mcp add --target claude-desktop
  skill mcp add --target vscode --project --dry-run
  skill mcp add --target codex --agent reviewer --json
"""


def add_parser(sub) -> None:
    """Register `add` on the subparsers of `skill mcp`."""
    import argparse

    from skillyard.client.mcp_settings import TARGETS

    add = sub.add_parser("add", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add.add_argument("--target", required=True, choices=TARGETS, metavar="TARGET",
                     help="the client whose settings to write: " + ", ".join(TARGETS))
    add.add_argument("--project", action="store_true", help="write the project's settings file, not your home's")
    add.add_argument("--project-dir", metavar="DIR", help="the project folder (default: the current folder)")
    add.add_argument("--agent", metavar="NAME", help="serve with this agent's permission rules (skill mcp --agent)")
    add.add_argument("--name", default=None, metavar="KEY", help="the server's key in the settings (default: skillyard)")
    add.add_argument("--command", dest="server_command", metavar="PATH",
                     help="the `skill` executable the client starts (default: this one, as an absolute path)")
    add.add_argument("--dry-run", action="store_true", help="show the change; write nothing")
    add.add_argument("--json", action="store_true", help="print the result as JSON")
    add.set_defaults(_run=run)


def _skill_executable() -> str:
    """The `skill` beside this Python (a venv's), else the one on PATH: an absolute path, because desktop clients
    start servers without the shell's PATH."""
    import shutil
    import sys
    from pathlib import Path

    beside = Path(sys.executable).with_name("skill.exe" if sys.platform == "win32" else "skill")
    if beside.is_file():
        return str(beside)
    found = shutil.which("skill")
    return str(Path(found).resolve()) if found else "skill"


def run(args) -> int:
    import difflib
    import os
    from pathlib import Path

    from skillyard.cli.common import print_json, say
    from skillyard.client import mcp_settings
    from skillyard.errors import SkillyardError

    project_root = Path(args.project_dir).expanduser().resolve() if args.project_dir else Path.cwd()
    name = args.name if args.name is not None else mcp_settings.SERVER_NAME
    if not name.strip() or any(ord(c) < 32 for c in name):
        raise SkillyardError(f"--name {name!r} is not a usable server key", "Give a short name such as skillyard.",
                             exit_code=2)
    settings = mcp_settings.settings_for(args.target, project=bool(args.project or args.project_dir),
                                         project_root=project_root, home=Path(os.path.expanduser("~")))
    entry = mcp_settings.server_entry(settings, args.server_command or _skill_executable(), agent=args.agent)
    change = mcp_settings.plan_change(settings, name, entry)
    if change.status != "unchanged" and not args.dry_run:
        mcp_settings.write(settings.path, change.after)
    if args.json:
        print_json({"ok": True, "target": settings.target, "scope": settings.scope, "file": str(settings.path),
                    "format": settings.fmt, "name": name, "entry": entry, "status": change.status,
                    "dry_run": bool(args.dry_run)})
        return 0
    title = mcp_settings.TITLES[settings.target]
    if change.status == "unchanged":
        say(f"{title}: {settings.path} already has the `{name}` server; nothing to change")
        return 0
    verb = {"added": "added", "updated": "updated"}[change.status]
    if args.dry_run:
        diff = difflib.unified_diff((change.before or "").splitlines(keepends=True),
                                    change.after.splitlines(keepends=True), str(settings.path), str(settings.path))
        print("".join(diff), end="")
        say(f"would have {verb} the `{name}` server in {settings.path} ({title}); nothing was written (--dry-run)")
        return 0
    say(f"{verb} the `{name}` server in {settings.path} ({title}); restart {title} to load it")
    return 0
