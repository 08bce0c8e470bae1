"""Every frontmatter and package rule, each with a failing and a passing case."""

from __future__ import annotations

import os

import pytest

from skillyard.format import Policy, load_skill

from .conftest import REGISTRY_POLICY, rules_of

PORTABLE = "name: {name}\ndescription: Turns notes into tasks. Use when asked to plan.\nlicense: MIT\n"
MANIFEST = 'schema_version: "1.0"\nversion: "1.0.0"\ntags:\n  - planning\n'
BASE = 'name: {name}\ndescription: Turns notes into tasks. Use when asked to plan.\nversion: "1.0.0"\nlicense: MIT\ntags: [planning]\n'

# rule id, extra frontmatter that breaks it, extra frontmatter that satisfies it
FRONTMATTER_CASES = [
    ("name-format", None, None),
    ("description-format", "description: " + "x" * 1025 + "\n", "description: " + "x" * 1024 + "\n"),
    ("license-format", 'license: ""\n', "license: Apache-2.0\n"),
    ("compatibility-format", "compatibility: " + "y" * 501 + "\n", "compatibility: Needs git and Python 3.11\n"),
    ("metadata-format", "metadata: {owner: {team: a}}\n", "metadata: {owner: team-a}\n"),
    ("allowed-tools-format", "allowed-tools: 3\n", "allowed-tools: Read Grep\n"),
    ("version-semver", "version: 1.0\n", 'version: "1.0.0-rc.1"\n'),
    ("tags-format", "tags: [Planning, planning]\n", "tags: [planning, tasks]\n"),
    ("author-format", "author: [a, b]\n", "author: {name: Ada, github: ada}\n"),
    ("maintainers-format", "maintainers: [not a handle!]\n", "maintainers: ['@ada', bob-2]\n"),
    ("homepage-format", "homepage: ftp://example.org\n", "homepage: https://example.org/skills\n"),
    ("display-name-format", "display-name: ''\n", "display-name: Task Planner\n"),
    ("capabilities-format", "capabilities: [Read File]\n", "capabilities: [read-file, http-request]\n"),
    ("mcp-deps-format", "mcp_deps: [{tool: ocr}]\n", "mcp_deps: [{tool: ocr.recognize, required: true}]\n"),
    ("inputs-format", "inputs: [{name: mode, type: enum}]\n", "inputs: [{name: mode, type: enum, enum: [a, b]}]\n"),
    ("runtime-field-type", "user-invocable: maybe\n", "user-invocable: false\n"),
    ("unknown-field", "colour: blue\n", "metadata: {colour: blue}\n"),
    ("display-name-conflict", "display-name: A\ndisplayName: B\n", "display-name: A\ndisplayName: A\n"),
    ("inputs-duplicate", "inputs: [{name: a, type: string}, {name: a, type: number}]\n",
     "inputs: [{name: a, type: string}, {name: b, type: number}]\n"),
    ("inputs-default-type", "inputs: [{name: n, type: number, default: ten}]\n",
     "inputs: [{name: n, type: number, default: 10}]\n"),
    ("inputs-required-default", "inputs: [{name: n, type: boolean, required: true, default: true}]\n",
     "inputs: [{name: n, type: boolean, required: false, default: true}]\n"),
    ("mcp-deps-duplicate", "mcp_deps: [{tool: a.b}, {tool: a.b}]\n", "mcp_deps: [{tool: a.b}, {tool: a.c}]\n"),
    ("custom-capability", "capabilities: [send-email]\n", "capabilities: [write-file]\n"),
    ("angle-bracket", "argument-hint: <file>\n", "argument-hint: '[file]'\n"),
]


@pytest.mark.parametrize("rule,bad,good", [c for c in FRONTMATTER_CASES if c[1]], ids=[c[0] for c in FRONTMATTER_CASES if c[1]])
def test_frontmatter_rule(make_skill, rule, bad, good):
    def fm(extra: str) -> str:
        lines = BASE.format(name="planner").splitlines(keepends=True)
        keys = {line.split(":")[0] for line in extra.splitlines() if ":" in line}
        kept = [line for line in lines if line.split(":")[0] not in keys]
        return "".join(kept) + extra

    bad_folder = make_skill("planner", fm(bad))
    assert rule in rules_of(bad_folder)
    good_folder = make_skill("planner", fm(good))
    assert rule not in rules_of(good_folder)


@pytest.mark.parametrize("name", ["Planner", "-planner", "planner-", "plan--ner", "plan_ner", "a" * 65, "计划"])
def test_bad_names(make_skill, name):
    folder = make_skill("planner", BASE.format(name=f"'{name}'"))
    assert "name-format" in rules_of(folder)


def test_good_name_equal_to_folder(make_skill):
    assert rules_of(make_skill("plan-2-do", PORTABLE.format(name="plan-2-do"), files={"skill.yaml": MANIFEST})) == set()


