"""The bot's pure parts: change classification, labels, automerge rules, rendering, artifact parsing."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime

import pytest
from botkit import make_report, registry_doc
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.bot import decide
from skillyard.bot.artifact import ArtifactError, parse_report, safe_relpath
from skillyard.bot.render import MARKER, render_comment

REG = registry_doc({"pdf-tools": {"author": "@Alice", "maintainers": ["bob", "Not A Handle"]},
                    "csv-profiler": {"author": "dave"}})
OWNERS = decide.owners_from_registry(REG)


def test_owners_are_normalised_handles():
    assert OWNERS["skills/pdf-tools"] == {"alice", "bob"}
    assert OWNERS["skills/csv-profiler"] == {"dave"}


def test_classify_changes():
    changes = decide.classify_changes([
        ("skills/pdf-tools/SKILL.md", "modified"), ("skills/new-one/SKILL.md", "added"),
        ("skills/csv-profiler/SKILL.md", "removed"), ("skills/csv-profiler/scripts/run.py", "removed"),
        ("skills/README.md", "modified"), ("noxfile.py", "modified")], REG)
    assert [(c.folder, c.kind) for c in changes.skills] == [
        ("skills/csv-profiler", "removed"), ("skills/new-one", "new"), ("skills/pdf-tools", "update")]
    assert changes.outside == ("noxfile.py", "skills/README.md")


@pytest.mark.parametrize("files, author, report, expected", [
    ([("skills/x/SKILL.md", "added")], "carol", make_report([{"name": "x"}]), {"new-skill"}),
    ([("skills/pdf-tools/SKILL.md", "modified")], "alice", make_report([{"name": "pdf-tools"}]), {"skill-update"}),
    ([("skills/pdf-tools/SKILL.md", "modified")], "carol", None, {"skill-update", "needs-maintainer"}),
    ([("README.md", "modified")], "carol", make_report([]), {"tooling"}),
    ([("skills/x/SKILL.md", "added"), ("README.md", "modified")], "carol", None,
     {"new-skill", "tooling", "needs-maintainer"}),
    ([("skills/x/SKILL.md", "added")], "carol",
     make_report([{"name": "x", "valid": False, "findings": [{"rule": "r", "severity": "error", "message": "m"}]}]),
     {"new-skill", "invalid"}),
    ([("skills/x/SKILL.md", "added")], "carol",
     make_report([{"name": "x", "findings": [{"rule": "security-invisible-unicode", "severity": "warning",
                                              "message": "m"}]}]), {"new-skill", "security-finding"}),
])
def test_labels_for(files, author, report, expected):
    assert decide.labels_for(decide.classify_changes(files, REG), report, OWNERS, author) == expected


def test_label_delta_only_touches_managed_labels():
    assert decide.label_delta({"invalid", "help wanted", "new-skill"}, {"new-skill", "tooling"}) == (
        ["tooling"], ["invalid"])


APPROVAL = decide.Review("APPROVED", "h" * 40, datetime(2026, 1, 2, tzinfo=UTC), "maint")


RUN = decide.ValidateRun(7, "validate", "pull_request", "h" * 40, "completed", "success", suite_id=3)


def _facts(**kw):
    report = make_report([{"name": "pdf-tools"}])
    report["commit"] = "h" * 40
    base = dict(author="alice", head_sha="h" * 40,
                changes=decide.classify_changes([("skills/pdf-tools/SKILL.md", "modified")], REG), owners=OWNERS,
                labels=frozenset({"automerge"}), label_actor="maint", writers=frozenset({"maint"}),
                reviews=(APPROVAL,), validate_run=RUN, report=report,
                checks=(decide.Check("ci", "completed", "success"),
                        decide.Check("validate", "completed", "success", decide.ACTIONS_APP, 3)))
    base.update(kw)
    return decide.AutomergeFacts(**base)


def test_automerge_decision_pure():
    assert decide.automerge_decision(_facts()).merge
    stale = decide.automerge_decision(_facts(reviews=(decide.Review("APPROVED", "x" * 40, user="maint"),)))
    assert not stale.merge and stale.remove_label
    changes_requested = decide.automerge_decision(
        _facts(reviews=(APPROVAL, decide.Review("CHANGES_REQUESTED", "h" * 40, user="bob"))))
    assert not changes_requested.merge and "@bob requests changes" in changes_requested.reasons
    merged = decide.automerge_decision(_facts(state="closed"))
    assert not merged.merge and not merged.remove_label


def _new_skill_facts(**kw):
    report = make_report([{"name": "brand-new"}])
    report["commit"] = "h" * 40
    changes = decide.classify_changes([("skills/brand-new/SKILL.md", "added")], REG)
    return _facts(author="newcomer", changes=changes, report=report, **kw)


@pytest.mark.parametrize(("kw", "reason"), [
    ({}, None),
    ({"reviews": ()}, "@maint added the `automerge` label but has not approved the PR"),
    ({"reviews": (decide.Review("APPROVED", "x" * 40, user="maint"),)}, "a commit landed after @maint's approval"),
    ({"label_actor": "bob"}, "the `automerge` label was added by @bob, who has no write access"),
    ({"exceptions_changed": ("skills/brand-new",)}, "the PR adds or changes `security_exceptions`"),
    ({"verification_claimed": ("skills/brand-new",)}, "the PR writes `verified: true`"),
    ({"labels": frozenset({"automerge", "needs-maintainer"})}, "blocking label(s): needs-maintainer"),
])
def test_a_new_skill_automerges_only_on_the_labelling_maintainers_approval_and_every_other_guard(kw, reason):
    """The labelling maintainer's approval of the head is a new skill's review; nothing else is relaxed."""
    decision = decide.automerge_decision(_new_skill_facts(**kw))
    assert decision.merge is (reason is None)
    assert reason is None or any(r.startswith(reason) for r in decision.reasons), decision.reasons


def test_a_new_skill_next_to_someone_elses_skill_or_a_removal_is_refused():
    mixed = decide.classify_changes([("skills/brand-new/SKILL.md", "added"), ("skills/pdf-tools/SKILL.md",
                                                                             "modified")], REG)
    report = make_report([{"name": "brand-new"}, {"name": "pdf-tools"}])
    report["commit"] = "h" * 40
    decision = decide.automerge_decision(_facts(author="newcomer", changes=mixed, report=report))
    assert not decision.merge and "@newcomer does not own skills/pdf-tools" in decision.reasons
    removal = decide.classify_changes([("skills/brand-new/SKILL.md", "added"), ("skills/csv-profiler/SKILL.md",
                                        "removed"), ("skills/csv-profiler/scripts/run.py", "removed")], REG)
    assert [c.kind for c in removal.skills] == ["new", "removed"]
    decision = decide.automerge_decision(_facts(author="dave", changes=removal, report=report))
    assert not decision.merge and any(r.startswith("removing a skill needs a maintainer") for r in decision.reasons)


def test_render_puts_untrusted_text_in_code_spans():
    from mdcheck import outside_code

    report = make_report([{"name": "x", "valid": False, "findings": [{
        "rule": "bad", "severity": "error", "file": "SKILL.md", "line": 1,
        "message": "<img src=x onerror=alert(1)> [click](https://evil.example) @everyone -->",
        "fix": "<script>alert(1)</script>"}]}])
    text = render_comment(report)
    assert text.startswith(MARKER + "\n")
    plain = outside_code(text.split("\n", 1)[1])
    for bad in ("<img", "<script", "](https", "evil.example", "@everyone", "-->"):
        assert bad not in plain and bad in text


def test_render_is_deterministic_and_bounded():
    findings = [{"rule": "r", "severity": "warning", "message": "m" * 300} for _ in range(500)]
    report = make_report([{"name": f"s{i}", "findings": findings} for i in range(3)])
    first = render_comment(report)
    assert first == render_comment(json.loads(json.dumps(report)))
    assert len(first) <= 60100 and "too long to show in full" in first


@pytest.mark.parametrize("path, ok", [
    ("skills/a/SKILL.md", True), ("skills/../x", False), ("/etc/passwd", False), ("a\\b", False),
    ("C:/x", False), ("a//b", False), ("./a", False), ("a\nb", False), ("~/x", False), ("", False)])
def test_safe_relpath(path, ok):
    assert safe_relpath(path) is ok


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_parse_report_never_crashes_on_bytes(raw):
    with contextlib.suppress(ArtifactError):
        parse_report(raw)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10), c, max_size=4),
                    max_leaves=30))
def test_parse_report_rejects_or_returns_a_valid_report(doc):
    try:
        out = parse_report(json.dumps(doc).encode())
    except ArtifactError:
        return
    assert out["schema_version"] == "1.0"


def test_labels_compare_without_letter_case():
    """GitHub's label names ignore letter case: `Security-Finding` is the managed `security-finding`."""
    assert decide.label_delta({"Security-Finding", "New-Skill", "Help Wanted"}, {"new-skill"}) == (
        [], ["Security-Finding"])
    assert decide.has_label({"AUTOMERGE"}, "automerge")
    assert not decide.automerge_decision(_facts(labels=frozenset({"automerge", "Security-Finding"}))).merge


