"""`skillyard migrate --to-standard` never makes a skill worse: a skill the lenient check accepts comes out accepted
by the lenient and the strict check (but for rules a conversion cannot fix, which it lists), its body byte for
byte; long values are folded, not refused; a result its own check refuses is never written; a batch walks folders
the way `validate` does and says what it converted, left alone and refused."""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skillyard.cli.main import skillyard_main
from skillyard.format.frontmatter import MAX_LINE_CHARS
from skillyard.format.package import load_skill
from skillyard.format.policy import Policy
from skillyard.registry.migrate import MIGRATE_FIXES, outcome, plan_migration, raw_body

BODY = "# Tool\r\n\nKeep this CRLF and these trailing spaces.   \n\n---\n\nname: not frontmatter\n"
# `frontmatter-line-too-long` is being made a lenient warning (branch `floor`); until then a long one-line
# description is an error in both modes, yet exactly what migrate must fold, so it does not count against the input.
NOT_AGAINST_THE_INPUT = {"frontmatter-line-too-long"}

WORD = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp", "Cf", "Co", "Cn"),
                             exclude_characters="<>"), min_size=1, max_size=12)
TOKEN = st.one_of(WORD, st.sampled_from(["#", "#tag", "Use when:", "a: b", "'", '"', "it's", "-", "é", "日本語", "🙂",
                                         "%", "@", "`x`", "[x]", "{y}", "!", "&", "*", "|", ">-", "<b>"]))


@st.composite
def descriptions(draw) -> str:
    words = draw(st.lists(TOKEN, min_size=1, max_size=250))
    text = " ".join(words)
    if draw(st.booleans()):  # often a long one: 501-1,024 characters
        filler = draw(st.lists(st.sampled_from(["Use", "when:", "#notes", "'quoted'", "\"dq\"", "ünïcødé", "x"]),
                               min_size=200, max_size=200))
        text = (text + " " + " ".join(filler))[:draw(st.integers(501, 1024))].rstrip()
    return text[:1024].rstrip() or "x"


def _frontmatter(name: str, description: str, style: str, extras: list[str]) -> str:
    if style == "folded" and "\n" not in description:
        lines = textwrap.wrap(description, 80, break_long_words=False, break_on_hyphens=False)
        value = ">-\n" + "".join(f"  {line}\n" for line in lines)
        if " ".join(lines) != description:  # runs of spaces: write it quoted instead
            value = json.dumps(description, ensure_ascii=False) + "\n"
    else:
        value = json.dumps(description, ensure_ascii=False) + "\n"
    return f"---\nname: {name}\ndescription: {value}" + "".join(extras) + f"---\n{BODY}"


EXTRAS = st.lists(st.sampled_from(['version: "1.2.0"\n', "tags: [a, b]\n", "license: MIT\n", "author: ada\n",
                                   "metadata: {owner: ops, internal: true}\n", "allowed-tools: [Read, Grep]\n",
                                   "homepage: https://example.org/x\n"]), unique=True, max_size=5)


def _errors(folder: Path, strict: bool) -> set[str]:
    return {f.rule for f in load_skill(folder, Policy(strict=strict)).findings if f.is_error}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(description=descriptions(), style=st.sampled_from(["one-line", "folded"]), extras=EXTRAS,
       same_name=st.booleans())
def test_a_lenient_valid_skill_comes_out_lenient_and_strict_valid(description, style, extras, same_name):
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "my-skill"
        folder.mkdir()
        text = _frontmatter("my-skill" if same_name else "other-name", description, style, extras)
        (folder / "SKILL.md").write_text(text, encoding="utf-8", newline="")
        if _errors(folder, strict=False) - NOT_AGAINST_THE_INPUT:
            event("input refused by the lenient check")
            return  # only inputs the lenient check accepts are promised anything
        before_strict = _errors(folder, strict=True)

        plan = plan_migration(folder)
        status, remaining, refusal = outcome(plan)
        assert refusal is None and status in ("converted", "unchanged"), refusal
        event(f"{status}, description over {MAX_LINE_CHARS} characters: {len(description) > MAX_LINE_CHARS}")
        assert skillyard_main(["migrate", "--to-standard", "--no-backup", str(folder)]) in (0, 3)

        assert not _errors(folder, strict=False)
        after_strict = _errors(folder, strict=True)
        assert not after_strict & MIGRATE_FIXES
        assert after_strict <= before_strict  # what is left was there before: the author's to fix
        assert {f.rule for f in remaining} == after_strict
        assert ("name-folder-mismatch" in after_strict) is (not same_name)
        new = (folder / "SKILL.md").read_bytes().decode("utf-8")
        assert raw_body(new) == BODY
        assert max(len(line) for line in new.split("\n")) <= MAX_LINE_CHARS
        assert load_skill(folder, Policy(strict=False)).data["description"] == description


def _skill(root: Path, name: str, frontmatter: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}---\n{BODY}", encoding="utf-8", newline="")
    return folder


LONG = ("Reviews pull requests for security problems. Use when: the user asks for a review, a #audit, or says "
        "'check this'. ") * 8


