"""skill prompt: print the skill index an agent puts in its system prompt."""

from __future__ import annotations

NAME = "prompt"
HELP = "print the available-skills index for a model (<available_skills> XML, text or JSON)"
DESCRIPTION = """\
Discover skills (project folders found by walking up from here, $SKILL_PATH, then ~/.agents/skills and
~/.claude/skills; or only the --root folders given) and print the index. The XML is the Agent Skills
<available_skills> format. --agent applies that agent's allow/ask/deny rules from ~/.agents/permissions.toml,
<project>/.agents/permissions.toml and $SKILL_PERMISSIONS. --report adds the discovery report (overrides, broken
skills, ignored folders, index hash) to stderr, or to the JSON output.

examples:
  skill prompt
  skill prompt --format text --agent reviewer
  skill prompt --root ./skills --root ~/more-skills --format json --report
"""


def add_arguments(parser) -> None:
    parser.add_argument("--format", choices=("xml", "text", "json"), default="xml", help="output format (default xml)")
    parser.add_argument("--root", action="append", metavar="DIR",
                        help="scan only these folders (repeatable; earlier ones win clashes)")
    parser.add_argument("--agent", metavar="NAME", help="apply this agent's permission rules")
    parser.add_argument("--report", action="store_true", help="include the discovery report")
    parser.add_argument("--no-cache", action="store_true", help="rescan instead of reusing the cached index")
    parser.add_argument("--json", action="store_true", help="same as --format json")


def make_runtime(args):
    """A SkillRuntime for --root/--agent; shared with `skill read`."""
    import os
    from pathlib import Path

    from skillyard.errors import SkillyardError
    from skillyard.runtime import SkillRuntime, explicit_roots, permissions
    from skillyard.runtime.discovery import default_roots, project_roots

    if getattr(args, "root", None):
        missing = [r for r in args.root if not os.path.isdir(os.path.expanduser(r))]
        if missing:
            raise SkillyardError(f"--root {missing[0]} is not a folder", "Give an existing folder of skills.")
        roots = explicit_roots([os.path.expanduser(r) for r in args.root])
    else:
        roots = default_roots()
    rules = []
    if getattr(args, "agent", None):
        found = project_roots()
        project = Path(found[0]).parent.parent if found else Path.cwd()
        try:
            rules = permissions.load_rules(args.agent, permissions.rule_files(project))
        except permissions.RulesError as exc:
            raise SkillyardError(str(exc), "Fix the rules file: each value is \"allow\", \"ask\" or \"deny\".") from None
    cache_dir = False if getattr(args, "no_cache", False) else None
    return SkillRuntime(roots, rules=rules, cache_dir=cache_dir)


def run(args) -> int:
    import json
    import sys

    rt = make_runtime(args)
    fmt = "json" if args.json else args.format
    text = rt.prompt(fmt, with_report=args.report)
    sys.stdout.write(text + "\n")
    if args.report and fmt != "json":
        sys.stderr.write(json.dumps(rt.discovery().report, indent=2, sort_keys=True) + "\n")
    return 0
