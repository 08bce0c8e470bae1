"""The repository's own state: its skills pass, the committed registry is fresh, and every command documents itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillyard.cli.main import build_parser
from skillyard.format.schemas import schema_errors

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skillyard.cli.main", *args], cwd=ROOT, capture_output=True,
                          text=True, env={**__import__("os").environ, "CI": "true"})


def test_the_repository_skills_pass_strict_validation():
    result = run("validate", "--strict", "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 0, [s for s in report["skills"] if not s["valid"]]
    assert report["summary"]["skills"] >= 10
    assert report["summary"]["warnings"] == 0, [f for s in report["skills"] for f in s["findings"]]


def test_committed_registry_is_fresh_and_valid():
    result = run("build", "--check")
    assert result.returncode == 0, result.stderr + result.stdout
    registry = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))
    assert schema_errors("registry", registry) == []
    assert schema_errors("index", json.loads((ROOT / "index.json").read_text(encoding="utf-8"))) == []
    names = [s["name"] for s in registry["skills"]]
    assert names == sorted(names) and len(set(names)) == len(names)
    assert all(len(s["commit"]) == 40 for s in registry["skills"])


def test_example_skills_cover_the_format():
    skills = json.loads((ROOT / "registry.json").read_text(encoding="utf-8"))["skills"]
    input_types = {i["type"] for s in skills for i in s["inputs"]}
    assert input_types == {"string", "number", "boolean", "enum", "json"}
    required = {d["required"] for s in skills for d in s["mcp_deps"]}
    assert required == {True, False}
    assert any(s["inventory"]["has_scripts"] for s in skills)
    assert any(s["inventory"]["reference_files"] for s in skills)
    assert any("处理发票" in s["description"] for s in skills)


def _commands(prog: str, package: str) -> list[str]:
    parser = build_parser(prog, package, "")
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return sorted(sub.choices)


@pytest.mark.parametrize("prog,package", [("skillyard", "skillyard.cli.skillyard_cmds"), ("skill", "skillyard.cli.skill_cmds")])
def test_every_command_has_help(prog, package, capsys):
    from skillyard.cli.main import dispatch

    commands = _commands(prog, package)
    assert commands
    for command in commands:
        with pytest.raises(SystemExit) as exc:
            dispatch(prog, package, "", [command, "--help"])
        assert exc.value.code == 0
        out = capsys.readouterr().out
        assert f"usage: {prog} {command}" in out


def test_skill_cli_does_not_import_heavy_packages():
    code = ("import sys\nfrom skillyard.cli.main import build_parser\n"
            "build_parser('skill', 'skillyard.cli.skill_cmds', '')\n"
            "heavy = [m for m in ('mkdocs', 'github', 'jinja2', 'material', 'whoosh', 'mcp') if m in sys.modules]\n"
            "print(','.join(heavy))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