def test_a_long_one_line_description_is_folded_not_refused(tmp_path, capsys):
    folder = _skill(tmp_path, "reviewer", f"name: reviewer\ndescription: {json.dumps(LONG.strip())}\n"
                                          "tags: [security]\n")
    assert skillyard_main(["migrate", "--to-standard", "--no-backup", str(folder)]) == 0, capsys.readouterr()
    text = (folder / "SKILL.md").read_bytes().decode("utf-8")
    assert "description: >-\n" in text and max(len(line) for line in text.split("\n")) <= 100
    package = load_skill(folder, Policy(strict=True))
    assert package.valid, [f.to_dict() for f in package.findings if f.is_error]
    assert package.data["description"] == LONG.strip() and raw_body(text) == BODY


def test_a_folded_description_stays_folded_and_valid(tmp_path, capsys):
    lines = textwrap.wrap(LONG.strip(), 90)
    folded = "description: >-\n" + "".join(f"  {line}\n" for line in lines)
    folder = _skill(tmp_path, "reviewer", f"name: reviewer\n{folded}version: \"1.0.0\"\n")
    assert load_skill(folder, Policy(strict=False)).valid
    assert skillyard_main(["migrate", "--to-standard", "--no-backup", str(folder)]) == 0, capsys.readouterr()
    package = load_skill(folder, Policy(strict=True))
    assert package.valid, [f.to_dict() for f in package.findings if f.is_error]
    assert package.data["description"] == LONG.strip()


def test_an_already_portable_folded_skill_is_left_byte_for_byte(tmp_path, capsys):
    lines = textwrap.wrap(LONG.strip(), 70)
    folder = _skill(tmp_path, "reviewer", "name: reviewer\ndescription: >-\n" + "".join(f"  {x}\n" for x in lines))
    before = (folder / "SKILL.md").read_bytes()
    assert skillyard_main(["migrate", "--to-standard", "--json", str(folder)]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "unchanged"
    assert (folder / "SKILL.md").read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["SKILL.md"]


def test_a_value_no_short_line_can_hold_is_refused_and_nothing_written(tmp_path, capsys):
    word = "x" * (MAX_LINE_CHARS + 20)
    folder = _skill(tmp_path, "reviewer", f"name: reviewer\ndescription: Reads {word}\ntags: [a]\n")
    before = (folder / "SKILL.md").read_bytes()
    assert skillyard_main(["migrate", "--to-standard", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "not converted" in out and "`description`" in out and "Nothing was changed" in out
    assert (folder / "SKILL.md").read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["SKILL.md"]


def test_a_result_its_own_check_refuses_is_not_written(tmp_path, capsys):
    folder = _skill(tmp_path, "reviewer", f"name: reviewer\ndescription: {json.dumps('word ' * 230)}\ntags: [a]\n")
    before = (folder / "SKILL.md").read_bytes()
    assert skillyard_main(["migrate", "--to-standard", "--json", str(folder)]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "refused" and payload["applied"] is False
    assert "description" in payload["error"] and "1024" in payload["error"] and payload["fix"]
    assert (folder / "SKILL.md").read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["SKILL.md"]


def test_name_unlike_the_folder_is_converted_and_reported(tmp_path, capsys):
    folder = _skill(tmp_path, "reviewer", "name: code-reviewer\ndescription: Reviews code.\ntags: [a]\n")
    assert skillyard_main(["migrate", "--to-standard", "--json", str(folder)]) == 3
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "converted" and payload["applied"] is True
    assert [f["rule"] for f in payload["remaining"]] == ["name-folder-mismatch"]
    assert (folder / "skill.yaml").is_file() and load_skill(folder, Policy(strict=False)).valid


def test_a_batch_walks_nested_collections_and_lists_every_outcome(tmp_path, capsys):
    root = tmp_path / "corpus"
    converted = _skill(root / "vendor__skills" / "skills" / "ada", "planner",
                       "name: planner\ndescription: Plans.\ntags: [a]\n")
    unchanged = _skill(root / "other" / "plugins" / "x" / "skills", "calm", "name: calm\ndescription: Calm.\n")
    broken = root / "other" / "plugins" / "x" / "skills" / "broken"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("no frontmatter\n", encoding="utf-8")
    _skill(root / ".hidden", "secret", "name: secret\ndescription: Hidden.\ntags: [a]\n")
    assert skillyard_main(["migrate", "--to-standard", "--dry-run", "--json", str(root)]) == 1
    payload = json.loads(capsys.readouterr().out)
    statuses = {Path(p["folder"]).name: p["status"] for p in payload["folders"]}
    assert statuses == {"planner": "converted", "calm": "unchanged", "broken": "refused"}
    assert payload["summary"] == {"converted": 1, "unchanged": 1, "refused": 1, "needs_author": 0}
    refused = next(p for p in payload["folders"] if p["status"] == "refused")
    assert "frontmatter" in refused["error"] and refused["fix"]
    assert not (converted / "skill.yaml").exists() and not (unchanged / "skill.yaml").exists()  # a dry run

    assert skillyard_main(["migrate", "--to-standard", "--no-backup", str(root)]) == 1
    out = capsys.readouterr().out
    assert "1 converted, 1 unchanged, 1 refused" in out and f"{broken}: not converted" in out
    assert (converted / "skill.yaml").is_file()
    assert skillyard_main(["migrate", "--to-standard", str(root / "vendor__skills")]) == 0
