"""Dispatch `skillyard` and `skill` to their command modules.

Each module in `skillyard_cmds/` or `skill_cmds/` defines `NAME`, `HELP`, `add_arguments(parser)` and
`run(args) -> int`, and imports nothing heavy at module level. Start-up is what a user feels on every call, so the
top-level parser lists the commands from the package's static COMMANDS table and imports (and builds the arguments
of) only the command actually invoked: `skill --help` imports no command module at all.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from skillyard import __version__
from skillyard.errors import SkillyardError


def invoked_command(argv: list[str]) -> str | None:
    """The command word of `argv`: its first argument that is not an option (the top-level options take no value)."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


class Parser(argparse.ArgumentParser):
    """argparse without prefix matching: `--token` must never be taken for `--token-env` (it would store a secret
    where a variable's name belongs). Subparsers are made from the parent's class, so the rule reaches all of them."""

    def __init__(self, *args, **kwargs):
        kwargs["allow_abbrev"] = False
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        from skillyard.cli.common import visible

        if self._missing_command(message):
            # `skill` or `skill source` alone: the help is the answer, then the usage error's exit status (2)
            self.print_help(sys.stderr)
            self.exit(2, f"\n{self.prog}: error: choose a command from the list above; `{self.prog} COMMAND "
                         "--help` explains each\n")
        super().error(visible(message))

    def _missing_command(self, message: str) -> bool:
        """Whether argparse's error is only "the following arguments are required: <this parser's command>"."""
        prefix = "the following arguments are required: "
        if not message.startswith(prefix):
            return False
        missing = [part.strip() for part in message[len(prefix):].split(",")]
        commands = {action.metavar or action.dest for action in self._actions
                    if isinstance(action, argparse._SubParsersAction)}
        return bool(missing) and all(name in commands for name in missing)

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an unknown option is named without the value after it: a mistyped `--token SECRET`
        must not print the secret."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            options = [a.split("=", 1)[0] for a in extras if a.startswith("-")]
            others = len(extras) - len(options)
            listed = " ".join(options) + (f" and {others} other argument(s)" if others else "")
            self.error(f"unrecognized arguments: {listed.strip()} (values are not repeated, in case one is a "
                       "secret); see --help")
        return parsed


def installed_version() -> str:
    """The installed distribution's version (what pip reports), else the source tree's when run uninstalled."""
    from importlib import metadata

    try:
        return metadata.version("skillyard")
    except metadata.PackageNotFoundError:
        return __version__


class _Version(argparse.Action):
    """`--version`, looked up only when asked (importlib.metadata is not free on every run)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {installed_version()}")
        parser.exit()


# Where a program reading `--json` finds what it may rely on (site/pages/json-output.md explains the versioning).
JSON_EPILOG = ("--json output: each command's JSON Schema is in schemas/cli/<program>-<command>.schema.json (installed "
               "with the package in skillyard/schemas/cli/); see the \"Machine-readable output\" page.")


def build_parser(prog: str, package: str, description: str, command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command listed; only `command` (None: every one, as documentation tools want) is
    imported and given its real arguments, the others are placeholders that carry their one-line help."""
    table = importlib.import_module(package).COMMANDS
    parser = Parser(prog=prog, description=description, epilog=JSON_EPILOG)
    parser.add_argument("--version", action=_Version, nargs=0, help="show the installed version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in table.items():
        if command is not None and name != command:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        module = importlib.import_module(f"{package}.{module_name}")
        child = sub.add_parser(name, help=help_text, description=getattr(module, "DESCRIPTION", module.HELP),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(child)
        child.set_defaults(_run=module.run)
    return parser


def dispatch(prog: str, package: str, description: str, argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(prog, package, description, invoked_command(argv) or "")
    for arg in argv:
        if "\0" in arg:  # no OS passes one, but an in-process caller can; every file API would choke on it
            parser.error(f"argument {argv.index(arg) + 1} contains a NUL character (\\0); remove it")
    args = parser.parse_args(argv)
    from skillyard.cli.common import label_json

    label_json(args.command if prog == "skill" else None)  # `skill --json` output says its release and format
    from skillyard.recache import active

    try:
        with active():  # the patterns a command compiles come from the last run's (skillyard/recache.py)
            return int(args._run(args) or 0)
    except SkillyardError as exc:
        from skillyard.cli.common import from_package, print_error, unexpected_error

        context = exc.__cause__ or exc.__context__  # a command's own message for a PyGithub/requests error
        if type(exc) is SkillyardError and isinstance(context, Exception) and \
                from_package(context, "requests", "urllib3", "github"):
            exc = unexpected_error(context, args, prog, wrapped=exc)
        print_error(exc, as_json=getattr(args, "json", False))
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`skill search x | head`): stop quietly, as Unix tools do.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as exc:
        # The file system said no (permission, name too long, disk full): say what and where, never a traceback.
        # (A broken pipe is an OSError too, handled above; so are the errors of requests, mapped below.)
        from skillyard.cli.common import from_package, print_error, unexpected_error

        if from_package(exc, "requests", "urllib3", "github"):
            error = unexpected_error(exc, args, prog)
            print_error(error, as_json=getattr(args, "json", False))
            return error.exit_code
        where = f" ({exc.filename})" if exc.filename else ""
        print_error(SkillyardError(f"{exc.strerror or exc}{where}.",
                                   "Check the path and its permissions, then run the command again."),
                    as_json=getattr(args, "json", False))
        return 1
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a clear message, never a traceback
        from skillyard.cli.common import print_error, unexpected_error

        error = unexpected_error(exc, args, prog)
        print_error(error, as_json=getattr(args, "json", False))
        return error.exit_code


def skillyard_main(argv: list[str] | None = None) -> int:
    return dispatch("skillyard", "skillyard.cli.skillyard_cmds",
                    "Validate skills, compile registry.json, build the site, and run the registry bots.", argv)


def skill_main(argv: list[str] | None = None) -> int:
    return dispatch("skill", "skillyard.cli.skill_cmds",
                    "Find, install, update and emit AI agent skills from one or more registries.", argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(skillyard_main())
