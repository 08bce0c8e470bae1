"""What a skill's files say reaches a terminal or a CI log only as visible text.

A frontmatter value is quoted in findings (a name, a version, a tag), and the text report prints the skill's name
and each finding's file, message and fix. Escape codes there would recolour or clear the terminal, set the
clipboard (OSC 52), or, in a GitHub Actions log, colour a line; a line feed or carriage return would forge a line
that reads like our own ("ok", "0 error(s)"). Every value is printed as one visible line instead."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.cli.main import skill_main, skillyard_main
from skillyard.format.safety import CONTROL, INVISIBLE, visible

HOSTILE = ["\x1b[2J", "\x1b]52;c;ZWNobyBoaQ==\x07", "\r", "\n", "\nok   skills/x (x)\n", "\u202e", "\u200b", "\x9b31m",
           "\t", "\x00", "\x85"]
LINE_STARTS = ("ok   ", "FAIL ", "  error ", "  warning ", "  info ", "          fix: ", "findings by rule:")
SUMMARY = re.compile(r"^\d+ skill\(s\): \d+ valid, \d+ invalid; \d+ error\(s\), \d+ warning\(s\)$")


def _yaml_escape(value: str) -> str:
    """A YAML double-quoted scalar holding `value` exactly (escapes for every control character)."""
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\U{ord(c):08x}" for c in value) + '"'


def _skill(root: Path, evil: str) -> Path:
    folder = root / "skills" / "log-summary"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {_yaml_escape('log-summary' + evil)}\n"
        f"description: {_yaml_escape('Summarises logs. Use when a user shares logs.' + evil)}\n"
        f"version: {_yaml_escape('1.0.0' + evil)}\n"
        f"tags: [{_yaml_escape('logs' + evil)}]\n---\n# Logs\n\nRead the log.\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[tool.skillyard]\nname = "t"\n', encoding="utf-8")
    return folder


def _assert_terminal_safe(text: str) -> None:
    assert not CONTROL.search(text.replace("\n", "")), repr(text)
    assert not INVISIBLE.search(text) and "\u202e" not in text, repr(text)


def _assert_report_lines(text: str) -> None:
    """Every line is one the report writes: a value cannot start a line of its own."""
    for line in text.splitlines():
        assert not line or line.startswith(LINE_STARTS) or line.startswith("  ") or SUMMARY.match(line), repr(line)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=4).map("".join))
def test_validate_build_and_skill_validate_print_hostile_values_as_visible_text(tmp_path_factory, capsys, evil):
    root = tmp_path_factory.mktemp("reg")
    folder = _skill(root, evil)
    assert skillyard_main(["validate", "--lenient", "--stats", "--root", str(root), str(folder)]) == 1
    out, err = capsys.readouterr()
    _assert_terminal_safe(out + err)
    _assert_report_lines(out)
    assert "[name-format]" in out  # the value was reported, as visible text
    assert skillyard_main(["build", "--root", str(root)]) != 0
    out, err = capsys.readouterr()
    _assert_terminal_safe(out + err)
    assert skill_main(["validate", str(folder)]) == 1
    out, err = capsys.readouterr()
    _assert_terminal_safe(out + err)
    assert all(line.startswith(("SKILL.md", "  fix: ", "log-summary")) for line in (out + err).splitlines()), out + err


@pytest.mark.parametrize("text,expected", [
    ("a\x1b[2Jb", "a\\u001b[2Jb"), ("a\rb", "a\\rb"), ("a\u202eb", "a\\u202eb"), ("line\nnext", "line\nnext"),
])
def test_visible_keeps_lines_unless_asked_for_one(text: str, expected: str):
    assert visible(text) == expected
    assert "\n" not in visible(text, one_line=True) and "\t" not in visible("a\tb", one_line=True)


def test_skill_evolve_shows_notes_shipped_with_a_skill_as_visible_text(tmp_path, capsys, monkeypatch):
    """evolution.json travels with an installed skill: its titles, text, trigger and author are someone else's."""
    import json

    monkeypatch.setenv("HOME", str(tmp_path))
    folder = tmp_path / "notes-demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: notes-demo\ndescription: Keeps notes. Use when needed.\n---\nBody.\n",
                                     encoding="utf-8")
    evil = "\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J\u202e\r"
    (folder / "evolution.json").write_text(json.dumps({"schema_version": "1.0", "skill": "notes-demo", "entries": [
        {"id": "evo-001", "date": "2026-11-26", "title": "title" + evil, "content": "line one" + evil + "\nline two",
         "trigger": "when" + evil, "author": "me" + evil}]}), encoding="utf-8")
    assert skill_main(["evolve", "list", str(folder)]) == 0
    out, err = capsys.readouterr()
    _assert_terminal_safe(out + err)
    assert "title\\u001b]52;c;ZWNobyBoaQ==\\u0007" in out and "line two" in out


def test_install_warnings_show_what_they_quote_as_visible_text(capsys):
    from skillyard.cli.skill_cmds._install_common import warn

    warn("registry says \x1b[2Jhello\u202e")
    _, err = capsys.readouterr()
    _assert_terminal_safe(err)
    assert err == "warning: registry says \\u001b[2Jhello\\u202e\n"
