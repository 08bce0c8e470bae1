"""registry.report.validate_report_json: byte for byte the generic encoder's answer (json.dumps with
ensure_ascii=False, indent=2, sort_keys=True, and a final newline) for any skills and findings."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillyard.format.findings import Finding, Severity
from skillyard.registry.checked import CheckedSkill
from skillyard.registry.report import validate_report, validate_report_json

text = st.text(max_size=12) | st.sampled_from(["\0skills\0", "\\u0000skills\\u0000", "\u2028", '"', "\\", "发票"])
optional = st.none() | text
findings = st.builds(Finding, rule=text, severity=st.sampled_from(list(Severity)), message=text, fix=optional,
                     file=optional, line=st.none() | st.integers(-5, 10**12), field=optional, allowed=optional)
skills = st.builds(CheckedSkill, path=text, name=text, version=optional, line=st.just(""),
                   findings=st.lists(findings, max_size=3))


def generic(checked, mode, changed) -> str:
    report = validate_report(checked, mode, changed_paths=changed)
    return json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


@settings(max_examples=400, deadline=None)
@given(st.lists(skills, max_size=4), st.sampled_from(["lenient", "strict"]), st.none() | st.lists(text, max_size=3))
@example([], "lenient", None)
@example([CheckedSkill("skills/a", "a", None, "", [])], "strict", ["\0skills\0"])
def test_report_json_is_the_generic_encoders(checked, mode, changed) -> None:
    assert validate_report_json(checked, mode, changed_paths=changed) == generic(checked, mode, changed)


class Name(str):
    """A str subclass: not the report's plain type, so the generic encoder decides."""


def test_unexpected_types_go_to_the_generic_encoder() -> None:
    checked = [CheckedSkill("skills/a", Name("a"), "1.0", "", [Finding("r", Severity.ERROR, "m", line=True)])]
    assert validate_report_json(checked, "lenient") == generic(checked, "lenient", None)
    assert '"line": true' in validate_report_json(checked, "lenient")
