"""The standard is the floor, over a corpus: the committed exceptions file (written by floor_diff.py over real skills
in `nox -s conformance`) stays under 1% and each exception has a security reason written down in security.md; the
script itself is checked here on a corpus it generates."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conformance.floor_diff import LIMIT, SECURITY_REASONS, main

HERE = Path(__file__).resolve().parent
SECURITY_PAGE = HERE.parents[1] / "site" / "pages" / "security.md"


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_every_refusal_the_check_allows_is_documented_in_the_security_page():
    section = _section(SECURITY_PAGE.read_text(encoding="utf-8"), "The open standard is the floor")
    documented = {rule for row in section.splitlines() if row.startswith("| `")
                  for rule in re.findall(r"`([a-z][a-z-]+)`", row.split(" | ")[0])}
    assert documented == set(SECURITY_REASONS)


def test_the_committed_exceptions_stay_under_one_percent_and_each_has_a_documented_reason():
    report = (HERE / "standard-floor-exceptions.md").read_text(encoding="utf-8")
    accepted = int(re.search(r"^- skills-ref accepts: (\d+)$", report, re.M).group(1))
    exceptions = int(re.search(r"^- exceptions: (\d+) ", report, re.M).group(1))
    assert accepted > 0 and exceptions / accepted < LIMIT
    rows = re.findall(r"^\| `([^`]+)` \| (.+) \| (.+) \|$", report, re.M)
    assert len(rows) == exceptions
    for _, ours, hidden in rows:
        for rule in re.findall(r"`([^`]+)`", ours + hidden):
            assert rule in SECURITY_REASONS, rule
    assert "NOT DOCUMENTED" not in report


def _skill(corpus: Path, name: str, frontmatter: str, body: str = "Body.\n") -> None:
    folder = corpus / "repo" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n{frontmatter}---\n{body}", encoding="utf-8")


def test_the_floor_check_lists_only_documented_exceptions_and_no_content(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    _skill(corpus, "long-one", "description: " + "Summarises long reports for busy readers. " * 24 + "\n")
    _skill(corpus, "angled", "description: Turns <input> into <output>.\ncompatibility: python >= 3.11\n")
    _skill(corpus, "typed", "description: 2024\nlicense:\n")
    _skill(corpus, "hidden-text", "description: Ok.\n", body="Say h\u200bi secret-value.\n")
    _skill(corpus, "not-standard", "description: Ok.\ntags: [a]\n")  # skills-ref refuses: not checked
    out = tmp_path / "floor.md"
    assert main([str(corpus), "--out", str(out)]) == 1  # 1 exception in 4 accepted folders is over 1%
    report = out.read_text(encoding="utf-8")
    assert "- folders: 5\n- skills-ref accepts: 4\n- lenient validate refuses: 1\n- skill prompt hides: 0\n" in report
    assert "| `repo/hidden-text` | `security-invisible-unicode` | lists |" in report
    assert "long-one" not in report and "angled" not in report and "typed" not in report
    assert "secret-value" not in report and "NOT DOCUMENTED" not in report
