"""Conformance: what our tools write is a valid Agent Skill for the standard's reference validator.

`agentskills validate` (skills-ref 0.1.1, a test dependency) runs as a real subprocess -- the console script
installed next to this interpreter -- on every `skill init` output, on every `skillyard migrate --to-standard`
output of realistic non-portable skills, and on every skill this registry publishes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.cli.main import skill_main, skillyard_main
from skillyard.format import Policy, load_skill

ROOT = Path(__file__).resolve().parents[2]
AGENTSKILLS = Path(sys.executable).with_name("agentskills")
REGISTRY = Policy(strict=True, required_fields=("version", "license", "tags"))


def reference(folder: Path) -> tuple[int, str]:
    """(exit code, output) of the reference validator on one folder."""
    result = subprocess.run([str(AGENTSKILLS), "validate", str(folder)], capture_output=True, text=True, timeout=60)
    return result.returncode, result.stdout + result.stderr


def assert_reference_accepts(folder: Path) -> None:
    code, output = reference(folder)
    assert code == 0, output


def test_the_reference_validator_is_installed_and_refuses_what_it_should(tmp_path):
    assert AGENTSKILLS.is_file(), "skills-ref is in the [test] extras"
    folder = tmp_path / "flow"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: flow\ndescription: d\ntags: [a]\n---\nbody\n", encoding="utf-8")
    code, output = reference(folder)
    assert code == 1 and "tags" in output  # the check below can fail


# skill init ---------------------------------------------------------------------------------------------------

INIT_CASES = {
    "defaults": ["tiny-tool"],
    "everything": ["pdf-tools", "--description", "Fill and merge PDF forms. Use when a PDF form must be completed.",
                   "--tags", "pdf,documents", "--author", "octocat", "--capability", "read-file",
                   "--capability", "execute-code", "--with-scripts", "--version", "1.2.3", "--license", "Apache-2.0"],
    "yaml-special-text": ["quote-it", "--description", "Use when: the user says 'yes' or \"no\" - # not a comment, "
                          "[not a list], {not a map}, 1.0, true, null, ~, @at, `tick`.", "--license", "yes"],
    "unicode": ["fapiao", "--description", "处理发票：识别、提取、归档。Use when a user uploads an invoice.",
                "--author", "张三", "--tags", "finance"],
}


@pytest.mark.parametrize("argv", INIT_CASES.values(), ids=INIT_CASES.keys())
def test_skill_init_output_passes_the_reference_validator(tmp_path, capsys, argv):
    assert skill_main(["init", *argv, "--dir", str(tmp_path)]) == 0, capsys.readouterr()
    folder = tmp_path / argv[0]
    assert_reference_accepts(folder)
    package = load_skill(folder, REGISTRY)
    errors = [f.to_dict() for f in package.findings if f.is_error and f.rule != "placeholder-description"]
    assert errors == []  # with no --description, the placeholder is the one thing left for the author to write
    assert package.valid == ("--description" in argv)


# skillyard migrate --to-standard --------------------------------------------------------------------------------

BODY = "# Tool\n\nRun `scripts/x.py`.\r\nKeep this line's CRLF and trailing spaces.   \n\n---\n\nAfter a rule.\n"

NON_PORTABLE = {
    "registry-fields-flow-lists": (
        'name: {name}\ndescription: Plans tasks. Use when asked to plan.\nversion: "2.1.0"\nlicense: MIT\n'
        "tags: [planning, tasks]\nauthor: {{name: Ada, github: ada}}\nmaintainers: [ada, bob]\n"
        "capabilities: [read-file]\nhomepage: https://example.org/planner\n", None),
    "metadata-flow-and-numbers": (
        "name: {name}\ndescription: Summarises logs.\nmetadata: {{version: 1.10, internal: true, owner: ops}}\n"
        "allowed-tools: [Read, Grep, 'Bash(git:*)']\n", None),
    "runtime-fields": (
        "name: {name}\ndescription: 'Reviews code. Use when: a PR is opened.'\nuser-invocable: true\n"
        "argument-hint: '[file]'\ndisable-model-invocation: false\nmodel: some-model\nwhen_to_use: on review\n", None),
    "unquoted-colon-and-inputs": (
        "name: {name}\ndescription: Renders reports. Use when: the user asks for a report\n"
        "inputs: [{{name: style, type: enum, enum: [short, long], default: short}}]\n"
        "mcp_deps: [{{tool: docs.search, required: false}}]\n", None),
    "merge-with-existing-skill-yaml": (
        'name: {name}\ndescription: Checks links.\nversion: "1.0.0"\ntags: [docs]\n',
        "# kept fields\nschema_version: \"1.0\"\nlicense: MIT\ntags:\n  - docs\ndisplay-name: Link Checker\n"),
    "empty-collections": (
        "name: {name}\ndescription: Does little.\nlicense: MIT\ntags: []\nmetadata: {{}}\ncapabilities: []\n", None),
}


def _make(root: Path, name: str, frontmatter: str, manifest: str | None, *, file: str = "SKILL.md") -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "scripts").mkdir()
    (folder / "scripts" / "x.py").write_text("print('x')\n", encoding="utf-8")
    (folder / file).write_bytes(f"---\n{frontmatter.format(name=name)}---\n{BODY}".encode())
    if manifest is not None:
        (folder / "skill.yaml").write_text(manifest, encoding="utf-8")
    return folder


def _same(key: str, ours: object, theirs: object) -> bool:
    from skillyard.format.portable import portable_value

    if key == "metadata" and isinstance(theirs, dict) and theirs.get("version") == 1.1:
        return ours == {"version": "1.10", "internal": "true", "owner": "ops"}  # as written, not as a float
    return ours == theirs or portable_value(key, ours) == portable_value(key, theirs)


@pytest.mark.parametrize("case", NON_PORTABLE, ids=NON_PORTABLE)
def test_migrate_output_passes_the_reference_validator(tmp_path, capsys, case):
    frontmatter, manifest = NON_PORTABLE[case]
    folder = _make(tmp_path, case, frontmatter, manifest)
    before = load_skill(folder, Policy(strict=False))
    assert any(f.rule == "not-portable" for f in before.findings)
    assert reference(folder)[0] == 1, "the fixture must be one the reference validator refuses"
    original = (folder / "SKILL.md").read_bytes()

    assert skillyard_main(["migrate", "--to-standard", str(folder)]) in (0, 3), capsys.readouterr()
    assert_reference_accepts(folder)
    after = load_skill(folder, Policy(strict=True))
    assert load_skill(folder, Policy(strict=False)).valid  # never worse: the lenient check still passes
    # `metadata.version: 1.10` is no SemVer version, so it is not copied to skill.yaml: that one is the author's
    assert not [f for f in after.findings if f.rule in ("not-portable", "manifest-conflict", "manifest-schema-version")
                and f.field != "metadata.version"]
    assert (folder / "SKILL.md").read_bytes().endswith(BODY.encode())  # the body, byte for byte
    assert (folder / "SKILL.md.legacy").read_bytes() == original
    for key, value in before.data.items():  # nothing lost: every field is still there, by the merge rule
        if value in ({}, [], None) and key not in after.data:
            continue  # an empty map or list carries nothing; the portable SKILL.md leaves it out
        assert _same(key, after.data[key], value), key


def test_migrate_of_a_lowercase_skill_md_passes(tmp_path, capsys):
    folder = _make(tmp_path, "lower", NON_PORTABLE["registry-fields-flow-lists"][0], None, file="skill.md")
    assert skillyard_main(["migrate", "--to-standard", str(folder)]) == 0, capsys.readouterr()
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md", "scripts", "skill.md.legacy", "skill.yaml"]
    assert_reference_accepts(folder)


def test_migrate_of_a_skill_yaml_only_folder_passes(tmp_path, capsys):
    folder = tmp_path / "invoice-processor"
    folder.mkdir()
    (folder / "skill.yaml").write_text(
        'schema_version: "1.0"\nname: invoice-processor\nversion: "1.2.0"\ndescription: "处理发票：OCR识别"\n'
        "tags: [finance, ocr]\nlicense: MIT\nmetadata: {team: 7}\nsystem_prompt: |\n  你是发票助手。\n"
        "  存入 {{inputs.target}}。\ninputs:\n  - name: target\n    type: string\n    default: invoices\n",
        encoding="utf-8")
    assert skillyard_main(["migrate", "--to-standard", str(folder)]) == 0, capsys.readouterr()
    assert_reference_accepts(folder)
    package = load_skill(folder, REGISTRY)
    assert package.valid, [f.to_dict() for f in package.errors]
    assert package.body.strip() == "你是发票助手。\n存入 {{inputs.target}}。"
    assert package.data["inputs"][0]["default"] == "invoices" and package.data["metadata"] == {"team": "7"}


def test_already_portable_folder_is_left_alone(tmp_path, capsys):
    assert skill_main(["init", "calm", "--dir", str(tmp_path), "--description",
                       "Calms a noisy log into a short summary. Use when a log is too long to read."]) == 0
    folder = tmp_path / "calm"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    capsys.readouterr()
    assert skillyard_main(["migrate", "--to-standard", str(folder)]) == 0
    assert "already portable" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


# the registry's own skills ---------------------------------------------------------------------------------------

# pointer folders (skills/<name>/source.yaml) hold no content here: theirs is checked upstream when added
PUBLISHED = sorted(p for p in (ROOT / "skills").iterdir() if p.is_dir() and not (p / "source.yaml").is_file()) \
    if (ROOT / "skills").is_dir() else []


@pytest.mark.parametrize("folder", PUBLISHED, ids=[p.name for p in PUBLISHED])
def test_every_published_skill_passes_the_reference_validator(folder):
    assert_reference_accepts(folder)


# the corpus differential (run on ../shared/corpus by the nox session `conformance`) --------------------------------

def test_corpus_diff_reports_each_disagreement_with_a_reason_and_no_content(tmp_path):
    from tests.conformance.corpus_diff import main

    corpus = tmp_path / "corpus"
    for name, frontmatter in {
        "fine": "name: fine\ndescription: ok\n",
        "nested-metadata": "name: nested-metadata\ndescription: ok\nmetadata:\n  team:\n    - secret-value\n",
        "flow": "name: flow\ndescription: ok\ntags: [a]\n",
    }.items():
        (corpus / "repo" / name).mkdir(parents=True)
        (corpus / "repo" / name / "SKILL.md").write_text(f"---\n{frontmatter}---\nbody\n", encoding="utf-8")
    out = tmp_path / "report.md"
    assert main([str(corpus), "--out", str(out)]) == 0
    report = out.read_text(encoding="utf-8")
    assert "- folders: 3" in report and "- disagreements: 1" in report and "- both refuse: 1" in report
    assert "| `repo/nested-metadata` | `metadata-format` | accepts | reason 1 |" in report
    assert "skills-ref is wrong" in report and "secret-value" not in report


# property: whatever non-portable frontmatter a runtime accepts, migrate makes it one the reference accepts ---------

_word = st.from_regex(r"[a-z][a-z0-9]{0,8}", fullmatch=True)
_prose = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd", "Zs", "Po")), min_size=1,
                 max_size=80).filter(lambda s: s.strip() and "---" not in s)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(description=_prose, license_=st.one_of(st.none(), _word), tags=st.lists(_word, max_size=4, unique=True),
       metadata=st.dictionaries(_word, st.one_of(_prose, st.integers(-(2**63), 2**63 - 1), st.booleans()), max_size=3),
       tools=st.one_of(st.none(), st.lists(_word, min_size=1, max_size=3)), flow=st.booleans(),
       extra=st.dictionaries(st.sampled_from(["author", "homepage", "user-invocable", "model"]),
                             st.sampled_from(["ada", "https://example.org/x", True, "m-1"]), max_size=2))
def test_migrate_makes_any_runtime_frontmatter_reference_valid(tmp_path_factory, description, license_, tags,
                                                               metadata, tools, flow, extra):
    import yaml
    from skills_ref.validator import validate

    from skillyard.registry.migrate import apply_plan, plan_migration

    folder = tmp_path_factory.mktemp("p") / "prop-skill"
    folder.mkdir()
    data = {"name": "prop-skill", "description": description, "version": "1.0.0", **extra}
    for key, value in (("license", license_), ("tags", tags), ("metadata", metadata), ("allowed-tools", tools)):
        if value:
            data[key] = value
    front = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, sort_keys=False, width=10_000)
    (folder / "SKILL.md").write_text(f"---\n{front}---\nBody {{{{x}}}}\n", encoding="utf-8")
    plan = plan_migration(folder)
    apply_plan(folder, plan, backup=False)
    assert validate(folder) == []
    after = load_skill(folder, Policy(strict=True))
    assert not [f for f in after.findings if f.rule in ("not-portable", "manifest-conflict")], after.findings
    assert after.body == "Body {{x}}\n"
    for key, value in data.items():
        assert _same(key, after.data[key], value), key
