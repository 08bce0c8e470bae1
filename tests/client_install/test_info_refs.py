"""Issue 13 item 3: `skill info REF` takes every ref `skill install` takes (registry name, github:, a folder, an
archive), through the same resolution, shows the same fields (+ --json), and writes nothing."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

SKILL_MD = "---\nname: shown\ndescription: Shown by info.\nlicense: MIT\n---\nUse {{inputs.team}}.\n"
MANIFEST = ('schema_version: "1.0"\nversion: "1.4.0"\ntags: [reports]\n'
            'inputs:\n  - name: team\n    type: string\n    required: true\n    description: Team name\n')


def make_folder(root: Path) -> Path:
    folder = root / "shown"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "skill.yaml").write_text(MANIFEST)
    (folder / "scripts" / "run.py").write_text("print('hi')\n")
    return folder


def check_json(result, *, source_type: str) -> dict:
    assert result.code == 0, result.err
    info = json.loads(result.out)
    assert set(info) >= {"source", "skill", "versions", "stale", "registry"}
    skill = info["skill"]
    assert skill["name"] == "shown" and skill["version"] == "1.4.0" and skill["license"] == "MIT"
    assert skill["tags"] == ["reports"] and [i["name"] for i in skill["inputs"]] == ["team"]
    assert {f["path"] for f in skill["files"]} == {"SKILL.md", "skill.yaml", "scripts/run.py"}
    assert info["source"]["type"] == source_type
    return info


def test_info_on_a_folder(tmp_path, skill_cli, user_home):
    folder = make_folder(tmp_path / "src")
    check_json(skill_cli("info", str(folder), "--json"), source_type="local")
    text = skill_cli("info", str(folder))
    assert text.code == 0, text.err
    assert "shown 1.4.0" in text.out and "team (string, required): Team name" in text.out
    assert f"skill install {folder}" in text.out
    assert not (user_home / ".agents").exists() and not (user_home / ".claude").exists()


def test_info_on_an_archive(tmp_path, skill_cli, user_home):
    folder = make_folder(tmp_path / "src")
    archive = tmp_path / "shown.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, f"shown/{path.relative_to(folder).as_posix()}")
    check_json(skill_cli("info", str(archive), "--json"), source_type="local")
    assert not (user_home / ".agents").exists()


def test_info_on_a_github_ref(git_server, skill_cli, user_home):
    git_server.create_repo("acme", "shown", {"SKILL.md": SKILL_MD, "skill.yaml": MANIFEST,
                                             "scripts/run.py": "print('hi')\n"})
    info = check_json(skill_cli("info", "github:acme/shown", "--json"), source_type="github")
    assert info["source"]["url"] == "https://github.com/acme/shown" and len(info["source"]["commit"]) == 40
    text = skill_cli("info", "github:acme/shown")
    assert "shown 1.4.0  (source: github: https://github.com/acme/shown)" in text.out
    assert not (user_home / ".agents").exists()


def test_info_refuses_what_install_refuses(tmp_path, skill_cli):
    folder = make_folder(tmp_path / "src")
    (folder / "notes.md").write_text("hidden\u200bcharacter\n")
    (folder / "SKILL.md").write_text(SKILL_MD.replace("Shown by info.", "Shown\u200b by info."))
    result = skill_cli("info", str(folder))
    assert result.code != 0 and "Traceback" not in result.err


def test_info_on_a_registry_name_is_unchanged(registry, skill_cli):
    result = skill_cli("info", "report-kit", "--json")
    assert result.code == 0, result.err
    info = json.loads(result.out)
    assert info["source"]["name"] == "acme" and info["versions"][0]["selected"]
    assert "install: skill install report-kit@acme" in skill_cli("info", "report-kit").out


def test_source_with_a_non_registry_ref_is_a_usage_error(tmp_path, skill_cli):
    result = skill_cli("info", str(make_folder(tmp_path / "src")), "--source", "acme")
    assert result.code == 2 and "--source" in result.err
