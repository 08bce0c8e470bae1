"""Every example skill is strictly valid, and every script is a working CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from skillyard.format import Policy, load_skill

SKILLS_DIR = Path(__file__).resolve().parents[2] / "skills"


def skill_folders() -> list[Path]:
    # pointer folders (source.yaml) hold no content here; their upstream content is checked when added
    return sorted(p for p in SKILLS_DIR.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and not (p / "source.yaml").is_file())


def script_paths() -> list[Path]:
    return sorted(SKILLS_DIR.glob("*/scripts/*.py"))


STRICT = Policy(strict=True, required_fields=("version", "license", "tags"))
INPUT_TYPES = {"string", "number", "boolean", "enum", "json"}


@pytest.fixture(scope="module")
def packages():
    return {folder.name: load_skill(folder, STRICT) for folder in skill_folders()}


def test_there_are_at_least_twelve_skills(packages):
    assert len(packages) >= 12


@pytest.mark.parametrize("folder", skill_folders(), ids=lambda p: p.name)
def test_skill_is_strictly_valid_without_warnings(folder):
    package = load_skill(folder, STRICT)
    problems = [f for f in package.findings if str(f.severity) in ("error", "warning")]
    assert package.valid, [f.to_dict() for f in package.findings]
    assert problems == [], [f.to_dict() for f in problems]
    assert package.name == folder.name
    assert package.data["author"] == "skillyard"
    assert package.data["maintainers"]
    assert package.data["license"] == "MIT"
    body_lines = package.body.strip().count("\n") + 1
    assert 40 <= body_lines <= 220, body_lines


def test_names_are_unique(packages):
    names = [p.name for p in packages.values()]
    assert len(names) == len(set(names))


def test_the_set_covers_every_feature(packages):
    datas = [p.data for p in packages.values()]
    input_types = {i["type"] for d in datas for i in d.get("inputs", [])}
    assert input_types == INPUT_TYPES
    required = {dep["required"] for d in datas for dep in d.get("mcp_deps", [])}
    assert required == {True, False}
    caps = {c for d in datas for c in d.get("capabilities", [])}
    assert {"read-file", "write-file", "http-request", "execute-code"} <= caps
    assert sum(p.inventory["has_scripts"] for p in packages.values()) >= 5
    assert sum(p.inventory["has_references"] for p in packages.values()) >= 3
    assert any("pdf" in name for name in packages)


def test_references_mentioned_in_body_exist(packages):
    for package in packages.values():
        for ref in package.inventory["reference_files"] + package.inventory["script_files"]:
            assert ref in package.body, f"{package.name}: the body never points the agent at {ref}"


def test_invoice_processor_contract(packages):
    data = packages["invoice-processor"].data
    assert "处理发票" in data["description"]
    assert {"finance", "invoice", "ocr", "pdf"} <= set(data["tags"])
    inputs = {i["name"]: i for i in data["inputs"]}
    assert inputs["target_collection"]["default"] == "invoices"
    assert inputs["confirm_threshold"] == {**inputs["confirm_threshold"], "type": "number", "default": 10000}
    assert inputs["output_language"]["enum"] == ["zh-CN", "en-US"]
    assert inputs["output_language"]["default"] == "zh-CN"
    deps = {d["tool"]: d["required"] for d in data["mcp_deps"]}
    assert deps == {"ocr.recognize": True, "kb.upload": True, "kb.search": False, "doc.excel_create": False}
    assert data["capabilities"] == ["read-file", "http-request"]


@pytest.mark.parametrize("script", script_paths(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_script_help_works(script):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, str(script.relative_to(script.parent.parent)), "--help"],
                          cwd=script.parent.parent, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


@pytest.mark.parametrize("script", script_paths(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_script_imports_only_the_standard_library(script):
    import ast

    tree = ast.parse(script.read_text(encoding="utf-8"))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert modules <= set(sys.stdlib_module_names) | {"__future__"}, modules


def test_no_bytecode_left_in_skills():
    assert not list(SKILLS_DIR.glob("**/__pycache__"))


def test_skillyard_validate_cli_accepts_the_whole_folder_strictly():
    code = "import sys; from skillyard.cli.main import skillyard_main; sys.exit(skillyard_main())"
    done = subprocess.run([sys.executable, "-c", code, "validate", str(SKILLS_DIR), "--strict", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    import json

    report = json.loads(done.stdout)
    assert report["ok"] is True
    pointers = [p for p in SKILLS_DIR.iterdir() if (p / "source.yaml").is_file()]
    assert len(report["skills"]) == len(skill_folders()) + len(pointers)  # pointers are validated from their facts
