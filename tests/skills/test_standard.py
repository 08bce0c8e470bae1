"""Our skills are portable Agent Skills: the reference validator accepts each folder, SKILL.md holds only the
standard's keys (the registry data lives in skill.yaml), and every skill installs by name with no --input, so a
third-party client that never asks for inputs gets a complete skill too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from skills_ref import read_properties, validate
from tests.support.fixtures import *  # noqa: F403
from tests.support.registry import registry_url

SKILLS_DIR = Path(__file__).resolve().parents[2] / "skills"
SPEC_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
PLACEHOLDER = re.compile(r"\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")
# our own skills; pointer folders (source.yaml) hold no content here, theirs is checked when added
FOLDERS = sorted(p for p in SKILLS_DIR.iterdir()
                 if p.is_dir() and not p.name.startswith(".") and not (p / "source.yaml").is_file())


def frontmatter_and_body(folder: Path) -> tuple[dict, str]:
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    _, head, body = text.split("---\n", 2)
    return yaml.safe_load(head), body


def manifest(folder: Path) -> dict:
    return yaml.safe_load((folder / "skill.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_the_reference_validator_accepts_the_folder(folder):
    assert validate(folder) == []
    assert read_properties(folder).name == folder.name


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_skill_md_has_only_standard_keys_in_block_style(folder):
    head, _ = frontmatter_and_body(folder)
    assert set(head) <= SPEC_KEYS, set(head) - SPEC_KEYS
    raw = (folder / "SKILL.md").read_text(encoding="utf-8").split("---\n", 2)[1]
    assert not re.search(r":\s*[\[{]", raw), "flow-style YAML in the frontmatter"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_skill_yaml_carries_the_registry_data_without_repeating_the_frontmatter(folder):
    data = manifest(folder)
    assert data["schema_version"] == "1.0"
    assert {"version", "display-name", "author", "maintainers", "tags", "capabilities"} <= set(data)
    head, _ = frontmatter_and_body(folder)
    assert not set(head) & set(data), "a field is in both files; keep one home for it"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_every_input_is_an_install_setting_with_a_default(folder):
    inputs = {i["name"]: i for i in manifest(folder).get("inputs") or []}
    for name, spec in inputs.items():
        assert "default" in spec and not spec.get("required"), f"{name} must have a default and not be required"
    _, body = frontmatter_and_body(folder)
    used = set(PLACEHOLDER.findall(body))
    assert used <= set(inputs), used - set(inputs)
    assert set(inputs) <= used, f"declared but never used in the body: {set(inputs) - used}"


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_placeholders_only_appear_in_the_settings_list_with_their_default_spelled_out(folder):
    """Read raw (a client that does not render inputs), each placeholder sits on a settings line that also
    names the default in plain words, and no command line depends on a placeholder."""
    _, body = frontmatter_and_body(folder)
    defaults = {i["name"]: i["default"] for i in manifest(folder).get("inputs") or []}
    for line in body.splitlines():
        for name in PLACEHOLDER.findall(line):
            assert line.startswith("- "), f"placeholder outside the settings list: {line!r}"
            shown = json.dumps(defaults[name]) if isinstance(defaults[name], (bool, list, dict)) else str(
                defaults[name])
            assert shown in line, f"{name}: the line does not say the default {shown}: {line!r}"
    if defaults:
        assert "placeholder" in body, "the body should say what to do when settings are shown raw"


def test_install_by_name_into_a_project_needs_no_input(git_server, skill_home, skill_cli, tmp_path, monkeypatch):
    """Build a registry from these skill folders, serve it, and install every skill by name with no --input."""
    from skillyard.cli.main import skillyard_main
    from skillyard.client.config import Source, edit

    monkeypatch.setenv("SKILL_CACHE_TTL", "0")
    files = {f"skills/{p.relative_to(SKILLS_DIR).as_posix()}": p.read_bytes()
             for folder in FOLDERS for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}
    files["skillyard.toml"] = 'name = "acme"\nrepository = "acme/skills"\n'
    git_server.create_repo("acme", "skills", files)
    repo = git_server.repo_path("acme", "skills")
    assert skillyard_main(["build", "--root", str(repo)]) == 0
    git_server.commit("acme", "skills", {"registry.json": (repo / "registry.json").read_text()}, message="build")
    with edit() as config:
        config.put_source(Source("acme", registry_url(git_server, "acme", "skills"), None, config.next_priority()))
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    for folder in FOLDERS:
        # No MCP hub runs here: a skill that requires MCP tools skips that check (tests/client_install covers it).
        needs_hub = any(dep["required"] for dep in manifest(folder).get("mcp_deps") or [])
        result = skill_cli("install", folder.name, "--project", "--json", *(["--skip-deps-check"] * needs_hub))
        assert result.code == 0, f"{folder.name}: {result.err}"
        installed = project / ".agents" / "skills" / folder.name
        text = (installed / "SKILL.md").read_text(encoding="utf-8")
        assert not PLACEHOLDER.search(text), f"{folder.name}: a placeholder was left unrendered"
        assert validate(installed) == [], folder.name
    lock = json.loads((project / "skills.lock.json").read_text())
    assert sorted(lock["skills"]) == [p.name for p in FOLDERS]
