"""Every `skill ... --json` output names the release and the format it was written in: a `skillyard` object with
`version`, `command` and `json_format` (README, "Machine-readable output"); errors printed as JSON too. Every
command of the table is run here or listed in NO_JSON, so a new command cannot leave it out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import skillyard
from skillyard.cli.common import JSON_FORMAT
from skillyard.cli.main import skill_main, skillyard_main
from skillyard.cli.skill_cmds import COMMANDS

NO_JSON = {"read": "prints a file's bytes for an agent; its --tool-output form is the agent tool's own",
           "mcp": "a server: stdout carries the MCP protocol's own JSON-RPC messages"}
SKILL_MD = ("---\nname: tidy-notes\ndescription: Turns rough meeting notes into a tidy summary. Use when the user "
            "pastes notes.\nlicense: MIT\n---\n\n# Tidy notes\n\nWrite one line per decision.\n")


def runs(folder: Path, project: Path) -> dict[str, list[list[str]]]:
    """argv lists per command; each must print JSON (a result, or an error as JSON)."""
    return {
        "adapter": [["adapter", "list", "--json"]],
        "check-deps": [["check-deps", "--json"]],
        "config": [["config", "list", "--json"], ["config", "get", "cache.ttl", "--json"]],
        "doctor": [["doctor", "--json"]],
        "emit": [["emit", str(folder), "--target", "openai", "--out", str(project / "emitted"), "--json"]],
        "evolve": [["evolve", "list", "tidy-notes", "--json"]],
        "generate": [["generate", "notes helper", "--dry-run", "--json"]],
        "info": [["info", str(folder), "--json"]],
        "init": [["init", "fresh-one", "--dir", str(project / "new"), "--json"]],
        "install": [["install", str(folder), "--target", "agents", "--project", "--json"]],
        "list": [["list", "--json"]],
        "outdated": [["outdated", "--json"]],
        "permissions": [["permissions", "list", "--json"]],
        "prompt": [["prompt", "--root", str(folder.parent), "--json"]],
        "publish": [["publish", str(folder), "--dry-run", "--json"]],
        "search": [["search", "notes", "--json"]],
        "source": [["source", "list", "--json"], ["source", "add", str(project / "nowhere.json"), "--json"]],
        "uninstall": [["uninstall", "tidy-notes", "--project", "--json"]],
        "update": [["update", "--all", "--json"]],
        "validate": [["validate", str(folder), "--json"]],
    }


@pytest.fixture
def world(tmp_path, monkeypatch):
    for kind in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / "xdg" / kind.lower()))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SKILLCLI_HOME", str(tmp_path / "skillhome"))
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", "none")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    folder = tmp_path / "src" / "tidy-notes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\ntags:\n  - notes\n', encoding="utf-8")
    return folder, project


def test_every_command_is_covered(world):
    assert set(runs(*world)) | set(NO_JSON) == set(COMMANDS)


def test_every_json_output_carries_the_label(world, capsys):
    for command, argvs in runs(*world).items():
        for argv in argvs:
            capsys.readouterr()
            code = skill_main(argv)
            out = capsys.readouterr().out
            try:
                doc = json.loads(out)
            except ValueError:
                pytest.fail(f"skill {' '.join(argv)} (exit {code}) printed no JSON: {out[:300]!r}")
            assert doc.get("skillyard") == {"version": skillyard.__version__, "command": f"skill {command}",
                                            "json_format": JSON_FORMAT}, (argv, code, out[:300])


def test_skillyard_documents_keep_their_own_shape(world, capsys):
    folder, _ = world
    skill_main(["list", "--json"])  # a `skill` run first: the label must not leak into the next tool's output
    capsys.readouterr()
    skillyard_main(["validate", str(folder), "--json"])
    assert "skillyard" not in json.loads(capsys.readouterr().out)