def _security_report(**finding):
    report = make_report([{"name": "pdf-tools", "findings": [
        {"rule": "security-pipe-to-shell", "severity": "warning", "file": "SKILL.md", "message": "m", **finding}]}])
    report["commit"] = "h" * 40
    return report


def test_only_a_reviewed_exception_acknowledges_a_security_finding():
    """`allowed` (a skill.yaml exception) acknowledges a finding only while the skill's exceptions are the base
    branch's; labels and the report's own verdict do not."""
    assert not decide.automerge_decision(_facts(report=_security_report())).merge
    assert decide.automerge_decision(_facts(report=_security_report(allowed="lists attacks"))).merge
    changed = decide.automerge_decision(_facts(report=_security_report(allowed="lists attacks"),
                                               exceptions_changed=("skills/pdf-tools",)))
    assert not changed.merge and any("allowed only by exceptions this PR adds or changes" in r
                                     for r in changed.reasons)
    assert decide.security_reasons(_security_report(allowed="  ")) != []   # a blank reason is no review


def test_the_required_check_is_a_job_of_the_actions_workflow():
    ok = decide.Check("validate / validate changed skills", "completed", "success", decide.ACTIONS_APP, 3)
    assert decide.check_is_required(ok, "validate")
    assert not decide.check_is_required(decide.Check("validate", "completed", "success", "other-app", 3), "validate")
    assert not decide.check_is_required(decide.Check("validated", "completed", "success", decide.ACTIONS_APP), "validate")
    missing = decide.automerge_decision(_facts(validate_run=None, checks=()))
    assert not missing.merge and not missing.waiting


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=3000))
def test_report_from_zip_never_crashes_on_bytes(raw):
    from skillyard.bot.artifact import report_from_zip

    with contextlib.suppress(ArtifactError):
        report_from_zip(raw)


