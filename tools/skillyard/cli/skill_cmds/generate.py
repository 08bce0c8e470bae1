"""skill generate: draft a new skill's SKILL.md with an OpenAI-compatible model, validated before it is written."""

from __future__ import annotations

NAME = "generate"
HELP = "draft a new skill (SKILL.md) with an OpenAI-compatible chat-completions endpoint from config"
DESCRIPTION = """\
Send the description to the chat-completions endpoint configured under `generate:` in config.yaml
(base_url, model, api_key_env: the NAME of the environment variable holding the key; the key itself is never
stored) and write the SKILL.md it returns into OUT/<name>/, a new folder, only when it passes strict validation.
Nothing is ever overwritten. --dry-run prints the draft and its problems and writes nothing. Review the draft
before you publish it: a model wrote it.

config.yaml:
  generate:
    base_url: https://api.openai.com/v1     # or http://127.0.0.1:8080/v1 for a local server
    model: gpt-4.1-mini
    api_key_env: OPENAI_API_KEY
    timeout: 120                            # seconds for the whole answer (default 120)

examples:
  skill generate "Summarise a CSV file's columns and spot missing values" --out skills
  skill generate "Review SQL migrations for locking risks" --name sql-migration-review --dry-run
"""


def add_arguments(parser) -> None:
    parser.add_argument("description", metavar="DESCRIPTION", help="what the skill should do, in a sentence or two")
    parser.add_argument("--out", default=".", metavar="DIR", help="folder to create <name>/ in (default: .)")
    parser.add_argument("--name", default=None, metavar="NAME", help="the skill's name (default: the model's choice)")
    parser.add_argument("--dry-run", action="store_true", help="print the draft; write nothing")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json, visible
    from skillyard.client import generate
    from skillyard.client.config import load_config

    endpoint = generate.endpoint_from_config(load_config())
    text = generate.ask(endpoint, args.description)
    if args.name:
        text = generate.with_name(text, args.name)
    if args.dry_run:
        import sys

        name = generate.skill_name(text)
        errors = generate.check(text)
        if args.json:
            print_json({"ok": not errors, "dry_run": True, "name": name, "skill_md": text,
                        "errors": [e.message for e in errors]})
        else:
            print(visible(text), end="")
            for error in errors:
                where = f"line {error.line}: " if error.line else ""
                print(visible(f"skill: invalid: {where}{error.message}"), file=sys.stderr)
        return 1 if errors else 0
    folder, warnings = generate.save(text, Path(args.out))
    if args.json:
        print_json({"ok": True, "dry_run": False, "folder": str(folder), "warnings": [w.message for w in warnings]})
        return 0
    print(f"Wrote {folder / 'SKILL.md'} (valid in strict mode). A model wrote it: review it before publishing.")
    for warning in warnings:
        print(visible(f"  warning: {warning.message}"))
    return 0
