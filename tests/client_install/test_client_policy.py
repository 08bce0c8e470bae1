"""Issue 12 item 5: install limits are the client's own; tolerated standard violations warn, `--strict` refuses.
Safety findings (paths, links, invisible characters, ...) stay errors whatever the policy."""

from __future__ import annotations

import json
from pathlib import Path

MIB = 1024 * 1024


def make_skill(root: Path, name: str, *, description: str = "Does one thing well.", extra: dict | None = None,
               folder: str | None = None) -> Path:
    path = root / (folder or name)
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nDo the thing.\n")
    for rel, data in (extra or {}).items():
        (path / rel).write_bytes(data)
    return path


def installed(user_home: Path, name: str) -> Path:
    return user_home / ".claude" / "skills" / name


def test_long_description_installs_with_a_warning(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "long-desc", description="x" * 1500)
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    warnings = json.loads(result.out)["skills"][0]["warnings"]
    assert any("1500 characters" in w and "--strict" in w for w in warnings), warnings
    assert (installed(user_home, "long-desc") / "SKILL.md").is_file()


def test_long_description_is_refused_with_strict(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "long-desc", description="x" * 1500)
    result = skill_cli("install", str(source), "--strict")
    assert result.code != 0
    assert "1500 characters" in result.err and "without --strict" in result.err
    assert "Traceback" not in result.err
    assert not installed(user_home, "long-desc").exists()


def test_strict_from_config_refuses(tmp_path, skill_cli, user_home, configure):
    configure("install.strict", True)
    source = make_skill(tmp_path / "src", "long-desc", description="x" * 1500)
    assert skill_cli("install", str(source)).code != 0
    assert not installed(user_home, "long-desc").exists()


def test_name_unlike_its_folder_warns(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "plain-name", folder="Some_Folder")
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    warnings = json.loads(result.out)["skills"][0]["warnings"]
    assert any("Some_Folder" in w for w in warnings), warnings
    assert installed(user_home, "plain-name").is_dir()
    assert skill_cli("install", str(source), "--strict", "--force").code != 0


def test_uppercase_name_is_refused_with_a_fix(tmp_path, skill_cli, user_home):
    """The name becomes the installed folder: the store's lowercase rule is safety (case-insensitive disks)."""
    source = make_skill(tmp_path / "src", "Odd-Name")
    result = skill_cli("install", str(source))
    assert result.code != 0 and "Traceback" not in result.err
    assert "`name`" in result.err and "odd-name" in result.err
    assert not (user_home / ".claude" / "skills").exists() or not any((user_home / ".claude" / "skills").iterdir())


def test_seven_mib_installs_but_the_registry_refuses_to_publish(tmp_path, skill_cli, user_home):
    from skillyard.format import Policy, load_skill

    parts = {f"data{i}.txt": b"a" * (MIB - 10) + b"\n" for i in range(7)}
    source = make_skill(tmp_path / "src", "big-skill", extra=parts)
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    assert (installed(user_home, "big-skill") / "data6.txt").stat().st_size == MIB - 9
    registry = load_skill(source, Policy())  # the registry's publishing policy: 5 MiB in total
    assert not registry.valid and "package-too-large" in {f.rule for f in registry.errors}


def test_thirty_mib_is_refused_naming_the_config_key(tmp_path, skill_cli, user_home):
    parts = {f"data{i}.txt": b"a" * (8 * MIB - 1) + b"\n" for i in range(4)}
    source = make_skill(tmp_path / "src", "huge-skill", extra=parts)
    result = skill_cli("install", str(source))
    assert result.code != 0
    assert "install.max_total_bytes" in result.err and "Traceback" not in result.err
    assert not installed(user_home, "huge-skill").exists()


def test_the_limit_is_configurable(tmp_path, skill_cli, user_home, configure, monkeypatch):
    source = make_skill(tmp_path / "src", "mid-skill", extra={"data.txt": b"a" * (2 * MIB)})
    monkeypatch.setenv("SKILL_INSTALL_MAX_TOTAL_BYTES", str(MIB))
    result = skill_cli("install", str(source))
    assert result.code != 0 and "install.max_total_bytes" in result.err
    monkeypatch.delenv("SKILL_INSTALL_MAX_TOTAL_BYTES")
    configure("install.max_files", 1)
    result = skill_cli("install", str(source))
    assert result.code != 0 and "install.max_files" in result.err
    assert not installed(user_home, "mid-skill").exists()


def test_safety_findings_stay_errors_without_strict(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "sneaky", description="Looks fine\u200b here.")
    result = skill_cli("install", str(source))
    assert result.code != 0 and "Traceback" not in result.err
    assert not installed(user_home, "sneaky").exists()


def test_bad_config_value_is_a_clear_error(tmp_path, skill_cli, user_home, configure):
    configure("install.strict", "maybe")
    source = make_skill(tmp_path / "src", "plain")
    result = skill_cli("install", str(source))
    assert result.code != 0 and "install.strict" in result.err and "Traceback" not in result.err
