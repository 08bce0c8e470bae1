"""The decided split: only the standard's keys, in block style, in SKILL.md; the rest in skill.yaml; one merge rule."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.format import Policy, load_skill
from skillyard.format.frontmatter import parse_skill_md
from skillyard.format.manifest import manifest_to_skill_md, merge_manifest, parse_manifest
from skillyard.format.portable import SPEC_KEYS, portability_findings, schema_spec_keys
from skillyard.format.safety import INVISIBLE

from .conftest import REGISTRY_POLICY, rules_of

SPEC = "name: planner\ndescription: Plans tasks. Use when asked to plan.\nlicense: MIT\n"
MANIFEST = 'schema_version: "1.0"\nversion: "1.0.0"\ntags:\n  - planning\n'
LENIENT = Policy(strict=False)


def findings_of(folder, policy=REGISTRY_POLICY, rule="not-portable"):
    return [f for f in load_skill(folder, policy).findings if f.rule == rule]


def test_the_schema_marks_exactly_the_standard_keys():
    assert schema_spec_keys() == SPEC_KEYS


def test_the_portable_split_is_valid(make_skill):
    folder = make_skill("planner", SPEC + "metadata:\n  team: core\nallowed-tools: Read Grep\n",
                        files={"skill.yaml": MANIFEST})
    pkg = load_skill(folder, REGISTRY_POLICY)
    assert pkg.valid, pkg.findings
    assert pkg.data["version"] == "1.0.0" and pkg.data["tags"] == ["planning"]


@pytest.mark.parametrize("extra,field", [
    ('version: "1.0.0"\n', "version"), ("tags:\n  - a\n", "tags"), ("author: ada\n", "author"),
    ("inputs:\n  - name: x\n    type: string\n", "inputs"), ("user-invocable: true\n", "user-invocable"),
    ("colour: blue\n", "colour"),
])
def test_registry_and_unknown_fields_in_the_frontmatter_are_refused_in_strict_mode(make_skill, extra, field):
    folder = make_skill("planner", SPEC + extra, files={"skill.yaml": 'schema_version: "1.0"\n'})
    [finding] = [f for f in findings_of(folder) if f.field == field]
    assert finding.is_error and "skill.yaml" in finding.fix and "migrate --to-standard" in finding.fix
    assert finding.file == "SKILL.md" and finding.line is not None


@pytest.mark.parametrize("extra,line", [
    ("metadata: {team: core}\n", 5), ("allowed-tools: Read\nmetadata: {}\n", 6),
    ("metadata:\n  team: [a, b]\n", 6), ("compatibility: []\n", 5),
])
def test_flow_and_empty_collections_are_refused_with_their_line(make_skill, extra, line):
    folder = make_skill("planner", SPEC + extra, files={"skill.yaml": MANIFEST})
    found = [f for f in findings_of(folder) if "flow-style" in f.message]
    assert found and found[0].is_error and found[0].line == line and "`- item`" in found[0].fix


def test_flow_list_of_tools_is_refused_in_both_shapes(make_skill):
    folder = make_skill("planner", SPEC + "allowed-tools: [Read, Grep]\n", files={"skill.yaml": MANIFEST})
    messages = [f.message for f in findings_of(folder)]
    assert any("space-separated" in m for m in messages) and any("flow-style" in m for m in messages)


def test_quoted_brackets_are_not_flow(make_skill):
    folder = make_skill("planner", SPEC + "compatibility: '[needs] git {and} python'\n", files={"skill.yaml": MANIFEST})
    assert findings_of(folder) == []


def test_lenient_mode_warns_with_the_migrate_fix(make_skill):
    folder = make_skill("planner", SPEC + 'version: "1.0.0"\ntags: [a, b]\nmetadata:\n  version: "2"\n')
    found = findings_of(folder, LENIENT)
    assert found and all(not f.is_error for f in found)
    assert all("skillyard migrate --to-standard" in f.fix for f in found)
    assert load_skill(folder, LENIENT).valid


def test_bom_and_triple_dash_are_not_portable(make_skill):
    folder = make_skill("planner", SPEC.replace("Plans tasks.", "Plans---tasks."), files={"skill.yaml": MANIFEST})
    assert any("`---`" in f.message for f in findings_of(folder))
    text = (folder / "SKILL.md").read_text(encoding="utf-8").replace("---", "--", 1).replace("Plans--", "Plans")
    (folder / "SKILL.md").write_text("\ufeff---\n" + text.split("\n", 1)[1].replace("Plans-tasks", "Plans tasks"),
                                     encoding="utf-8")
    assert any("byte-order mark" in f.message for f in findings_of(folder))


def test_pure_function_needs_no_folder():
    fm = parse_skill_md("---\n" + SPEC + "tags: [a]\n---\nbody\n")
    found = portability_findings(fm.data, fm.raw, strict=True, key_lines=fm.key_lines, folder="x")
    assert {f.field for f in found} == {"tags", None} and all(f.is_error for f in found)


# skill.yaml: schema_version --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,needle", [
    ('version: "1.0.0"\n', "has no `schema_version`"),
    ("schema_version: 1.0\n", "a float, not text"),
    ('schema_version: "2.0"\n', "newer major version"),
    ('schema_version: "1"\n', "MAJOR.MINOR"),
    ('schema_version: "0.9"\n', "never a skill.yaml format"),
])
def test_schema_version_is_required_and_checked(text, needle):
    _, _, findings = parse_manifest(text, strict=True)
    [finding] = findings
    assert finding.is_error and finding.rule == "manifest-schema-version" and needle in finding.message
    assert finding.fix and finding.file == "skill.yaml"


def test_schema_version_missing_is_a_warning_in_lenient_mode():
    [finding] = parse_manifest('version: "1.0.0"\n', strict=False)[2]
    assert not finding.is_error


def test_newer_major_names_the_upgrade(make_skill):
    folder = make_skill("planner", SPEC, files={"skill.yaml": 'schema_version: "3.1"\n'})
    [finding] = findings_of(folder, rule="manifest-schema-version")
    assert "Upgrade Skillyard" in finding.fix and finding.line == 1


# the merge rule ----------------------------------------------------------------------------------------------------

def test_merge_rule_name_and_description_may_repeat_only_when_equal():
    fm = {"name": "a", "description": "d"}
    assert merge_manifest(fm, {"name": "a", "description": "d", "version": "1.0.0"})[1] == []
    [conflict] = merge_manifest(fm, {"name": "b"})[1]
    assert conflict.rule == "manifest-conflict" and conflict.field == "name" and "SKILL.md" in conflict.fix


def test_merge_rule_compares_standard_keys_in_portable_form():
    assert merge_manifest({"metadata": {"n": "1"}}, {"metadata": {"n": 1}})[1] == []
    assert merge_manifest({"allowed-tools": "Read Grep"}, {"allowed-tools": ["Read", "Grep"]})[1] == []
    assert merge_manifest({"metadata": {"n": "1"}}, {"metadata": {"n": 2}})[1]


# input-no-default ------------------------------------------------------------------------------------------------

def test_placeholder_without_default_is_a_strict_error(make_skill):
    manifest = MANIFEST + "inputs:\n  - name: path\n    type: string\n  - name: lang\n    type: string\n    default: en\n"
    folder = make_skill("planner", SPEC, body="Use {{inputs.path}} in {{ inputs.lang }}.\n",
                        files={"skill.yaml": manifest})
    [finding] = findings_of(folder, rule="input-no-default")
    assert finding.is_error and finding.field == "inputs" and "raw" in finding.message and "ask" in finding.fix
    [warned] = findings_of(folder, LENIENT, rule="input-no-default")
    assert not warned.is_error


# manifest_to_skill_md --------------------------------------------------------------------------------------------

def test_manifest_to_skill_md_is_spec_pure_block_style():
    text = manifest_to_skill_md({"schema_version": "1.0", "name": "x", "description": "Does: things [a]",
                                 "version": "1.0.0", "tags": ["a"], "metadata": {"n": 1, "on": True},
                                 "allowed-tools": ["Read", "Grep"], "system_prompt": "Body {{inputs.a}}\n"})
    fm = parse_skill_md(text, strict=True)
    assert fm.ok and set(fm.data) == {"name", "description", "metadata", "allowed-tools"}
    assert fm.data["metadata"] == {"n": "1", "on": "true"} and fm.data["allowed-tools"] == "Read Grep"
    assert portability_findings(fm.data, fm.raw, strict=True) == []
    assert fm.body.strip() == "Body {{inputs.a}}"


_text = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Co", "Cn", "Zl", "Zp", "Mn", "Me")), min_size=1,
                max_size=60).filter(lambda s: s.strip() and "---" not in s and "<" not in s and ">" not in s
                                    # what the invisible-character check refuses for a security reason (U+2800,
                                    # Hangul fillers, ...) is refused on purpose, not a round-trip failure
                                    and not INVISIBLE.search(s))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(description=_text, license_=_text, metadata=st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True),
                                                                   st.one_of(_text, st.integers(), st.booleans()),
                                                                   max_size=4))
def test_manifest_to_skill_md_round_trips_and_the_reference_accepts_it(description, license_, metadata):
    from skills_ref.parser import parse_frontmatter
    from skills_ref.validator import validate_metadata

    manifest = {"name": "round-trip", "description": description, "license": license_, "metadata": metadata,
                "version": "1.0.0", "system_prompt": "Do it.\n"}
    text = manifest_to_skill_md(manifest)
    fm = parse_skill_md(text, strict=True)
    assert fm.ok, fm.findings
    assert portability_findings(fm.data, fm.raw, strict=True) == []
    assert fm.data["description"] == description and fm.data["license"] == license_
    theirs, _ = parse_frontmatter(text)
    assert validate_metadata(theirs) == [] and theirs["description"] == description
    assert theirs.get("metadata", {}) == fm.data.get("metadata", {})


def test_unknown_field_warning_in_lenient_is_not_doubled(make_skill):
    folder = make_skill("planner", SPEC + "colour: blue\n")
    assert "unknown-field" in rules_of(folder, LENIENT) and not findings_of(folder, LENIENT)


def test_standard_keys_in_skill_yaml_belong_in_skill_md(make_skill):
    folder = make_skill("planner", "name: planner\ndescription: Plans tasks. Use when asked to plan.\n",
                        files={"skill.yaml": MANIFEST + "license: MIT\nname: planner\n"})
    [finding] = findings_of(folder)
    assert finding.is_error and finding.file == "skill.yaml" and finding.field == "license"
    assert "Move `license` to SKILL.md" in finding.fix and finding.line == 5
    [warned] = findings_of(folder, LENIENT)
    assert not warned.is_error


def test_registry_data_under_metadata_is_read_only_from_skill_yaml(make_skill):
    only_there = make_skill("planner", SPEC + 'metadata:\n  version: "2.0"\n', files={"skill.yaml": MANIFEST})
    [finding] = findings_of(only_there)
    assert finding.is_error and finding.field == "metadata.version" and "disagrees" in finding.message
    assert not findings_of(only_there, LENIENT)[0].is_error
    copy = make_skill("copy", SPEC.replace("planner", "copy") + 'metadata:\n  version: "1.0.0"\n',
                      files={"skill.yaml": MANIFEST})
    assert findings_of(copy) == []
    alone = make_skill("alone", SPEC.replace("planner", "alone") + "metadata:\n  author: ada\n",
                       files={"skill.yaml": MANIFEST})
    assert "is not read by Skillyard" in findings_of(alone)[0].message
