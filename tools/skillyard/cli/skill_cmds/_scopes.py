"""Which installed skills a command looks at: one rule for list, outdated, update, uninstall, check-deps and doctor.

By default both scopes, as `skill list` always did: your home's skills (user scope) and the current project's
(project scope, the current folder or --project-dir; left out when the current folder is your home, where the two
are one). `--user` or `--project` narrows to one. A command that changes a skill (update, uninstall) acts where
the skill is installed; uninstall refuses a name installed in both scopes until told which. Every such command
says which scopes it used: a `scope: …` line in text output, a `scope` field in --json.
"""

from __future__ import annotations

import os
from pathlib import Path


def add_arguments(parser, *, project_help: str, user_help: str) -> None:
    parser.add_argument("--user", action="store_true", help=user_help)
    parser.add_argument("--project", action="store_true", help=project_help)
    parser.add_argument("--project-dir", metavar="DIR", help="the project folder (default: the current folder)")


def chosen(args) -> list[tuple[str, Path]]:
    """(scope, root) pairs: both by default, one with --user or --project/--project-dir."""
    from skillyard.cli.skill_cmds._install_common import scope_of
    from skillyard.errors import UsageError

    scope, project_root, home = scope_of(args)
    user_only = getattr(args, "user", False)
    if user_only and scope == "project":
        raise UsageError("--user and --project select different scopes", "Give one of them, or neither for both.")
    out: list[tuple[str, Path]] = []
    if scope != "project":
        out.append(("user", home))
    if not user_only and (scope == "project" or os.path.abspath(project_root) != os.path.abspath(home)):
        out.append(("project", project_root))
    return out


def explicit(args) -> bool:
    return bool(getattr(args, "user", False) or getattr(args, "project", False) or getattr(args, "project_dir", None))


def names(scopes: list[tuple[str, Path]]) -> list[str]:
    return [scope for scope, _ in scopes]


def line(scopes: list[tuple[str, Path]]) -> str:
    """The text line saying which scopes were read, e.g. `scope: user (~), project (~/work/app)`."""
    from skillyard.cli.skill_cmds._install_common import shorten

    home = os.path.expanduser("~")
    shown = ", ".join(f"{scope} ({'~' if str(root) == home else shorten(root)})" for scope, root in scopes)
    return f"scope: {shown}" + ("" if len(scopes) > 1 else "  (both by default; see --help)")


def flags(args) -> str:
    """The scope options to repeat in a suggested command (`skill update --all --project`)."""
    if getattr(args, "project_dir", None):
        return f" --project-dir {args.project_dir}"
    return " --project" if getattr(args, "project", False) else " --user" if getattr(args, "user", False) else ""


def where_installed(name: str, scopes: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """The scopes among `scopes` that hold an installed `name` (its folder with a skill.lock.json)."""
    from skillyard.client import store

    return [(scope, root) for scope, root in scopes
            if (store.canonical_dir(root, name) / store.SKILL_LOCK).is_file()]
