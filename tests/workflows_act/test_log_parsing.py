"""The harness reads act's log to tell which step passed, failed or was skipped; a misread would let a scenario
pass that should fail. Runs without act or ../shared."""

from __future__ import annotations

from tests.workflows_act.harness import ActResult, parse_steps

LOG = """\
[validate/reusable validate/validate changed skills] ⭐ Run Main Upload the report
[validate/reusable validate/validate changed skills]   ✅  Success - Main Upload the report [23.181319271s]
[validate/reusable validate/validate changed skills]   ❗  ::error::The report is 600000 bytes; the bot accepts at most 512 KiB.
[validate/reusable validate/validate changed skills]   ❌  Failure - Main Compile the registry (into a temp folder) [2.09s]
[validate/reusable validate/validate changed skills]   ✅  Success - Post actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 [539.5ms]
[validate/reusable validate/validate changed skills] 🏁  Job failed
"""


def test_step_outcomes_and_errors_are_read_from_acts_log():
    steps = parse_steps(LOG)
    assert [(s.name, s.outcome) for s in steps] == [
        ("Upload the report", "success"),
        ("Compile the registry (into a temp folder)", "failure"),
        ("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683", "success")]
    assert steps[0].job == "validate/reusable validate/validate changed skills"
    result = ActResult(1, LOG, 0.0, steps)
    assert result.step("Compile the registry").outcome == "failure"
    assert result.errors() == ["The report is 600000 bytes; the bot accepts at most 512 KiB."]
