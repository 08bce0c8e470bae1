"""skill read: print one file of an available skill, with the same checks a model's read_skill_file gets."""

from __future__ import annotations

NAME = "read"
HELP = "print a file of an available skill (the read_skill_file tool, from the command line)"
DESCRIPTION = """\
Print one file from inside a discovered skill's folder. Paths are relative to the skill folder; anything that would
leave it (.., absolute paths, links out, encoded tricks) is refused, and so are hidden files and the client's
bookkeeping (skill.lock.json, evolution.json). A PATH of `.` or a folder lists the files you can read. --tool-output
prints exactly what a model's read_skill_file call returns (a title and the skill's base directory first).
With --agent, an `ask` rule asks you first: answer y (this once), a (always: remembered for this agent and skill,
see `skill permissions`) or n. The same roots and filters as `skill prompt` apply.

examples:
  skill read pdf-tools SKILL.md
  skill read pdf-tools .
  skill read pdf-tools references/forms.md --agent reviewer
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds.prompt import add_runtime_arguments

    parser.add_argument("skill", metavar="SKILL", help="skill name")
    parser.add_argument("path", metavar="PATH", help="file path inside the skill folder (`.` lists its files)")
    add_runtime_arguments(parser)
    parser.add_argument("--yes", action="store_true", help="approve an `ask` rule this once without asking")
    parser.add_argument("--always", action="store_true",
                        help="approve an `ask` rule and remember it for this agent and skill")
    parser.add_argument("--tool-output", action="store_true", help="print what the model's tool call returns")


def _approver(args):
    import sys

    from skillyard.runtime.service import ALWAYS

    def approve(name: str) -> bool | str:
        if args.always:
            return ALWAYS
        if args.yes:
            return True
        if not sys.stdin.isatty():
            return False
        answer = input(f"Agent {args.agent!r} wants to load skill {name!r}. Allow? [y]es once, [a]lways, [N]o ")
        answer = answer.strip().lower()
        return ALWAYS if answer in ("a", "always") else answer in ("y", "yes")

    return approve


def run(args) -> int:
    import sys

    from skillyard.cli.skill_cmds.prompt import make_runtime
    from skillyard.errors import SkillyardError
    from skillyard.runtime import ApprovalRequired, SkillFileError
    from skillyard.runtime.approvals import ApprovalsError

    rt = make_runtime(args)
    rt.approve = _approver(args)
    try:
        if args.tool_output:
            text = rt.tool_result(args.skill, args.path)
        elif args.path.strip().strip("/") in ("", ".") or _is_folder(rt, args):
            text = "".join(f"{rel}\n" for rel in rt.list_skill_files(args.skill, args.path.strip()))
        else:
            text = rt.read_skill_file(args.skill, args.path)
    except ApprovalRequired as exc:
        raise SkillyardError(str(exc), "Answer y or a on a terminal, or pass --yes (once) or --always.") from None
    except ApprovalsError as exc:
        raise SkillyardError(str(exc), "Fix the file, or delete it (remembered approvals are then asked again).") \
            from None
    except SkillFileError as exc:
        fix = "Run `skill prompt --format text` to see available skills." if "no available skill" in str(exc) \
            else "Give a path inside the skill folder, such as SKILL.md or references/<file> (`.` lists them)."
        raise SkillyardError(str(exc), fix) from None
    sys.stdout.write(text)
    return 0


def _is_folder(rt, args) -> bool:
    """True when PATH names a folder of an available skill (checked without asking for approval)."""
    from skillyard.runtime import SkillFileError, files

    found = rt.discovery().get(args.skill)
    if found is None:
        return False
    try:
        files.resolve_dir(found.folder, args.path)
    except SkillFileError:
        return False
    return True
