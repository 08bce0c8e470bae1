"""Issue 13 item 2: `skillyard validate .` and `skill validate .` inside a skill folder check it under its real
name, and no cache is ever written into the skill folder or the working directory."""

import os
import sys

import pytest

SKILL_MD = "---\nname: demo-skill\ndescription: Does a demo thing for tests. Use when testing.\n---\n# Demo\n\nBody.\n"


@pytest.fixture
def skill_dir(tmp_path, monkeypatch):
    folder = tmp_path / "work" / "demo-skill"
    (folder / "sub").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CI", raising=False)  # the check cache is only used outside CI
    return folder


def files(folder):
    return sorted(os.path.relpath(os.path.join(d, n), folder) for d, ds, fs in os.walk(folder) for n in ds + fs)


def run(main, argv, capsys):
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    sys.stdout.flush()
    return code, out + err


@pytest.mark.parametrize("where,ref", [("", "."), ("sub", ".."), ("..", "demo-skill/."), ("", "./")])
@pytest.mark.parametrize("prog", ["skill", "skillyard"])
def test_dot_is_the_real_folder_and_nothing_is_written(skill_dir, monkeypatch, capsys, prog, where, ref):
    from skillyard.cli.main import skill_main, skillyard_main

    monkeypatch.chdir(skill_dir / where)
    before, cwd_before = files(skill_dir), files(os.getcwd())
    code, text = run(skill_main if prog == "skill" else skillyard_main, ["validate", ref], capsys)
    assert "folder is named" not in text and "path-unsafe" not in text
    assert code == 0, text
    assert files(skill_dir) == before and files(os.getcwd()) == cwd_before
    assert not (skill_dir / ".skillyard-cache").exists() and not (skill_dir.parent / ".skillyard-cache").exists()


def test_wrong_name_is_still_reported_with_the_real_name(skill_dir, monkeypatch, capsys):
    from skillyard.cli.main import skillyard_main

    renamed = skill_dir.with_name("other-name")
    skill_dir.rename(renamed)
    monkeypatch.chdir(renamed)
    code, text = run(skillyard_main, ["validate", "."], capsys)
    assert code == 1 and "the folder is named 'other-name'" in text


def test_lone_folder_cache_goes_to_the_user_cache(skill_dir, tmp_path, monkeypatch, capsys):
    from skillyard.cli.main import skillyard_main

    monkeypatch.chdir(skill_dir)
    assert run(skillyard_main, ["validate", "."], capsys)[0] == 0
    cached = list((tmp_path / "xdg" / "skillyard" / "validate").rglob("skills.sqlite"))
    assert len(cached) == 1
    assert run(skillyard_main, ["validate", "."], capsys)[0] == 0  # the second run reuses it
    assert files(skill_dir) == ["SKILL.md", "sub"]


def test_registry_cache_stays_at_the_registry_root(skill_dir, tmp_path, monkeypatch, capsys):
    from skillyard.cli.main import skillyard_main

    root = tmp_path / "reg"
    (root / "skills").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.skillyard]\nname = "reg"\n', encoding="utf-8")
    skill_dir.rename(root / "skills" / "demo-skill")
    monkeypatch.chdir(root)
    code, text = run(skillyard_main, ["validate", "--lenient", "skills/demo-skill/."], capsys)
    assert code == 0, text
    assert (root / ".skillyard-cache" / "skills.sqlite").is_file()
    assert files(root / "skills" / "demo-skill") == ["SKILL.md", "sub"]
