"""Issue 23 item 1, the standard is the floor: a skill the reference validator (skills-ref) accepts passes lenient
validation and is listed by the runtime (strict and lenient discovery, `skill prompt` from `.agents/skills`);
strict mode may refuse more, naming the fix."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skills_ref.validator import validate as reference_errors

from skillyard.cli.main import skill_main
from skillyard.format import Policy, load_skill
from skillyard.runtime import discovery
from skillyard.runtime.discovery import Root

LENIENT, STRICT = Policy(strict=False), Policy(strict=True)


def _write(root, name: str, frontmatter: str, body: str = "Body.\n", file: str = "SKILL.md"):
    folder = root / name
    folder.mkdir(parents=True)
    (folder / file).write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return folder


def _listed(root, *, lenient: bool) -> dict[str, str]:
    result = discovery.scan([Root(str(root), "project", 400)], lenient=lenient)
    assert not result.report["broken"], result.report["broken"]
    return {s.name: s.description for s in result.skills}


def assert_floor(folder) -> None:
    """skills-ref accepts it, lenient validation has no error, and discovery lists it in both modes."""
    assert reference_errors(folder) == []
    errors = [f.to_dict() for f in load_skill(folder, LENIENT).findings if f.is_error]
    assert errors == []
    for lenient in (False, True):
        assert folder.name in _listed(folder.parent, lenient=lenient)


# one-line text YAML reads as a plain string: words, then punctuation the standard allows (`<` and `>` included)
_word = st.from_regex(r"[A-Za-z\u00e9\u4e2d][A-Za-z0-9\u00e9\u00fc\u4e2d\u6587]{0,11}", fullmatch=True)
_glue = st.sampled_from([" ", " ", " ", ", ", ". ", "; ", " (", ") ", " <", "> ", " / ", " - "])


@st.composite
def _line(draw, min_size: int, max_size: int) -> str:
    target = draw(st.integers(min_size, max_size))
    parts = [draw(_word)]
    while len("".join(parts)) < target:
        parts += [draw(_glue), draw(_word)]
    return "".join(parts)[:target].rstrip(" ,.;(/<-") or "x"


_name = st.from_regex(r"[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,3}", fullmatch=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(name=_name, description=_line(400, 1024), compatibility=st.one_of(st.none(), _line(1, 500)),
       license_=st.one_of(st.none(), st.sampled_from(["MIT", "", "Apache-2.0", "2024", "yes"])),
       metadata=st.dictionaries(_word, _line(1, 6000), max_size=3), tools=st.one_of(st.none(), _line(1, 80)))
def test_standard_valid_frontmatter_passes_lenient_validation_and_is_listed(tmp_path_factory, name, description,
                                                                            compatibility, license_, metadata,
                                                                            tools):
    lines = [f"name: {name}", f"description: {description}"]
    if compatibility is not None:
        lines.append(f"compatibility: {compatibility}")
    if license_ is not None:
        lines.append(f"license: {license_}".rstrip())
    if tools is not None:
        lines.append(f"allowed-tools: {tools}")
    if metadata:
        lines += ["metadata:", *(f"  {key}: {value}" for key, value in metadata.items())]
    folder = _write(tmp_path_factory.mktemp("floor"), name, "\n".join(lines) + "\n")
    assert_floor(folder)
    assert _listed(folder.parent, lenient=False)[name] == " ".join(description.split())


def test_a_1024_character_one_line_description_is_a_strict_error_that_names_migrate(tmp_path):
    description = ("Reads spreadsheets and explains them. " * 40)[:1024].strip()
    folder = _write(tmp_path, "sheet-reader", f"name: sheet-reader\ndescription: {description}\n")
    assert_floor(folder)
    (found,) = [f for f in load_skill(folder, STRICT).findings if f.rule == "frontmatter-line-too-long"]
    assert found.is_error and found.line == 3
    assert "description: >-" in found.fix and "skillyard migrate --to-standard" in found.fix
    (warned,) = [f for f in load_skill(folder, LENIENT).findings if f.rule == "frontmatter-line-too-long"]
    assert not warned.is_error


def test_skill_prompt_lists_a_long_description_from_dot_agents_skills(tmp_path, monkeypatch, capsys):
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    description = "Plans database migrations and reviews them. " * 20
    _write(project / ".agents" / "skills", "migration-planner",
           f"name: migration-planner\ndescription: {description.strip()}\n")
    assert reference_errors(project / ".agents" / "skills" / "migration-planner") == []
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SKILL_PATH", raising=False)
    assert skill_main(["prompt", "--format", "json", "--no-cache"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["skills"]
    assert entry["name"] == "migration-planner" and entry["description"] == " ".join(description.split())


def test_long_metadata_values_and_long_frontmatter_are_accepted_up_to_the_size_guard(tmp_path):
    long_value = "x" * 20_000  # the standard bounds no metadata value; our guard is 64 KiB a line and a frontmatter
    many = "".join(f"  key{i}: value {i}\n" for i in range(300))
    folder = _write(tmp_path, "big-meta", f"name: big-meta\ndescription: Ok.\nmetadata:\n  blob: {long_value}\n{many}")
    assert_floor(folder)
    strict_rules = {f.rule for f in load_skill(folder, STRICT).findings if f.is_error}
    assert {"frontmatter-line-too-long", "frontmatter-too-long"} <= strict_rules
    huge = _write(tmp_path / "huge", "huge-meta", f"name: huge-meta\ndescription: Ok.\nmetadata:\n  blob: {'x' * 70_000}\n")
    refused = {f.rule for f in load_skill(huge, LENIENT).findings if f.is_error}
    assert refused & {"frontmatter-line-too-large", "yaml-too-large"}  # a size guard, documented in security.md


@pytest.mark.parametrize("frontmatter,description", [
    ("description: 2024\n", "2024"),
    ("description: yes\n", "yes"),
    ("description: Converts units.\ncompatibility: 3.11\n", "Converts units."),
    ("description: Converts units.\nlicense:\n", "Converts units."),
    ("description: Converts units.\nlicense:\n  - MIT\n  - Apache-2.0\n", "Converts units."),
    ("description: Converts units.\nallowed-tools:\n  read: yes\n", "Converts units."),
    ("description: Use <file> as input and write a -> b.\n", "Use <file> as input and write a -> b."),
])
def test_what_the_standard_reads_as_text_or_leaves_unchecked_is_a_lenient_warning(tmp_path, frontmatter,
                                                                                description):
    """The standard's YAML (strictyaml) reads every scalar as text and skills-ref leaves `license` and
    `allowed-tools` unchecked; our typed YAML and schema make these warnings in lenient mode, never hidden."""
    folder = _write(tmp_path, "units", "name: units\n" + frontmatter)
    assert_floor(folder)
    assert _listed(tmp_path, lenient=False)["units"] == description


def test_a_lowercase_skill_md_is_listed_as_the_standard_allows(tmp_path):
    folder = _write(tmp_path, "lower-case", "name: lower-case\ndescription: Found as skill.md.\n", file="skill.md")
    assert not (folder / "SKILL.md").exists()  # a case-sensitive disk
    assert_floor(folder)


def test_an_undeclared_inputs_placeholder_is_text_to_the_standard(tmp_path):
    folder = _write(tmp_path, "templater", "name: templater\ndescription: Fills templates.\n",
                    body="Write `{{inputs.name}}` where the value goes.\n")
    assert_floor(folder)
    assert "inputs-undeclared" in {f.rule for f in load_skill(folder, STRICT).findings if f.is_error}


def test_a_skill_named_like_a_tool_folder_is_listed(tmp_path):
    folder = _write(tmp_path, "venv", "name: venv\ndescription: Creates Python virtual environments.\n")
    assert_floor(folder)


def test_a_non_strict_install_takes_a_standard_valid_skill_the_registry_would_refuse(tmp_path, monkeypatch, capsys):
    description = ("Lists cloud resources and explains their costs. " * 20)[:1000].strip()
    folder = _write(tmp_path / "src", "cost-explainer",
                    f"name: cost-explainer\ndescription: {description}\nallowed-tools:\n  shell: yes\n",
                    body="Show `{{inputs.region}}` as the user wrote it.\n")
    assert reference_errors(folder) == []
    assert {"frontmatter-line-too-long", "allowed-tools-format", "inputs-undeclared"} <= {
        f.rule for f in load_skill(folder, STRICT).findings if f.is_error}
    project, home = tmp_path / "project", tmp_path / "home"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    for key, value in {"HOME": home, "XDG_CONFIG_HOME": home / ".config", "XDG_CACHE_HOME": home / ".cache",
                       "XDG_DATA_HOME": home / ".local"}.items():
        monkeypatch.setenv(key, str(value))
    monkeypatch.chdir(project)
    assert skill_main(["install", str(folder), "--project", "--target", "agents", "--skip-deps-check"]) == 0, \
        capsys.readouterr()
    capsys.readouterr()
    assert skill_main(["prompt", "--format", "json", "--no-cache"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["skills"]
    assert entry["name"] == "cost-explainer" and entry["description"] == description
