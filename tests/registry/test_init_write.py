"""How `init-registry` puts files on disk when another program works in the same folder: a name is claimed before
the finished registry is moved in, so nothing another program made there is ever replaced, and a folder standing
where one of the registry's files goes is refused before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillyard.cli.main import skillyard_main
from skillyard.errors import UsageError
from skillyard.registry import init

FILES = {"README.md": b"# reg\n", "skills/a/SKILL.md": b"---\nname: a\ndescription: d\n---\n"}


def test_a_folder_made_just_before_the_rename_is_never_replaced(tmp_path, monkeypatch):
    """The other program wins the race at the last moment: whatever is at the name then must be ours (claimed),
    so their folder can only appear before the claim, which refuses."""
    target = tmp_path / "reg"
    real_rename = os.rename
    seen = []

    def racing_rename(src, dst):
        seen.append(os.path.lexists(dst))
        if not os.path.lexists(dst):  # nothing claimed the name: an attacker's empty folder appears now
            os.mkdir(dst)
            seen.append("made")
        return real_rename(src, dst)

    monkeypatch.setattr(init.os, "rename", racing_rename)
    init.write_registry(target, FILES)
    assert seen == [True], "the name was not claimed before the finished registry was renamed over it"
    assert (target / "README.md").read_bytes() == b"# reg\n"


def test_a_name_taken_meanwhile_is_refused_and_nothing_is_left(tmp_path, monkeypatch):
    target = tmp_path / "reg"
    real_tree = init._write_tree

    def then_someone_makes_it(root, files):
        real_tree(root, files)
        target.symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    monkeypatch.setattr(init, "_write_tree", then_someone_makes_it)
    with pytest.raises(UsageError, match="created meanwhile"):
        init.write_registry(target, FILES)
    assert target.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["reg"]


def test_a_claimed_folder_filled_by_another_program_keeps_their_files(tmp_path, monkeypatch):
    target = tmp_path / "reg"
    real_mkdir = os.mkdir

    def claim_then_filled(path, mode=0o777):
        real_mkdir(path, mode)
        if Path(path) == target:
            Path(path, "theirs.txt").write_text("theirs\n")

    monkeypatch.setattr(init.os, "mkdir", claim_then_filled)
    with pytest.raises(UsageError, match="changed by another program"):
        init.write_registry(target, FILES)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reg"]
    assert [p.name for p in target.iterdir()] == ["theirs.txt"]


def test_force_refuses_a_folder_where_a_file_goes_and_writes_nothing(tmp_path, capsys):
    target = tmp_path / "clone"
    (target / "README.md").mkdir(parents=True)
    (target / "README.md" / "notes.txt").write_text("mine\n")
    code = skillyard_main(["init-registry", str(target), "--force", "--json"])
    err = capsys.readouterr().err
    assert code != 0 and "is a folder where" in err and "README.md" in err
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*")) == ["README.md", "README.md/notes.txt"]


def test_force_still_reports_existing_files_as_kept(tmp_path, capsys):
    target = tmp_path / "clone"
    target.mkdir()
    (target / "README.md").write_text("mine\n")
    assert skillyard_main(["init-registry", str(target), "--force", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kept"] == ["README.md"]
