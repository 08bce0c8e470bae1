"""A versionless skill installed from a folder is versioned by time (format/timeversion.py): the newest file's
modification time, the same for the same folder, and newer after a change, so `skill update` sees the change."""

from __future__ import annotations

import json
import os

from skillyard.client.update import version_key

SKILL = "---\nname: plain\ndescription: Does plain things. Use when plain things are needed.\n---\n\nSteps.\n"


def _folder(tmp_path, stamp: int):
    folder = tmp_path / "plain"
    (folder / "references").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (folder / "references" / "a.md").write_text("# A\n", encoding="utf-8")
    os.utime(folder / "SKILL.md", (stamp - 60, stamp - 60))
    os.utime(folder / "references" / "a.md", (stamp, stamp))
    return folder


def test_a_versionless_folder_installs_with_its_newest_file_time(tmp_path, skill_cli, user_home):
    folder = _folder(tmp_path, 1_767_323_045)  # 2026-01-02 03:04:05 UTC
    result = skill_cli("install", str(folder), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["skills"][0]["version"] == "0.0.20260102030405"
    lock = json.loads((user_home / ".agents" / "skills" / "plain" / "skill.lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == "0.0.20260102030405"
    (folder / "references" / "a.md").write_text("# A, better\n", encoding="utf-8")
    os.utime(folder / "references" / "a.md", (1_767_330_000, 1_767_330_000))  # 05:00:00 the same day
    result = skill_cli("update", "plain", "--json")
    assert result.code == 0, result.err
    (change,) = json.loads(result.out)["skills"]
    assert (change["from_version"], change["to_version"]) == ("0.0.20260102030405", "0.0.20260102050000")
    assert version_key(change["from_version"]) < version_key(change["to_version"])


def test_a_versionless_github_skill_installs_with_its_commit_time(git_server, skill_cli, user_home):
    """GitHub's tarballs give every file its commit's time: the same commit, the same version; a later commit, a
    higher one."""
    import subprocess

    git_server.create_repo("acme", "plain", {"SKILL.md": SKILL, "references/a.md": "# A\n"})
    stamp = subprocess.run(["git", "-C", str(git_server.repo_path("acme", "plain")), "log", "-1", "--format=%ct"],
                           capture_output=True, text=True, check=True).stdout.strip()
    from skillyard.format.timeversion import from_timestamp

    result = skill_cli("install", "github:acme/plain", "--json")
    assert result.code == 0, result.err
    version = json.loads(result.out)["skills"][0]["version"]
    assert version == from_timestamp(int(stamp)) and version.startswith("0.0.20")
    lock = json.loads((user_home / ".agents" / "skills" / "plain" / "skill.lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == version


def test_a_versionless_skill_from_an_archive_installs_with_its_newest_member_time(tmp_path, skill_cli):
    import io
    import zipfile

    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, text, when in (("plain/SKILL.md", SKILL, (2026, 1, 2, 3, 4, 4)),
                                 ("plain/references/a.md", "# A\n", (2026, 1, 2, 3, 4, 6))):
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)
    path = tmp_path / "plain.zip"
    path.write_bytes(data.getvalue())
    result = skill_cli("install", str(path), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["skills"][0]["version"] == "0.0.20260102030406"  # zip times have 2 s steps