def test_name_must_match_folder_strict_error_lenient_warning(make_skill):
    folder = make_skill("planner", BASE.format(name="other-name"))
    assert "name-folder-mismatch" in rules_of(folder, severity="error")
    assert "name-folder-mismatch" in rules_of(folder, Policy(strict=False), severity="warning")


@pytest.mark.parametrize("missing", ["name", "description"])
def test_required_fields(make_skill, missing):
    text = "".join(line + "\n" for line in BASE.format(name="planner").splitlines() if not line.startswith(missing))
    finding = [f for f in load_skill(make_skill("planner", text), REGISTRY_POLICY).findings if f.rule == "required-field"]
    assert finding and finding[0].field == missing and missing in finding[0].fix


@pytest.mark.parametrize("field", ["version", "license", "tags"])
def test_policy_required_fields_come_from_config(make_skill, field):
    text = "".join(line + "\n" for line in BASE.format(name="planner").splitlines() if not line.startswith(field))
    folder = make_skill("planner", text)
    assert "policy-required-field" in rules_of(folder)
    assert "policy-required-field" not in rules_of(folder, Policy(strict=True))  # no policy, no requirement


def test_inputs_undeclared_placeholder(make_skill):
    bad = make_skill("planner", BASE.format(name="planner"), body="Save to {{inputs.folder}}.\n")
    assert "inputs-undeclared" in rules_of(bad)
    good = make_skill("planner", BASE.format(name="planner") + "inputs: [{name: folder, type: string, default: out}]\n",
                      body="Save to {{ inputs.folder }}.\n")
    assert "inputs-undeclared" not in rules_of(good)


def test_every_finding_names_file_and_fix(make_skill):
    folder = make_skill("planner", "name: Planner\ndescription: ''\nversion: 1\ntags: nope\nfoo: bar\n")
    findings = load_skill(folder, REGISTRY_POLICY).findings
    assert findings
    for f in findings:
        assert f.file and f.fix and f.message, f


# skill.yaml ----------------------------------------------------------------------------------------------------------

def test_manifest_supplies_missing_fields(make_skill):
    folder = make_skill("planner", "name: planner\ndescription: Plans tasks. Use for planning.\nlicense: MIT\n",
                        files={"skill.yaml": 'schema_version: "1.0"\nversion: "2.0.0"\ntags:\n  - planning\n'})
    pkg = load_skill(folder, REGISTRY_POLICY)
    assert pkg.valid, pkg.findings
    assert pkg.data["version"] == "2.0.0"


def test_manifest_conflict_is_an_error(make_skill):
    folder = make_skill("planner", BASE.format(name="planner"), files={"skill.yaml": 'version: "9.9.9"\n'})
    assert "manifest-conflict" in rules_of(folder)
    same = make_skill("planner", BASE.format(name="planner"), files={"skill.yaml": 'version: "1.0.0"\n'})
    assert "manifest-conflict" not in rules_of(same)


def test_manifest_schema_version(make_skill):
    assert "manifest-schema-version" in rules_of(make_skill("planner", files={"skill.yaml": 'schema_version: "2.0"\n'}))
    assert "manifest-schema-version" not in rules_of(make_skill("planner", files={"skill.yaml": 'schema_version: "1.0"\n'}))


def test_manifest_only_skill_is_readable_but_strictly_needs_migration(tmp_path):
    folder = tmp_path / "planner"
    folder.mkdir()
    (folder / "skill.yaml").write_text('schema_version: "1.0"\nname: planner\ndescription: Plans.\nversion: "1.0.0"\n'
                                       'license: MIT\ntags: [planning]\nsystem_prompt: |\n  Plan the work.\n')
    pkg = load_skill(folder, Policy(strict=False))
    assert pkg.valid and pkg.manifest_only and pkg.body == "Plan the work.\n"
    assert "skill-md-missing" in rules_of(folder, severity="error")


# package rules -------------------------------------------------------------------------------------------------------

def test_missing_skill_md(tmp_path):
    (tmp_path / "empty").mkdir()
    assert "skill-md-missing" in rules_of(tmp_path / "empty")


def test_lowercase_skill_md(tmp_path):
    folder = tmp_path / "planner"
    folder.mkdir()
    (folder / "skill.md").write_text("---\n" + BASE.format(name="planner") + "---\nbody\n")
    assert "skill-md-case" in rules_of(folder, severity="error")
    assert load_skill(folder, Policy(strict=False)).valid


def test_code_outside_scripts(make_skill):
    bad = make_skill("planner", files={"helper.py": "print(1)\n"})
    assert "code-outside-scripts" in rules_of(bad, severity="error")
    assert "code-outside-scripts" in rules_of(bad, Policy(strict=False), severity="warning")
    good = make_skill("tidy", files={"scripts/helper.py": "print(1)\n", "tests/test_helper.py": "pass\n"})
    assert "code-outside-scripts" not in rules_of(good)


