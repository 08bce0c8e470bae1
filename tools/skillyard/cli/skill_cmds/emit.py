"""skill emit: write one target's files for a skill without installing it."""

from __future__ import annotations

NAME = "emit"
HELP = "write a skill's files for one target (e.g. openai tools.json + system.md) without installing"
DESCRIPTION = """\
Write what a target needs for one skill into --out: for folder targets a copy of the skill at OUT/<name>/, for API
targets (openai, anthropic-api, gemini-api) the tool definitions (tools.json) and a system.md. <ref> is a skill
folder or the name of an installed skill.

examples:
  skill emit ./skills/pdf-tools --target openai --out build/openai
  skill emit invoice-processor --target gemini-api --out /tmp/gemini --json
"""


def add_arguments(parser) -> None:
    parser.add_argument("ref", metavar="NAME-OR-PATH", help="a skill folder or an installed skill's name")
    parser.add_argument("--target", required=True, metavar="TARGET", help="target name (see `skill adapter list`)")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    parser.add_argument("--json", action="store_true", help="print the written files as JSON")


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds.validate import find_folder
    from skillyard.client import targets

    targets.get(args.target)
    folder = find_folder(args.ref)
    written = targets.emit(folder, args.target, Path(args.out))
    if args.json:
        print_json({"ok": True, "skill": str(folder), "target": args.target, "files": [str(p) for p in written]})
    else:
        for path in written:
            print(path)
    return 0
