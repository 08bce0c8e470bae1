"""skill read: print one file of an available skill, with the same checks a model's read_skill_file gets."""

from __future__ import annotations

NAME = "read"
HELP = "print a file of an available skill (the read_skill_file tool, from the command line)"
DESCRIPTION = """\
Print one file from inside a discovered skill's folder. Paths are relative to the skill folder; anything that would
leave it (.., absolute paths, links out, encoded tricks) is refused. With --agent, an `ask` rule asks you first.

examples:
  skill read pdf-tools SKILL.md
  skill read pdf-tools references/forms.md --agent reviewer
"""


def add_arguments(parser) -> None:
    parser.add_argument("skill", metavar="SKILL", help="skill name")
    parser.add_argument("path", metavar="PATH", help="file path inside the skill folder")
    parser.add_argument("--root", action="append", metavar="DIR", help="scan only these folders (repeatable)")
    parser.add_argument("--agent", metavar="NAME", help="apply this agent's permission rules")
    parser.add_argument("--yes", action="store_true", help="approve an `ask` rule without asking")


def _approver(args):
    import sys

    def approve(name: str) -> bool:
        if args.yes:
            return True
        if not sys.stdin.isatty():
            return False
        answer = input(f"Agent {args.agent!r} wants to load skill {name!r}. Allow? [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    return approve


def run(args) -> int:
    import sys

    from skillyard.cli.skill_cmds.prompt import make_runtime
    from skillyard.errors import SkillyardError
    from skillyard.runtime import ApprovalRequired, SkillFileError

    rt = make_runtime(args)
    rt.approve = _approver(args)
    try:
        text = rt.read_skill_file(args.skill, args.path)
    except ApprovalRequired as exc:
        raise SkillyardError(str(exc), "Answer yes on a terminal, or pass --yes.") from None
    except SkillFileError as exc:
        fix = "Run `skill prompt --format text` to see available skills." if "no available skill" in str(exc) \
            else "Give a path inside the skill folder, such as SKILL.md or references/<file>."
        raise SkillyardError(str(exc), fix) from None
    sys.stdout.write(text)
    return 0
