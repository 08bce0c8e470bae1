"""Check a command's `--json` output against its schema in schemas/cli/ (issue 27 item 9).

`cli_schema_errors` validates the way a consumer would (open objects), and once more with every object schema that
lists `properties` closed (`unevaluatedProperties: false`), so a field a command prints but its schema does not
name fails the tests: the schemas stay open for readers of an older release, the tests keep them complete.
"""

from __future__ import annotations

import argparse
import json
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
CLI = SCHEMAS / "cli"
PROGRAMS = (("skill", "skillyard.cli.skill_cmds"), ("skillyard", "skillyard.cli.skillyard_cmds"))


def json_commands() -> list[str]:
    """Every command and subcommand of both CLIs that takes --json, from their argparse parsers."""
    from skillyard.cli.main import build_parser

    found: list[str] = []

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        if any("--json" in action.option_strings for action in parser._actions):
            found.append(" ".join(words))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, [*words, name])

    for prog, package in PROGRAMS:
        walk(build_parser(prog, package, ""), [prog])
    return sorted(found)


def schema_file(command: str) -> Path:
    """`skill source add` -> schemas/cli/skill-source-add.schema.json."""
    return CLI / (command.replace(" ", "-") + ".schema.json")


def _closed(node: object) -> object:
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: (value if key in ("const", "enum", "required") else _closed(value)) for key, value in node.items()}
    if "properties" in node and "additionalProperties" not in node and "unevaluatedProperties" not in node:
        out["unevaluatedProperties"] = False
    return out


@cache
def _registry(closed: bool):
    from referencing import Registry, Resource

    pairs = []
    for path in sorted(SCHEMAS.glob("*.schema.json")) + sorted(CLI.glob("*.schema.json")):
        schema = json.loads(path.read_text(encoding="utf-8"))
        if closed and path.parent == CLI:
            schema = _closed(schema)
        pairs.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(pairs)


def _schema_id(command: str) -> str:
    return json.loads(schema_file(command).read_text(encoding="utf-8"))["$id"]


def cli_schema_errors(command: str, document: object, *, closed: bool = True) -> list[str]:
    """The problems of `document` as the --json output of `command` ([] when it matches its schema)."""
    from jsonschema import Draft202012Validator

    registry = _registry(closed)
    check = Draft202012Validator({"$ref": _schema_id(command)}, registry=registry)
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message[:300]}"
                for e in _leaves(sorted(check.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))))]
    if closed and not problems:  # the open schema must accept it too (it always does when the closed one does)
        problems = cli_schema_errors(command, document, closed=False)
    return problems


def _leaves(errors) -> list:
    """The errors inside each `anyOf` that failed (which branch wanted what), rather than "not valid under any"."""
    out = []
    for error in errors:
        out += _leaves(error.context) if error.context else [error]
    return out


def format_of(command: str) -> int:
    """The json_format a schema describes: the number in its `$id` (…/schemas/cli/<format>/<name>.schema.json)."""
    return int(re.search(r"/cli/(\d+)/", _schema_id(command)).group(1))


def check_output(command: str, code: int, out: str) -> dict:
    """`out` (what `command` printed with --json, exiting `code`) is one JSON object matching its schema; an exit
    status other than 0 comes with `ok: false`, and an `error` object only with a non-zero exit."""
    try:
        document = json.loads(out)
    except ValueError:
        raise AssertionError(f"{command} (exit {code}) printed no JSON document: {out[:300]!r}") from None
    problems = cli_schema_errors(command, document)
    assert problems == [], f"{command} (exit {code}):\n" + "\n".join(problems) + f"\n{out[:1500]}"
    assert isinstance(document, dict)
    if code != 0:
        assert document.get("ok") is False or document.get("valid") is False or \
            any(f.get("status") == "refused" for f in document.get("folders", [document])), (command, code, out[:500])
    if command.startswith("skill "):
        assert document["skillyard"]["json_format"] == format_of(command), command
    return document
