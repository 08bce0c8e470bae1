"""Issue 27 item 4: every `skill …` / `skillyard …` command that a message, fix or help text in tools/ names (in
backticks) exists: its (sub)command words resolve in the real parser and `--help` on them exits 0. A fix that
points at a command that does not exist is a dead end for the user who follows it."""

import re
from pathlib import Path

import pytest

from skillyard.cli.main import dispatch

TOOLS = Path(__file__).resolve().parents[2] / "tools" / "skillyard"
MENTION = re.compile(r"`(skill|skillyard) ([^`\n]*)`")
WORD = re.compile(r"^[a-z][a-z0-9-]*\Z")
PACKAGES = {"skill": "skillyard.cli.skill_cmds", "skillyard": "skillyard.cli.skillyard_cmds"}


def mentions() -> dict[tuple[str, ...], str]:
    """(prog, command words…) -> the first file:line naming it. Words end at the first argument, option or
    placeholder (`URL`, `{name}`, `NAME@SOURCE`): a word is lowercase letters, digits and dashes."""
    found: dict[tuple[str, ...], str] = {}
    for path in sorted(TOOLS.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for match in MENTION.finditer(text):
            words = []
            for token in match.group(2).split():
                if not WORD.match(token):
                    break
                words.append(token)
            if words:
                line = text.count("\n", 0, match.start()) + 1
                found.setdefault((match.group(1), *words[:3]), f"{path.relative_to(TOOLS)}:{line}")
    return found


def command_path(prog: str, words: tuple[str, ...]) -> list[str]:
    """The (sub)command words that name parsers: the command, then subcommands while the parser has them; the
    rest are arguments. An unknown command or subcommand fails the test."""
    import argparse

    from skillyard.cli.main import build_parser

    parser = build_parser(prog, PACKAGES[prog], "", words[0])
    path: list[str] = []
    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            break
        assert word in subs[0].choices, f"`{prog} {' '.join([*path, word])}` is not a command"
        parser = subs[0].choices[word]
        path.append(word)
    return path


MENTIONED = mentions()


def test_the_scan_finds_the_known_mentions():
    assert ("skill", "source", "add") in MENTIONED and ("skill", "config", "set") in MENTIONED


@pytest.mark.parametrize("mention", sorted(MENTIONED), ids=lambda m: " ".join(m))
def test_every_named_command_exists(mention, capsys):
    prog, *words = mention
    path = command_path(prog, tuple(words))
    try:
        code = dispatch(prog, PACKAGES[prog], "", [*path, "--help"])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr().out
    assert code == 0 and "usage:" in out, f"`{prog} {' '.join(path)} --help` failed (named at {MENTIONED[mention]})"
