"""The PR comment lists the findings a skill's reviewed security exceptions allow, each with its reason, apart from
the errors that block: end to end from a real `skillyard validate --json` through the GitHub stand-in."""

from __future__ import annotations

import json

import pytest
from botkit import REGISTRY_SLUG, write_artifact
from ghstub import Pull, fake_sha

from skillyard.bot.render import MARKER
from skillyard.cli.main import skillyard_main

pytestmark = pytest.mark.usefixtures("bot_env")
REASON = "Shows a zero-width space as an example of hidden text."


def validate_report(tmp_path, capsys, *, with_exception: bool) -> dict:
    skill = tmp_path / "skills" / "teach"
    (skill / "references").mkdir(parents=True, exist_ok=True)
    (skill / "SKILL.md").write_text("---\nname: teach\ndescription: Teaches how prompt injection hides text. Use "
                                    "when reviewing skills.\nlicense: MIT\n---\n\n# Teach\n\nRead references/x.md.\n",
                                    encoding="utf-8")
    (skill / "references/x.md").write_text("A hidden split: read\u200bthe notes.\n", encoding="utf-8")
    tail = ("security_exceptions:\n  - rule: security-invisible-unicode\n    file: references/x.md\n"
            f"    reason: {REASON}\n") if with_exception else ""
    (skill / "skill.yaml").write_text('schema_version: "1.0"\nversion: 1.0.0\n' + tail, encoding="utf-8")
    capsys.readouterr()
    skillyard_main(["validate", "--root", str(tmp_path), "--strict", "--json", str(tmp_path / "skills")])
    return json.loads(capsys.readouterr().out)


def comment_for(stub, repo, tmp_path, report: dict, number: int) -> str:
    repo.pulls[number] = Pull(number, "carol", fake_sha("head", number),
                              files=[("skills/teach/SKILL.md", "added"), ("skills/teach/references/x.md", "added")])
    artifact = write_artifact(tmp_path, report, f"report-{number}.json")
    assert skillyard_main(["bot", "report", "--repo", REGISTRY_SLUG, "--artifact", str(artifact), "--api-url",
                           stub.base_url, "--pr", str(number)]) == 0
    [comment] = [c for c in repo.comments.values() if c["issue"] == number and MARKER in c["body"]]
    return comment["body"]


def test_the_comment_lists_allowed_findings_with_their_reason(stub, registry_repo, tmp_path, capsys):
    blocked = comment_for(stub, registry_repo, tmp_path, validate_report(tmp_path, capsys, with_exception=False), 4)
    assert "**Errors (block the merge):**" in blocked and "Allowed by the skill" not in blocked

    report = validate_report(tmp_path, capsys, with_exception=True)
    assert report["ok"] is True
    body = comment_for(stub, registry_repo, tmp_path, report, 5)
    assert "✅ 1 skill(s) valid" in body
    assert "**Errors (block the merge):**" not in body
    allowed = body[body.index("**Allowed by the skill's security exceptions"):]
    assert "security-invisible-unicode" in allowed.split("\n")[1]
    assert f"allowed by the skill, reason: `{REASON}`" in allowed
    assert "#### Security findings" in body  # still flagged for the reviewer

