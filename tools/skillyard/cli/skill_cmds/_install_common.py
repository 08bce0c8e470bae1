"""Arguments and output shared by install, uninstall, update, list and check-deps (not a command itself)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def add_scope_arguments(parser, *, project_help: str = "work on the current project's skills instead of your home's") -> None:
    parser.add_argument("--project", action="store_true", help=project_help)
    parser.add_argument("--project-dir", metavar="DIR", help="the project folder (default: the current folder)")


def scope_of(args) -> tuple[str, Path, Path]:
    """(scope, project_root, home) from the arguments; --project-dir implies --project."""
    project_root = Path(args.project_dir).expanduser().resolve() if getattr(args, "project_dir", None) else Path.cwd()
    scope = "project" if getattr(args, "project", False) or getattr(args, "project_dir", None) else "user"
    return scope, project_root, Path(os.path.expanduser("~"))


def shorten(path: str | Path) -> str:
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home):] if home not in ("", "/") and text.startswith(home + os.sep) else text


def warn(message: str) -> None:
    from skillyard.cli.common import say

    say(f"warning: {message}", file=sys.stderr)
