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


@settings(max_examples=60, deadline=None)
@given(body=st.text(alphabet=st.sampled_from("ab <!-\n>#"), max_size=120), linked=st.booleans(),
       line=st.integers(-1, 30))
def test_counts_from_the_bytes_read_place_lines_as_a_second_read_would(body, linked, line, tmp_path_factory):
    """load_skill counts the lines of the files its findings name from the bytes it read (`line_counts`); judge's
    placing with them equals placing by reading every file again, a file read through a link (lenient) included."""
    from skillyard.format.package import load_skill

    folder = tmp_path_factory.mktemp("skill") / "demo"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL + body, encoding="utf-8", newline="")
    (folder / "references" / "notes.md").write_text(NOTES + body, encoding="utf-8", newline="")
    if linked:
        (folder / "references" / "copy.md").symlink_to("notes.md")
    policy = Policy(strict=False)
    package = load_skill(folder, policy)
    if linked:  # the link's copy holds the hidden comment too: named by a finding, never counted
        assert any(f.file == "references/copy.md" and f.line for f in package.findings)
    assert "references/copy.md" not in package.line_counts
    assert "references/notes.md" in package.line_counts
    probes = [Finding("security-x", Severity.WARNING, "m", None, rel, line)
              for rel in ("SKILL.md", "references/notes.md", "references/copy.md", "gone.md")]
    findings = package.findings + probes
    assert placed(findings, folder, package.line_counts) == placed(findings, folder)
    assert judge(folder, policy, own_reviewed=True).findings == placed(package.findings, folder)