def test_a_report_that_leaves_out_a_changed_skill_refuses():
    report = make_report([])
    report["commit"] = "h" * 40
    decision = decide.automerge_decision(_facts(report=report))
    assert "the `validate` report does not cover skills/pdf-tools" in decision.reasons


def _zip(members) -> bytes:
    import io
    import warnings
    import zipfile

    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore")  # duplicate member names are one of the hostile cases
        for name, data, deflate in members:
            archive.writestr(name, data, zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED)
    return buffer.getvalue()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["report.json", "x.json", "report.json/", "../report.json"]),
                          st.binary(max_size=200) | st.just(json.dumps(make_report([])).encode()),
                          st.booleans()), max_size=3),
       st.integers(min_value=0, max_value=400))
def test_report_from_zip_takes_exactly_one_report_or_refuses(members, cut):
    """Real archives, whole or cut short: a report comes back only from a single `report.json` member."""
    from skillyard.bot.artifact import report_from_zip

    data = _zip(members)
    data = data[:len(data) - cut] if cut else data
    try:
        out = report_from_zip(data)
    except ArtifactError:
        return
    assert out["schema_version"] == "1.0" and [m[0] for m in members] == ["report.json"]


def test_security_label_spares_reviewed_exceptions_and_exception_changes_need_a_maintainer():
    changes = decide.classify_changes([("skills/pdf-tools/skill.yaml", "modified")], REG)
    allowed = _security_report(allowed="lists attacks")
    assert decide.labels_for(changes, allowed, OWNERS, "alice") == {"skill-update"}
    assert decide.labels_for(changes, _security_report(), OWNERS, "alice") == {"skill-update", "security-finding"}
    assert decide.labels_for(changes, allowed, OWNERS, "alice", exceptions_changed=["skills/pdf-tools"]) == {
        "skill-update", "security-finding", "needs-maintainer"}
    assert "needs-maintainer" in decide.labels_for(changes, allowed, OWNERS, "alice", exceptions_unknown=True)
