"""`skill init` writes only what strict validation accepts, or refuses before writing anything: with the message
naming the flag to change, a non-zero exit, and no folder left behind."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skillyard.cli.main import skill_main, skillyard_main
from skillyard.format.package import load_skill
from skillyard.format.policy import Policy

SLUG = st.from_regex(r"[a-z0-9]{1,12}(-[a-z0-9]{1,8}){0,3}", fullmatch=True)
NAMES = st.one_of(SLUG, SLUG, st.text(min_size=1, max_size=20))
WORDS = st.sampled_from(["Use", "when:", "#tag", "'q'", '"dq"', "é", "日本", "a: b", "x" * 60,
                         "\n", "  ", "\t", "🙂", "Fill", "and", "merge", "forms."])
SIZED_WORDS = st.integers(0, 150).flatmap(lambda n: st.lists(WORDS, min_size=n, max_size=n))
TEXT = st.one_of(SIZED_WORDS.map(" ".join), SIZED_WORDS.map(" ".join), st.text(min_size=0, max_size=1100))


def _init(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = skill_main(argv)
    except SystemExit as exc:  # argparse refuses some arguments (a NUL character) itself
        code = exc.code
    out, err = capsys.readouterr()
    return code, out + err


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES, description=TEXT)
def test_init_writes_a_strictly_valid_folder_or_nothing(capsys, name, description):
    with tempfile.TemporaryDirectory() as scratch:
        parent = Path(scratch) / "skills"
        code, text = _init(["init", "--", name, f"--description={description}", "--dir", str(parent)]
                           if name.startswith("-") else
                           ["init", name, f"--description={description}", "--dir", str(parent)], capsys)
        event(f"exit {code}, description over 500 characters: {len(description) > 500}")
        if code == 0:
            package = load_skill(parent / name, Policy(strict=True, required_fields=("version", "license", "tags")))
            assert package.valid, [f.to_dict() for f in package.findings if f.is_error]
            assert package.data["description"] == description
        else:
            assert text.strip() and "Traceback" not in text
            assert not parent.exists() or not any(parent.iterdir())


def test_a_description_over_500_characters_is_folded_and_strictly_valid(tmp_path, capsys):
    description = ("Fill and merge PDF forms: use when the user asks about #forms or 'fields'. " * 12)[:1024].strip()
    assert skill_main(["init", "pdf-forms", "--description", description, "--dir", str(tmp_path)]) == 0
    frontmatter = (tmp_path / "pdf-forms" / "SKILL.md").read_text(encoding="utf-8").split("---\n")[1]
    assert "description: >-\n" in frontmatter and max(len(line) for line in frontmatter.split("\n")) <= 100
    capsys.readouterr()
    assert skillyard_main(["validate", "--strict", str(tmp_path / "pdf-forms")]) == 0, capsys.readouterr()


def test_a_description_over_the_limit_is_refused_before_writing(tmp_path, capsys):
    assert skill_main(["init", "pdf-forms", "--description", "x " * 600, "--dir", str(tmp_path / "new")]) == 2
    err = capsys.readouterr().err
    assert "--description" in err and "1,024" in err and "Nothing was written" in err
    assert not (tmp_path / "new").exists()


def test_a_value_strict_validation_refuses_names_its_flag(tmp_path, capsys):
    assert skill_main(["init", "pdf-forms", "--description", "Fills <b>forms</b>.", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--description" in err and "angle-bracket" in err
    assert skill_main(["init", "pdf-forms", "--version", "1.2", "--dir", str(tmp_path)]) == 2
    assert "--version" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
