"""source.yaml, the pointer file: hostile text never crashes the parser, every problem names the field, the line and
the fix, and the entry it compiles keeps the upstream values over the registry's additions."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.pointer import dump_pointer, parse_pointer

GOOD = {
    "schema_version": 1, "name": "alpha",
    "upstream": {"host": "github", "repository": "up/skills", "path": "skills/alpha", "commit": "a" * 40,
                 "tracks": "main"},
    "license": "MIT",
    "skill": {"name": "alpha", "description": "Does alpha.", "version": "1.0.0", "tags": ["demo"],
              "display_name": "Alpha", "skill_md_lines": 4},
    "registry": {"tags": ["demo", "extra"], "display_name": "Registry Alpha"},
    "files": [{"path": "scripts/run.sh", "size": 5, "sha256": "c" * 64, "executable": True},
              {"path": "SKILL.md", "size": 10, "sha256": "b" * 64}],
}


def parsed(data: dict, folder: str | None = "alpha"):
    return parse_pointer(dump_pointer(data), folder_name=folder)


def test_dump_and_parse_round_trip_deterministically():
    text = dump_pointer(GOOD)
    pointer, problems = parse_pointer(text, folder_name="alpha")
    assert problems == [] and pointer is not None
    assert dump_pointer(pointer.data) == text
    assert text.index("SKILL.md") < text.index("scripts/run.sh")  # files sorted by path


def test_the_entry_keeps_upstream_values_and_adds_registry_tags():
    pointer, _ = parsed(GOOD)
    entry = pointer.entry("skills/alpha")
    assert entry["tags"] == ["demo", "extra"]
    assert entry["display_name"] == "Alpha"  # the registry's display name never replaces upstream's
    assert entry["commit"] == "a" * 40 and entry["path"] == "skills/alpha"
    assert entry["source_url"] == "https://github.com/up/skills"
    assert entry["inventory"]["has_scripts"] and entry["inventory"]["total_size"] == 15
    no_upstream_name = copy.deepcopy(GOOD)
    del no_upstream_name["skill"]["display_name"]
    assert parsed(no_upstream_name)[0].entry("skills/alpha")["display_name"] == "Registry Alpha"


def _one_problem(data: dict, folder: str | None = "alpha"):
    pointer, problems = parsed(data, folder)
    assert pointer is None and problems
    return problems[0]


def test_a_short_sha_is_refused_naming_field_line_and_fix():
    data = copy.deepcopy(GOOD)
    data["upstream"]["commit"] = "abc123"
    problem = _one_problem(data)
    assert problem.file == "source.yaml" and problem.field == "upstream.commit"
    assert problem.line == dump_pointer(data).splitlines().index("upstream:") + 1
    assert "source.yaml" in problem.message and "skillyard external add" in problem.fix


def test_unsafe_file_paths_are_refused():
    for bad in ("../x.md", ".git/config", "a/../../b", "CON.txt", ".hidden"):
        data = copy.deepcopy(GOOD)
        data["files"][1]["path"] = bad
        problem = _one_problem(data)
        assert problem.field in ("files[1].path", "files[0].path"), (bad, problem)


def test_colliding_names_and_a_missing_skill_md_are_refused():
    data = copy.deepcopy(GOOD)
    data["files"].append({"path": "skill.MD", "size": 1, "sha256": "d" * 64})
    assert "letter case" in _one_problem(data).message
    data = copy.deepcopy(GOOD)
    data["files"] = data["files"][:1]
    assert "no SKILL.md" in _one_problem(data).message


def test_the_folder_must_be_named_like_the_entry():
    problem = _one_problem(GOOD, folder="beta")
    assert problem.field == "name" and "Rename the folder" in problem.fix


def test_unknown_fields_and_oversized_lists_are_refused():
    data = copy.deepcopy(GOOD)
    data["skill"]["name_override"] = "x"
    assert _one_problem(data).field == "skill"
    data = copy.deepcopy(GOOD)
    data["files"] = [{"path": f"f{i}.md", "size": 1, "sha256": "b" * 64} for i in range(1001)]
    assert _one_problem(data).field == "files"


def test_yaml_bombs_and_huge_files_are_refused_without_building_them():
    bomb = "a: &a [x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(10))
    pointer, problems = parse_pointer(bomb)
    assert pointer is None and problems[0].file == "source.yaml"
    pointer, problems = parse_pointer("x: " + "y" * (600 * 1024))
    assert pointer is None and "bytes" in problems[0].message


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gives_findings_not_exceptions(text):
    pointer, problems = parse_pointer(text, folder_name="alpha")
    assert (pointer is None) == bool(problems)
    assert all(p.file == "source.yaml" and p.fix for p in problems)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["upstream", "license", "skill", "files", "name", "registry"]),
       st.one_of(st.none(), st.integers(), st.text(max_size=20), st.lists(st.integers(), max_size=3)))
def test_any_wrong_value_of_a_field_is_a_finding(key, value):
    data = copy.deepcopy(GOOD)
    data[key] = value
    try:
        text = dump_pointer(data)
    except (TypeError, KeyError):  # dump_pointer sorts the files: a files value without paths cannot be dumped
        return
    pointer, problems = parse_pointer(text, folder_name="alpha")
    if pointer is None:
        assert problems and all(p.file == "source.yaml" for p in problems)
