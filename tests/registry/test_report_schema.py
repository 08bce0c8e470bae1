"""Issue 24 item 9: every `skillyard validate --json` report validates against validate-report.schema.json, for
any skills: more than 1,000 of them, names, paths and versions of any length quoted from hostile files, any
messages, hundreds of findings per skill. The summary still counts everything; what the report cuts, it says."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillyard.format.findings import Finding, Severity
from skillyard.format.schemas import schema_errors
from skillyard.registry.checked import CheckedSkill
from skillyard.registry.report import FINDINGS_LIMIT, TRUNCATED_RULE, validate_report, validate_report_json

anything = st.text(max_size=400) | st.text(alphabet="a-z0-9\u202e\x1b\u200b\"\\/发", min_size=60, max_size=5000)
optional = st.none() | anything
findings = st.builds(Finding, rule=anything, severity=st.sampled_from(list(Severity)), message=anything,
                     fix=optional, file=optional, line=st.none() | st.integers(1, 10**12), field=optional)
skills = st.builds(CheckedSkill, path=anything, name=anything, version=optional, line=st.just(""),
                   findings=st.lists(findings, max_size=4))


def report_of(checked, changed=None) -> dict:
    text = validate_report_json(checked, "strict", changed_paths=changed)
    assert json.loads(text) == json.loads(json.dumps(validate_report(checked, "strict", changed_paths=changed)))
    return json.loads(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(skills, max_size=5), st.none() | st.lists(anything | st.text(min_size=4097, max_size=5000),
                                                            max_size=3))
def test_any_report_matches_its_schema(checked, changed) -> None:
    report = report_of(checked, changed)
    assert schema_errors("validate-report", report) == []
    assert report["summary"]["skills"] == len(report["skills"]) == len(checked)


def test_a_report_over_more_than_a_thousand_skills_matches_its_schema() -> None:
    checked = [CheckedSkill(f"skills/s{i:05d}", f"s{i:05d}", "1.0.0", "", []) for i in range(1500)]
    report = report_of(checked)
    assert schema_errors("validate-report", report) == [] and len(report["skills"]) == 1500


def test_long_names_are_cut_with_an_ellipsis_and_the_summary_is_unchanged() -> None:
    name = "x" * 300
    bad = Finding("name-format", Severity.ERROR, f"`name` {name!r} is too long.")
    report = report_of([CheckedSkill("skills/" + "p" * 400, name, "9" * 200, "", [bad])])
    skill = report["skills"][0]
    assert skill["name"] == "x" * 63 + "\u2026" and len(skill["path"]) == 300 and skill["path"].endswith("\u2026")
    assert len(skill["version"]) == 100 and skill["findings"][0]["message"] == bad.message  # messages are whole
    assert schema_errors("validate-report", report) == []


def test_past_the_findings_limit_errors_are_kept_and_the_rest_counted() -> None:
    many = [Finding("ignored-file", Severity.INFO, f"file {i}", file=f"f{i}") for i in range(700)]
    many.insert(650, Finding("name-format", Severity.ERROR, "the error"))
    report = report_of([CheckedSkill("skills/a", "a", None, "", many)])
    listed = report["skills"][0]["findings"]
    assert len(listed) == FINDINGS_LIMIT and schema_errors("validate-report", report) == []
    assert any(f["message"] == "the error" for f in listed) and report["skills"][0]["valid"] is False
    assert listed[-1]["rule"] == TRUNCATED_RULE and "202 more finding(s)" in listed[-1]["message"]
    assert report["summary"]["errors"] == 1 and report["rule_counts"]["info:ignored-file"] == 700
