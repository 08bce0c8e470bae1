"""skill emit: write one target's files for a skill without installing it."""

from __future__ import annotations

NAME = "emit"
HELP = "write a skill's files for one target (e.g. openai tools.json + system.md) without installing"
DESCRIPTION = """\
Write what a target needs for one skill into --out: for folder targets a copy of the skill at OUT/<name>/, for API
targets (openai, anthropic-api, gemini-api) the tool definitions (tools.json; for gemini-api a list of Tool objects,
with Gemini's built-in code_execution for execute-code) and a system.md, plus mcp_deps.json when the skill has
mcp_deps (tools the application must provide). Targets from installed packages (`skill adapter list`) write what
their plugin returns. <ref> is a skill folder or the name of an installed skill. {{inputs.x}} placeholders are filled as `skill install` fills them:
--input, then the per-skill config (inputs.<skill>), then the input's default.

examples:
  skill emit ./skills/pdf-tools --target openai --out build/openai
  skill emit invoice-processor --target gemini-api --out /tmp/gemini --json
  skill emit ./skills/release-notes --target openai --out build/openai --input audience=developers
"""


def add_arguments(parser) -> None:
    parser.add_argument("ref", metavar="NAME-OR-PATH", help="a skill folder or an installed skill's name")
    parser.add_argument("--target", required=True, metavar="TARGET", help="target name (see `skill adapter list`)")
    parser.add_argument("--out", required=True, metavar="DIR", help="folder to write into (created if missing)")
    parser.add_argument("--input", action="append", metavar="NAME=VALUE", help="a value for one of the skill's inputs")
    parser.add_argument("--json", action="store_true", help="print the written files as JSON")


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds.validate import find_folder
    from skillyard.client import targets
    from skillyard.client.config import load_config
    from skillyard.client.inputs import parse_assignments

    targets.get(args.target)
    cli_inputs = parse_assignments(args.input)
    folder = find_folder(args.ref)
    configured = load_config().skill_inputs(_skill_name(folder))
    written = targets.emit(folder, args.target, Path(args.out), cli_inputs=cli_inputs, configured=configured)
    if args.json:
        print_json({"ok": True, "skill": str(folder), "target": args.target, "files": [str(p) for p in written]})
    else:
        for path in written:
            print(path)
    return 0


def _skill_name(folder) -> str:
    """The name the per-skill config is keyed by: the skill's declared name, else its folder's name."""
    from skillyard.format import Policy, load_skill

    return load_skill(folder, Policy(strict=False)).name or folder.name
