"""format/verdict.py: the one judge's own rules — exceptions by who reviewed them, and lines that exist."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.format.findings import Finding, Severity
from skillyard.format.policy import Policy
from skillyard.format.verdict import judge, judge_files, placed

SKILL = "---\nname: demo\ndescription: Does demo things. Use when asked for demo.\n---\n\n# Demo\n\nSee notes.\n"
NOTES = "# Notes\n\n<!-- hidden text for the agent -->\n"
MANIFEST = ("security_exceptions:\n- rule: security-hidden-comment\n  file: references/notes.md\n"
            "  reason: a comment kept for the test\n")


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200), line=st.integers(-3, 40))
def test_no_finding_keeps_a_line_its_file_does_not_have(text, line, tmp_path_factory):
    folder = tmp_path_factory.mktemp("f")
    (folder / "a.txt").write_text(text, encoding="utf-8", newline="")
    lines = text.encode().count(b"\n") + 1
    [out] = placed([Finding("security-x", Severity.WARNING, "m", None, "a.txt", line)], folder)
    assert out.line == (line if 1 <= line <= lines else None)


def test_a_missing_file_keeps_its_finding_line(tmp_path):
    [out] = placed([Finding("r", Severity.ERROR, "m", None, "gone.md", 7)], tmp_path)
    assert out.line == 7


def _files() -> dict[str, tuple[bytes, bool]]:
    return {"SKILL.md": (SKILL.encode(), False), "references/notes.md": (NOTES.encode(), False),
            "skill.yaml": (MANIFEST.encode(), False)}


def test_own_exceptions_count_only_where_they_were_reviewed(tmp_path):
    folder = tmp_path / "demo"
    for rel, (content, _) in _files().items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(content)
    own = judge(folder, Policy(strict=False), own_reviewed=True)
    [hidden] = [f for f in own.findings if f.rule == "security-hidden-comment"]
    assert hidden.allowed == "a comment kept for the test" and own.withdrawn == []
    untrusted = judge_files(_files(), "demo", Policy(strict=False))
    [hidden] = [f for f in untrusted.findings if f.rule == "security-hidden-comment"]
    assert hidden.allowed is None and [f.rule for f in untrusted.withdrawn] == ["security-hidden-comment"]
    assert not any(f.rule == "exception-stale" for f in untrusted.findings)
    reviewed = judge_files(_files(), "demo", Policy(strict=False), reviewed=[
        {"rule": "security-hidden-comment", "file": "references/notes.md", "reason": "reviewed here"}])
    assert [f.allowed for f in reviewed.findings if f.rule == "security-hidden-comment"] == ["reviewed here"]
    assert reviewed.security() == [f.to_dict() for f in reviewed.findings if f.rule.startswith("security-")]
