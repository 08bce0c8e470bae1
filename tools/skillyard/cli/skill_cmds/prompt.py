"""skill prompt: print the skill index an agent puts in its system prompt."""

from __future__ import annotations

NAME = "prompt"
HELP = "print the available-skills index for a model (<available_skills> XML, text or JSON)"
DESCRIPTION = """\
Discover skills (project folders found by walking up from here, $SKILL_PATH, then ~/.agents/skills,
~/.agent/skills and ~/.claude/skills; or only the --root folders given) and print the index. The XML is the Agent
Skills <available_skills> format; every format starts with one usage line for the model (read SKILL.md with
read_skill_file first, run scripts/ with the shell tool; `usage` in JSON). --agent applies that agent's
allow/ask/deny rules from ~/.agents/permissions.toml, the nearest <project>/.agents/permissions.toml up to the
repository top and $SKILL_PERMISSIONS, and that agent's remembered "always allow" answers
(see `skill permissions`). --builtin adds read-only built-in roots (lowest priority); --source keeps only skills
from some sources. --lenient lists a skill with an empty description and turns a name that is not a slug into one,
with warnings in the report. --report adds the discovery report (overrides, broken skills, ignored folders,
warnings, duration, index hash) to stderr, or to the JSON output.

examples:
  skill prompt
  skill prompt --format text --agent reviewer
  skill prompt --root ./skills --root ~/more-skills --format json --report
  skill prompt --builtin /opt/agent/skills --source project --source builtin
"""

SOURCES = ("explicit", "project", "env", "user", "builtin")


def add_runtime_arguments(parser) -> None:
    """Where skills come from and which are shown: shared with `skill read`."""
    parser.add_argument("--root", action="append", metavar="DIR",
                        help="scan only these folders (repeatable; earlier ones win clashes)")
    parser.add_argument("--builtin", action="append", metavar="DIR",
                        help="also scan this read-only built-in folder, below every other root (repeatable)")
    parser.add_argument("--source", action="append", choices=SOURCES,
                        help="keep only skills from this source (repeatable; --root folders are `explicit`)")
    parser.add_argument("--lenient", action="store_true",
                        help="list skills with an empty description or a non-slug name, with warnings")
    parser.add_argument("--agent", metavar="NAME", help="apply this agent's permission rules")
    parser.add_argument("--no-cache", action="store_true", help="rescan instead of reusing the cached index")


def add_arguments(parser) -> None:
    parser.add_argument("--format", choices=("xml", "text", "json"), default="xml", help="output format (default xml)")
    add_runtime_arguments(parser)
    parser.add_argument("--report", action="store_true", help="include the discovery report")
    parser.add_argument("--json", action="store_true", help="same as --format json")


def make_runtime(args):
    """A SkillRuntime for --root/--agent; shared with `skill read`."""
    import os

    from skillyard.errors import SkillyardError
    from skillyard.runtime import SkillRuntime, explicit_roots, permissions
    from skillyard.runtime.discovery import PRIORITY, Root, default_roots

    for option in ("root", "builtin"):
        missing = [r for r in getattr(args, option, None) or [] if not os.path.isdir(os.path.expanduser(r))]
        if missing:
            raise SkillyardError(f"--{option} {missing[0]} is not a folder", "Give an existing folder of skills.")
    builtin = [os.path.expanduser(b) for b in getattr(args, "builtin", None) or []]
    if getattr(args, "root", None):
        roots = explicit_roots([os.path.expanduser(r) for r in args.root])
        roots += [Root(os.path.abspath(b), "builtin", PRIORITY["builtin"]) for b in builtin]
    else:
        roots = default_roots(builtin=builtin)
    rules = []
    if getattr(args, "agent", None):
        try:
            rules = permissions.agent_rules(args.agent)
        except permissions.RulesError as exc:
            raise SkillyardError(str(exc), "Fix the rules file: each value is \"allow\", \"ask\" or \"deny\".") from None
    cache_dir = False if getattr(args, "no_cache", False) else None
    approvals = None
    if getattr(args, "agent", None):  # the approvals store (locks, atomic writes) only when an agent's answers count
        from skillyard.runtime.approvals import Approvals

        approvals = Approvals()
    return SkillRuntime(roots, rules=rules, cache_dir=cache_dir, agent=getattr(args, "agent", None),
                        approvals=approvals,
                        sources=getattr(args, "source", None), lenient=getattr(args, "lenient", False))


def run(args) -> int:
    import json
    import sys

    from skillyard.errors import SkillyardError
    from skillyard.runtime.approvals import ApprovalsError

    rt = make_runtime(args)
    fmt = "json" if args.json else args.format
    try:
        text = rt.prompt(fmt, with_report=args.report)
    except ApprovalsError as exc:
        raise SkillyardError(str(exc), "Fix the file, or delete it (every remembered approval is then asked "
                             "again).") from None
    if fmt == "json":
        from skillyard.cli.common import print_json

        print_json(json.loads(text))  # the same bytes, with the `skillyard` label every `skill --json` carries
    else:
        sys.stdout.write(text + "\n")
    if args.report and fmt != "json":
        sys.stderr.write(json.dumps(rt.discovery().report, indent=2, sort_keys=True) + "\n")
    return 0
