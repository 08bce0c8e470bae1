"""Issue 13 item 8: `skill install ./x.zip|./x.tar.gz|./x.tgz` (design 001 §8.1) - a skill at the archive's top
or in its single top folder installs; several skills ask for `ARCHIVE/folder`; the lock records the archive and
`skill install` alone restores from it."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

SKILL = "---\nname: zipped\ndescription: Comes in an archive.\n---\nUse it.\n"


def make_zip(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def make_tar(path: Path, members: dict[str, bytes | str], *, mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as tf:
        for name, data in members.items():
            raw = data.encode() if isinstance(data, str) else data
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            info.mode = 0o755 if name.endswith(".sh") else 0o644
            tf.addfile(info, io.BytesIO(raw))
    return path


def canonical(user_home: Path, name: str) -> Path:
    return user_home / ".agents" / "skills" / name


def test_a_zip_with_the_skill_at_its_top_installs(tmp_path, skill_cli, user_home):
    archive = make_zip(tmp_path / "zipped.zip", {"SKILL.md": SKILL, "references/a.md": "# A\n"})
    result = skill_cli("install", str(archive), "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)["skills"][0]
    assert outcome["name"] == "zipped" and outcome["source"]["type"] == "local"
    assert (canonical(user_home, "zipped") / "references" / "a.md").read_text() == "# A\n"


def test_a_tarball_with_one_top_folder_installs_keeping_the_executable_bit(tmp_path, skill_cli, user_home):
    archive = make_tar(tmp_path / "release.tgz", {"zipped/SKILL.md": SKILL, "zipped/scripts/run.sh": "echo hi\n"})
    result = skill_cli("install", str(archive))
    assert result.code == 0, result.err
    script = canonical(user_home, "zipped") / "scripts" / "run.sh"
    assert script.read_text() == "echo hi\n" and script.stat().st_mode & 0o111


def test_several_skills_ask_for_one_and_the_folder_picks_it(tmp_path, skill_cli, user_home):
    other = SKILL.replace("name: zipped", "name: other")
    archive = make_zip(tmp_path / "bundle.zip", {"skills/zipped/SKILL.md": SKILL, "skills/other/SKILL.md": other})
    result = skill_cli("install", str(archive))
    assert result.code != 0 and "Traceback" not in result.err
    assert "several skills" in result.err and "skills/other" in result.err and "bundle.zip/" in result.err
    assert not (user_home / ".agents").exists()
    result = skill_cli("install", f"{archive}/skills/other")
    assert result.code == 0, result.err
    assert canonical(user_home, "other").is_dir() and not canonical(user_home, "zipped").exists()


def test_an_archive_install_is_locked_and_restored(tmp_path, skill_cli, monkeypatch):
    archive = make_tar(tmp_path / "zipped.tar.gz", {"SKILL.md": SKILL})
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert skill_cli("install", str(archive), "--project").code == 0
    locked = (project / "skills.lock.json").read_text()
    assert json.loads(locked)["skills"]["zipped"]["resolved_source"]["type"] == "local"
    assert skill_cli("uninstall", "zipped", "--project").code == 0
    (project / "skills.lock.json").write_text(locked)
    result = skill_cli("install", "--project")
    assert result.code == 0, result.err
    assert (project / ".agents" / "skills" / "zipped" / "SKILL.md").read_text() == SKILL


def test_a_file_that_is_no_archive_is_a_clear_error(tmp_path, skill_cli, user_home):
    bogus = tmp_path / "bogus.zip"
    bogus.write_bytes(b"not an archive at all")
    result = skill_cli("install", str(bogus))
    assert result.code != 0 and "Traceback" not in result.err and "bogus.zip" in result.err
    assert not (user_home / ".agents").exists()
