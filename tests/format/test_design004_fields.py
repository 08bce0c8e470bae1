"""Design 004's extended fields (in skill.yaml): allowed values of `type`, `protocol`, `security.network`,
`triggers.priority`, and `resources.entry` naming a file of the skill; and `schema_version` newer than we know."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillyard.format import Policy, load_skill
from skillyard.format.manifest import parse_manifest
from skillyard.format.rules import resource_findings

SPEC = "name: weather-query\ndescription: Looks up the weather of a city. Use when asked about the weather.\n"
# The design's own example (VCP form), moved to skill.yaml as the portable split puts it.
GOOD = """\
schema_version: "1.0"
version: "1.0.0"
type: service
protocol: abp
triggers:
  intents: [weather_lookup]
  phrases: ["天气"]
  priority: 0.8
security:
  timeout_ms: 5000
  memory_mb: 128
  network: "allowlist"
  network_allowlist:
    - https://api.example.com
  filesystem: "read-only"
resources:
  entry: "./scripts/execute.ts"
  helpers:
    - "./scripts/helpers/math.ts"
"""
FILES = {"scripts/execute.ts": "export async function execute() {}\n", "scripts/helpers/math.ts": "export {};\n"}
STRICT, LENIENT = Policy(strict=True), Policy(strict=False)


def errors(folder, policy=STRICT):
    return [f for f in load_skill(folder, policy).findings if f.is_error]


def with_manifest(make_skill, manifest: str, files: dict | None = None):
    return make_skill("weather-query", SPEC, files={"skill.yaml": manifest, **(FILES if files is None else files)})


def test_the_designs_example_is_valid(make_skill):
    assert errors(with_manifest(make_skill, GOOD)) == []


@pytest.mark.parametrize("old,new,rule,field", [
    ("type: service", "type: bogus", "skill-type", "type"),
    ("protocol: abp", "protocol: soap", "protocol-value", "protocol"),
    ("priority: 0.8", "priority: 7", "triggers-priority", "triggers.priority"),
    ("priority: 0.8", "priority: -0.1", "triggers-priority", "triggers.priority"),
    ("priority: 0.8", 'priority: "high"', "triggers-priority", "triggers.priority"),
    ('network: "allowlist"', "network: true", "security-network", "security.network"),
    ('network: "allowlist"', "network: everything", "security-network", "security.network"),
    ('filesystem: "read-only"', "filesystem: read-write", "security-format", "security.filesystem"),
    ("timeout_ms: 5000", "timeout_ms: 0", "security-format", "security.timeout_ms"),
])
def test_values_outside_the_allowed_set_are_errors_naming_the_field(make_skill, old, new, rule, field):
    assert old in GOOD
    found = [f for f in errors(with_manifest(make_skill, GOOD.replace(old, new))) if f.rule == rule]
    assert [f.field for f in found] == [field] and found[0].fix


def test_lenient_mode_reports_other_runtimes_values_as_warnings(make_skill):
    folder = with_manifest(make_skill, GOOD.replace("type: service", "type: bogus"))
    [finding] = [f for f in load_skill(folder, LENIENT).findings if f.rule == "skill-type"]
    assert not finding.is_error and "direct, service" in finding.message


def test_a_missing_entry_is_an_error(make_skill):
    folder = with_manifest(make_skill, GOOD, files={"scripts/helpers/math.ts": "export {};\n"})
    [finding] = [f for f in errors(folder) if f.rule == "resources-entry"]
    assert "no such file" in finding.message and finding.field == "resources.entry"
    # lenient mode too: a runtime would start a script that is not there
    assert any(f.rule == "resources-entry" for f in errors(folder, LENIENT))


def test_a_missing_helper_is_an_error(make_skill):
    folder = with_manifest(make_skill, GOOD, files={"scripts/execute.ts": "x\n"})
    assert [f.field for f in errors(folder) if f.rule == "resources-format"] == ["resources.helpers[0]"]


@pytest.mark.parametrize("entry", ["../other/execute.ts", "/etc/passwd", "scripts/../../x.ts", "C:/x.ts",
                                   "scripts/.git/config", "scripts/\u202eexe.ts", ".", ""])
def test_an_entry_outside_the_folder_is_refused_by_the_path_rule(make_skill, entry):
    folder = with_manifest(make_skill, GOOD.replace('"./scripts/execute.ts"', repr(entry)))
    found = [f for f in errors(folder) if f.rule == "resources-entry"]
    assert found and all(f.field == "resources.entry" for f in found)


@given(st.text(max_size=60))
def test_resource_findings_never_accepts_a_path_that_is_not_a_file_of_the_skill(entry):
    files = {"scripts/execute.ts"}
    found = resource_findings({"resources": {"entry": entry}}, files, file="skill.yaml", key_lines={})
    normal = entry[2:] if entry.startswith("./") else entry
    assert (found == []) == (normal in files)


# schema_version ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["1.7", "1.1"])
def test_a_newer_minor_version_is_read_with_a_warning_naming_the_upgrade(version):
    for strict in (True, False):
        [finding] = parse_manifest(f'schema_version: "{version}"\n', strict=strict)[2]
        assert not finding.is_error and finding.rule == "manifest-schema-version"
        assert f'"{version}" is newer than this Skillyard understands (1.0)' in finding.message
        assert "Upgrade Skillyard" in finding.fix


@pytest.mark.parametrize("strict", [True, False])
def test_a_newer_major_version_is_refused_in_both_modes(strict):
    [finding] = parse_manifest('schema_version: "2.0"\n', strict=strict)[2]
    assert finding.is_error and "understands (1.0)" in finding.message and "Upgrade Skillyard" in finding.fix


def test_a_malformed_version_says_so_and_not_upgrade():
    [finding] = parse_manifest('schema_version: "v2"\n', strict=True)[2]
    assert finding.is_error and "MAJOR.MINOR" in finding.message and "Upgrade" not in finding.fix


def test_schema_version_is_required_in_strict_mode(make_skill):
    folder = with_manifest(make_skill, GOOD.replace('schema_version: "1.0"\n', ""))
    assert [f.rule for f in errors(folder)] == ["manifest-schema-version"]
    assert not any(f.rule == "manifest-schema-version" for f in errors(folder, LENIENT))
