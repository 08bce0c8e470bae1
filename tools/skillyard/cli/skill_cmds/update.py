"""skill update: bring installed skills up to date with their source, showing version and file changes."""

from __future__ import annotations

NAME = "update"
HELP = "update installed skills from their source (shows version and file changes; keeps your edits)"
DESCRIPTION = """\
Compare each installed skill's lock with its source and install the newer files. Prints the version change and
which files were added, removed or changed. Refuses to overwrite files you edited since the install (naming them)
unless --force (which first keeps a backup of your copy in .agents/skill-backups/ and names it). A registry skill
is compared with its source's registry.json as cached (asked for again once it is
older than cache.ttl): `skill source refresh` asks now, and `skill outdated` shows what is newer. Both scopes
by default (your home's and the current project's skills, as `skill list` shows them); --user or --project for one.
Exit status: 0 when done; 1 when a skill was refused (your edits) or an error stopped it; 3 when some skill could not
be checked because its source was out of reach (it is named and shown as "not checked", never as "up to date").

examples:
  skill source refresh && skill update invoice-processor --dry-run
  skill update --all
  skill update pdf-tools --project --force
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    parser.add_argument("names", nargs="*", metavar="NAME", help="installed skill(s); none with --all")
    parser.add_argument("--all", action="store_true", help="update every installed skill")
    _scopes.add_arguments(parser, project_help="only the current project's skills (and skills.lock.json)",
                          user_help="only your home's skills")
    parser.add_argument("--input", action="append", metavar="NAME=VALUE", help="change an input (one skill only)")
    parser.add_argument("--dry-run", action="store_true", help="show what would change; write nothing")
    parser.add_argument("--force", action="store_true", help="overwrite files you edited")
    parser.add_argument("--skip-deps-check", action="store_true", help="update even when the MCP hub is unreachable")
    parser.add_argument("--require-verified", action="store_true",
                        help="refuse a new version from a pointer entry whose pin no maintainer of the registry "
                             "approved (config `install.require_verified`)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.cli.skill_cmds._install_common import scope_of, warn
    from skillyard.client import install as inst
    from skillyard.client import update as upd
    from skillyard.client.config import load_config
    from skillyard.client.inputs import parse_assignments
    from skillyard.errors import SkillyardError, UsageError

    if args.names and args.all:
        raise UsageError("Give skill names or --all, not both.", "Drop --all, or the names.")
    if not args.names and not args.all:
        raise UsageError("Which skills? Name them or pass --all.", "e.g. skill update --all --dry-run")
    cli_inputs = parse_assignments(args.input)
    if cli_inputs and len(args.names) != 1:
        raise UsageError("--input applies to one skill at a time.", "Name exactly one skill.")
    config = load_config()
    if args.require_verified:
        config.flags["install.require_verified"] = True
    _, project_root, home = scope_of(args)
    scopes = _scopes.chosen(args)
    names = list(dict.fromkeys(args.names))
    for _scope, root in scopes:
        inst.recover_locked(root)  # a killed earlier run is finished before anything is looked up
    where = {name: _scopes.where_installed(name, scopes) for name in names}
    missing = [name for name, found in where.items() if not found]
    if missing:
        raise SkillyardError(f"{', '.join(missing)}: not installed ({' or '.join(_scopes.names(scopes))} scope).",
                             "See `skill list`; install with `skill install NAME`.")
    changes = []
    for scope, _root in scopes:
        wanted = [n for n in names if scope in _scopes.names(where[n])]
        if names and not wanted:
            continue
        opts = inst.Options(scope=scope, project_root=project_root, home=home, targets=inst.default_targets(config),
                            dry_run=args.dry_run, force=args.force, skip_deps_check=args.skip_deps_check)
        changes += upd.update(wanted, opts, config, cli_inputs=cli_inputs)
    refused = [c for c in changes if c.status == "refused"]
    if args.json:
        print_json({"ok": not refused, "dry_run": args.dry_run, "scope": _scopes.names(scopes),
                    "skills": [c.to_dict() for c in changes]})
    else:
        print(_scopes.line(scopes))
        if not changes:
            print("no skills installed")
        for change in changes:
            _print(change)
            for message in change.warnings:
                warn(message)
    unchecked = [c for c in changes if not c.checked]
    if unchecked and not args.json:
        warn(f"{len(unchecked)} of {len(changes)} skill(s) could not be checked: their source could not be reached, "
             f"so they were compared with its cached registry ({', '.join(c.name for c in unchecked[:10])}); run "
             "again when the network is back")
    if refused:
        if args.json:
            return 1
        names = "; ".join(f"{c.name}: {', '.join(c.edited)}" for c in refused)
        raise SkillyardError(f"Not updated because you edited files since the install ({names}).",
                             "Keep a copy of your changes, then run again with --force to overwrite them.")
    return 3 if unchecked else 0


def _print(change) -> None:
    from skillyard.cli.common import say

    version = (f"{change.from_version} → {change.to_version}" if change.from_version != change.to_version
               else change.to_version)
    label = {"up-to-date": "up to date" if change.checked else "not checked (source unreachable; cached registry)", "would-update": "would update", "updated": "updated",
             "refused": "NOT updated (edited locally)"}[change.status]
    say(f"{change.name} ({change.scope}): {label}, {version}")
    for kind, paths in (("+", change.added), ("-", change.removed), ("~", change.changed)):
        for path in paths:
            say(f"  {kind} {path}")
    if change.edited:
        say(f"  edited since install: {', '.join(change.edited)}")
