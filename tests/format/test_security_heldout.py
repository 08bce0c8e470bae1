"""The held-out security set (tests/security_sets/heldout): samples the rule writers never read, so what it measures
is recall on techniques the rules were not tuned to. Asserted here is only what must hold whatever the rules are:
the labels match the folders, the malicious samples are inert, every sample loads without crashing, and no hard
negative is blocked. The held-out recall is printed, never asserted: it is a measured figure (the issue's 34/40 flagged
and 28/40 blocked), reported by benchmarks/bench_security.py."""

from __future__ import annotations

import ipaddress
import json
import re
from collections import Counter
from urllib.parse import urlsplit

import pytest
from tests.security_sets import FIXTURE_NAME, ROOT, materialize

from skillyard.format import Policy, load_skill

HELDOUT = ROOT / "heldout"
CLASSES = ("download-and-run", "data theft", "instructions that hijack the agent", "obfuscation", "persistence")
DOCUMENTATION_NET = ipaddress.ip_network("203.0.113.0/24")
URL = re.compile(r"\b(?:https?|ftp)://([^/\s'\"`)<>|\\]+)")


def _labels() -> dict[str, dict]:
    return json.loads((HELDOUT / "labels.json").read_text(encoding="utf-8"))["samples"]


def test_labels_name_every_sample_and_nothing_else():
    on_disk = {f"{kind}/{p.name}" for kind in ("malicious", "benign") for p in (HELDOUT / kind).iterdir()}
    assert set(_labels()) == on_disk
    assert all((HELDOUT / name / FIXTURE_NAME).is_file() for name in on_disk)


def test_forty_malicious_samples_eight_per_class_and_twenty_hard_negatives():
    labels = _labels()
    malicious = Counter(v["class"] for k, v in labels.items() if k.startswith("malicious/"))
    assert malicious == dict.fromkeys(CLASSES, 8)
    assert sum(k.startswith("benign/") for k in labels) == 20
    assert all(v["expected"] == ("block" if k.startswith("malicious/") else "not blocked") and v["technique"]
               for k, v in labels.items())


def _inert_host(netloc: str) -> bool:
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0].strip("[]").lower()
    if any(c in host for c in "${<"):
        return True  # built at run time ($h, {host}, <name>): the literal parts are checked where they are written
    try:
        return ipaddress.ip_address(host) in DOCUMENTATION_NET
    except ValueError:
        return host.endswith(".invalid")


def test_malicious_samples_only_name_inert_hosts():
    """Every URL in a malicious sample's text points at `.invalid` or 203.0.113.0/24 (README: nothing here works)."""
    bad = []
    for path in sorted((HELDOUT / "malicious").rglob("*")):
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        bad += [f"{path.relative_to(HELDOUT)}: {m.group(0)}" for m in URL.finditer(text)
                if not _inert_host(urlsplit(m.group(0)).netloc)]
        bad += [f"{path.relative_to(HELDOUT)}: {ip}" for ip in re.findall(r"\b\d{1,3}(?:\.\d{1,3}){3}\b", text)
                if _real_address(ip) and ip != "127.0.0.1" and ipaddress.ip_address(ip) not in DOCUMENTATION_NET]
    assert not bad


def _real_address(text: str) -> bool:
    """Dotted quads that are no address (a reversed one, '26.311.0.302') name no host."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def test_inert_host_check_can_fail():
    assert not _inert_host("evil.example.com") and not _inert_host("198.51.100.7")
    assert _inert_host("a.b.invalid:8443") and _inert_host("203.0.113.9")


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> dict[str, tuple[bool, bool]]:
    """folder ('malicious/download-1') -> (flagged, blocked); loading must not raise for any sample."""
    base = tmp_path_factory.mktemp("heldout")
    out = {}
    for kind in ("malicious", "benign"):
        for folder in materialize(f"heldout/{kind}", base):
            found = [f for f in load_skill(folder, Policy(strict=False)).findings if f.rule.startswith("security-")]
            out[f"{kind}/{folder.name}"] = (bool(found), any(f.is_error for f in found))
    return out


def test_every_sample_loads(verdicts):
    assert set(verdicts) == set(_labels())


def test_no_hard_negative_is_blocked(verdicts):
    blocked = sorted(name for name, (_, b) in verdicts.items() if name.startswith("benign/") and b)
    assert not blocked


def test_report_heldout_recall(verdicts, capsys):
    """Prints the figures (flagged / blocked per class, hard negatives flagged); asserts nothing about them."""
    labels = _labels()
    lines = ["held-out set (never read by rule writers):"]
    for cls in CLASSES:
        names = [k for k, v in labels.items() if v["class"] == cls]
        lines.append(f"  {cls:38s} flagged {sum(verdicts[n][0] for n in names)}/{len(names)}, "
                     f"blocked {sum(verdicts[n][1] for n in names)}/{len(names)}")
    malicious = [k for k in labels if k.startswith("malicious/")]
    benign = [k for k in labels if k.startswith("benign/")]
    lines.append(f"  {'all malicious':38s} flagged {sum(verdicts[n][0] for n in malicious)}/{len(malicious)}, "
                 f"blocked {sum(verdicts[n][1] for n in malicious)}/{len(malicious)} (issue 34 target: 34 and 28)")
    lines.append(f"  {'hard negatives':38s} flagged {sum(verdicts[n][0] for n in benign)}/{len(benign)}, "
                 f"blocked {sum(verdicts[n][1] for n in benign)}/{len(benign)} (target: at most 3 flagged, 0 blocked)")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
