"""registry.collect: the real path of a folder given on the command line, computed once per parent folder, is
exactly `os.path.realpath`'s, links and dot-parts included, and skills reached through a link keep their
repository path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given as hypothesis_given
from hypothesis import strategies as st

from skillyard.errors import SkillyardError
from skillyard.registry.collect import _path_string, _real_path, collect
from skillyard.registry.config import load_registry_config


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "link-to-b").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "rel-to-a").symlink_to("a")
    (tmp_path / "a" / "up").symlink_to("..")
    return tmp_path


@pytest.mark.parametrize("path", ["a/b", "link-to-b", "rel-to-a/b", "a/../a/b", "a/up/a/b", "a/up", "missing",
                                  "a/b/", ".", "..", "a//b", "rel-to-a"])
def test_real_path_is_realpaths(tree: Path, path: str, monkeypatch) -> None:
    monkeypatch.chdir(tree)
    parents: dict[str, str] = {}
    for given in (path, str(tree / path)):
        assert _real_path(given, parents) == os.path.realpath(given)
        assert _real_path(given, parents) == os.path.realpath(given)  # again, from the remembered parent


def test_skills_given_through_a_link_get_their_repository_paths(tmp_path: Path) -> None:
    root = tmp_path / "registry"
    for name in ("one", "two"):
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "two").symlink_to(root / "skills" / "two")
    config = load_registry_config(root)
    given = [str(root / "skills" / "one"), str(tmp_path / "outside" / "two"), str(tmp_path / "outside")]
    rels = [rel for _, rel in collect(root, config, given, nested=True)]
    assert rels == ["skills/one", "skills/two"]


def test_many_paths_scanned_by_several_processes_give_the_same_list(tmp_path: Path, monkeypatch) -> None:
    """Hundreds of paths are scanned by forked processes: the list (and which spelling of a folder wins when two
    paths reach the same skill) is the one a scan in this process gives."""
    from skillyard.registry import collect as collect_module

    root = tmp_path / "registry"
    given = []
    for index in range(40):
        folder = root / "skills" / f"s{index:02d}"
        (folder / "inner").mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: s{index:02d}\ndescription: d\n---\n")
        if index % 5 == 0:
            (folder / "inner" / "SKILL.md").write_text("---\nname: inner\ndescription: d\n---\n")
        given.append(str(folder))
    (tmp_path / "alias").symlink_to(root / "skills")
    given += [str(tmp_path / "alias" / "s03"), str(root / "skills" / "s00" / "inner")]
    config = load_registry_config(root)
    serial = collect(root, config, given, nested=True)
    monkeypatch.setattr(collect_module, "MANY_TOPS", 2)
    monkeypatch.setattr(collect_module.os, "cpu_count", lambda: 2)
    assert collect(root, config, given, nested=True) == serial
    assert len(serial) == 40 + 8
    with pytest.raises(SkillyardError, match="no such folder"):
        collect(root, config, [*given, str(root / "missing")], nested=True)


@hypothesis_given(st.text(alphabet="/.a-é ~", max_size=24))
def test_path_strings_are_what_path_makes_of_them(path):
    """The short cut for paths given already in normal form changes nothing: `str(Path(path))` for every string."""
    assert _path_string(path) == str(Path(path))
    assert _path_string(Path(path)) == str(Path(path))
