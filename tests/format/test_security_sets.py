"""Recall and false positives of the security scan on the committed labelled sets (tests/security_sets): at least
90% of the malicious samples flagged and 75% blocked (an error), at most 20% of the hard negatives flagged and none
blocked. The tuned hard negatives are chosen at the edge on purpose (a vendor's installer run by a script, a scheduled
job for the user's own program, an attack quoted to teach it): a warning to review is the designed verdict there, a
block never is (issue 34, item 4). The held-out bar (3 of 20 flagged) is measured by benchmarks/bench_security.py,
which also holds the timing side."""

from __future__ import annotations

import pytest
from tests.security_sets import materialize

from skillyard.format import Policy, load_skill


def _verdicts(kind: str, tmp_path) -> dict[str, tuple[bool, bool]]:
    out = {}
    for folder in materialize(kind, tmp_path):
        found = [f for f in load_skill(folder, Policy(strict=False)).findings if f.rule.startswith("security-")]
        out[folder.name] = (bool(found), any(f.is_error for f in found))
    return out


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    base = tmp_path_factory.mktemp("sets")
    return {kind: _verdicts(kind, base) for kind in ("malicious", "benign")}


def test_the_sets_are_large_enough(verdicts):
    assert len(verdicts["malicious"]) >= 80 and len(verdicts["benign"]) >= 40


def test_malicious_samples_are_flagged_and_blocked(verdicts):
    results = verdicts["malicious"]
    flagged = sum(f for f, _ in results.values()) / len(results)
    blocked = sum(b for _, b in results.values()) / len(results)
    missed = sorted(name for name, (_, b) in results.items() if not b)
    assert flagged >= 0.90, missed
    assert blocked >= 0.75, missed


def test_hard_negatives_stay_quiet(verdicts):
    results = verdicts["benign"]
    flagged = sorted(name for name, (f, _) in results.items() if f)
    blocked = sorted(name for name, (_, b) in results.items() if b)
    assert len(flagged) <= 0.20 * len(results), flagged
    assert not blocked, blocked


def test_every_class_is_blocked_somewhere(verdicts):
    """No class of technique is missed wholesale (a rule that stopped working would show here)."""
    by_class: dict[str, list[bool]] = {}
    for name, (_, blocked) in verdicts["malicious"].items():
        by_class.setdefault(name.rsplit("-", 1)[0], []).append(blocked)
    assert all(any(v) for v in by_class.values()), {k: v for k, v in by_class.items() if not any(v)}
