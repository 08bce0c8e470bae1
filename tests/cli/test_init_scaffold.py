"""`skill init` without --description writes a scaffold that strict validation refuses until the placeholder is
replaced (so it can never be published as is), and a path given as the name gets the `--dir` answer."""

from __future__ import annotations

import json

from skillyard.cli.main import skill_main, skillyard_main
from skillyard.format import Policy, load_skill


def test_the_placeholder_description_fails_strict_validation_until_replaced(tmp_path, capsys):
    assert skill_main(["init", "tidy-notes", "--dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is True and out["to_write"] == ["description"]
    folder = tmp_path / "tidy-notes"
    assert skillyard_main(["validate", "--strict", str(folder)]) == 1
    assert "[placeholder-description]" in capsys.readouterr().out
    lenient = load_skill(folder, Policy(strict=False))
    assert lenient.valid and [f.rule for f in lenient.findings if f.rule == "placeholder-description"]
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    (folder / "SKILL.md").write_text(text.replace(
        "Describe what tidy-notes does. Use when the user asks for tidy notes.",
        "Turns rough meeting notes into a tidy summary. Use when the user pastes notes."), encoding="utf-8")
    assert skillyard_main(["validate", "--strict", str(folder)]) == 0


def test_a_given_description_is_not_a_placeholder(tmp_path, capsys):
    assert skill_main(["init", "tidy-notes", "--dir", str(tmp_path), "--json", "--description",
                       "Turns rough meeting notes into a tidy summary. Use when the user pastes notes."]) == 0
    assert json.loads(capsys.readouterr().out)["to_write"] == []
    assert skillyard_main(["validate", "--strict", str(tmp_path / "tidy-notes")]) == 0


def test_a_path_as_the_name_is_answered_with_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert skill_main(["init", "skills/tidy-notes"]) == 2
    err = capsys.readouterr().err
    assert "skill init tidy-notes --dir skills" in err and "Rename it" not in err
    assert skill_main(["init", "Bad_Name"]) == 2
    assert "Rename it" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