def test_executable_bit_outside_scripts(make_skill):
    folder = make_skill("planner", files={"run": "#!/bin/sh\n"})
    os.chmod(folder / "run", 0o755)
    assert "code-outside-scripts" in rules_of(folder)


def test_size_limits(make_skill):
    policy = Policy(strict=True, max_file_bytes=300, max_total_bytes=1000, max_files=5)
    big = make_skill("planner", files={"references/big.md": "x" * 301})
    assert "file-too-large" in rules_of(big, policy)
    many = make_skill("many", files={f"references/r{i}.md": "x" * 90 for i in range(12)})
    assert {"package-too-large", "too-many-files"} <= rules_of(many, policy)
    fine = make_skill("fine", files={"references/r.md": "x" * 50})
    assert not {"file-too-large", "package-too-large", "too-many-files"} & rules_of(fine, policy)


def test_hidden_files_are_not_published(make_skill):
    folder = make_skill("planner", files={".DS_Store": b"\0", "__pycache__/x.pyc": b"\0"})
    pkg = load_skill(folder, REGISTRY_POLICY)
    assert pkg.valid
    assert [f.path for f in pkg.files] == ["SKILL.md", "skill.yaml"]
    assert "ignored-file" in {f.rule for f in pkg.findings}


def test_inventory_and_hashes(make_skill):
    folder = make_skill("planner", files={"scripts/run.py": "print(1)\n", "references/guide.md": "# G\n",
                                          "assets/template.txt": "t\n", "FORMS.md": "# Forms\n"})
    pkg = load_skill(folder, REGISTRY_POLICY)
    inv = pkg.inventory
    assert inv["has_scripts"] and inv["script_files"] == ["scripts/run.py"]
    assert inv["reference_files"] == ["FORMS.md", "references/guide.md"]
    assert inv["asset_files"] == ["assets/template.txt"]
    assert inv["total_files"] == 6 and inv["total_size"] == sum(f.size for f in pkg.files)
    import hashlib

    run = next(f for f in pkg.files if f.path == "scripts/run.py")
    assert run.sha256 == hashlib.sha256(b"print(1)\n").hexdigest()
    assert pkg.integrity().startswith("sha256-") and len(pkg.integrity()) == 71


def test_non_utf8_skill_md(tmp_path):
    folder = tmp_path / "planner"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\nname: planner\ndescription: \xff\xfe\n---\n")
    assert "encoding" in rules_of(folder)


# Every field skill.yaml may hold, with a bad value: the finding names skill.yaml and the key's line there.
MANIFEST_BAD_VALUES = [
    ("version", "version: 1.0\n", "version-semver"),
    ("tags", "tags:\n  - Planning\n  - planning\n", "tags-format"),
    ("inputs", "inputs:\n  - name: n\n    type: number\n    default: ten\n", "inputs-default-type"),
    ("inputs", "inputs:\n  - name: mode\n    type: enum\n", "inputs-format"),
    ("mcp_deps", "mcp_deps:\n  - tool: ocr\n", "mcp-deps-format"),
    ("mcp_deps", "mcp_deps:\n  - tool: ocr.a\n  - tool: ocr.a\n", "mcp-deps-duplicate"),
    ("author", "author: [a, b]\n", "author-format"),
    ("homepage", "homepage: ftp://example.org\n", "homepage-format"),
    ("user-invocable", "user-invocable: maybe\n", "runtime-field-type"),
    ("colour", "colour: blue\n", "unknown-field"),
    ("resources", "resources:\n  entry: scripts/missing.py\n", "resources-entry"),
]


@pytest.mark.parametrize(("key", "yaml_text", "rule"), MANIFEST_BAD_VALUES)
def test_a_bad_skill_yaml_value_is_reported_at_its_skill_yaml_line(make_skill, key, yaml_text, rule):
    manifest = 'schema_version: "1.0"\n# a comment line\n' + yaml_text
    folder = make_skill("planner", PORTABLE.format(name="planner"), files={"skill.yaml": manifest})
    found = [f for f in load_skill(folder, Policy(strict=True)).findings if f.rule == rule]
    assert found, rule
    for finding in found:
        assert (finding.file, finding.line) == ("skill.yaml", 3), finding
        assert finding.field.startswith(key), finding


def test_a_field_in_both_files_is_reported_at_skill_md(make_skill):
    """When SKILL.md holds the field too (equal values), SKILL.md's line is where the value is read."""
    folder = make_skill("planner", PORTABLE.format(name="planner") + "colour: blue\n",
                        files={"skill.yaml": 'schema_version: "1.0"\ncolour: blue\n'})
    (found,) = [f for f in load_skill(folder, Policy(strict=False)).findings if f.rule == "unknown-field"]
    assert (found.file, found.line) == ("SKILL.md", 5)
