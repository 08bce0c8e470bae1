"""One story about strictness (issue 35 item 4): `skill validate` says which mode it ran and what a registry's CI
(strict mode) will say, and `skill init` writes what its help promises."""

import json

from skillyard.cli.skill_cmds import init as init_cmd


def test_lenient_validate_says_what_strict_will_say(skill_cli, tmp_path):
    assert skill_cli("init", "demo-skill", "--dir", str(tmp_path)).code == 0  # placeholder description
    folder = str(tmp_path / "demo-skill")
    lenient = skill_cli("validate", folder)
    assert lenient.code == 0
    assert "valid (lenient mode)" in lenient.out
    assert "strict mode (what a registry's CI runs) refuses it" in lenient.out and "placeholder-description" in lenient.out
    strict = skill_cli("validate", folder, "--strict")
    assert strict.code == 1 and "(strict mode)" in strict.out
    report = json.loads(skill_cli("validate", folder, "--json").out)
    assert report["ok"] is True and report["strict_ok"] is False and report["mode"] == "lenient"


def test_init_with_a_description_passes_strict_as_its_help_says(skill_cli, tmp_path):
    assert "with --description it passes strict validation" in init_cmd.HELP
    made = skill_cli("init", "tidy-notes", "--dir", str(tmp_path), "--description",
                     "Tidies meeting notes into decisions and action items. Use when the user shares raw notes.")
    assert made.code == 0, made.err
    strict = skill_cli("validate", str(tmp_path / "tidy-notes"), "--strict")
    assert strict.code == 0, strict.out + strict.err
    lenient = skill_cli("validate", str(tmp_path / "tidy-notes"))
    assert "strict mode (what a registry's CI runs) accepts it too" in lenient.out
