"""Behaviour of skills/commit-message-writer/scripts/commit_lint.py."""

from __future__ import annotations

import json


def lint(run, *args, stdin=None):
    done = run("commit-message-writer", "commit_lint.py", *args, "--json", stdin=stdin)
    report = json.loads(done.stdout)
    return done.returncode, [(p["severity"], p["line"], p["message"]) for p in report["problems"]]


def test_good_conventional_message_passes(run):
    message = ("fix(auth): refresh the token before it expires\n\n"
               "Tokens were refreshed only after a 401.\n"
               "See https://example.invalid/a/very/long/url/that/is/allowed/to/exceed/the/wrap/limit/of/the/body\n\n"
               "Fixes #482\n# Please enter the commit message\n")
    assert lint(run, "-", stdin=message) == (0, [])


def test_errors_and_warnings_are_reported_with_lines(run):
    code, problems = lint(run, "--text", "Added new stuff.\nsecond line\n\n" + "x" * 80)
    assert code == 1
    messages = {(sev, line): msg for sev, line, msg in problems}
    assert "not `type(scope): description`" in messages[("error", 1)]
    assert messages[("error", 2)].startswith("leave the second line blank")
    assert messages[("warning", 4)] == "body line is 80 characters; wrap at 72"
    assert any("`Add`, not `Added`" in m for _, _, m in problems)
    assert any("period" in m for _, _, m in problems)


def test_types_case_length_wip_and_breaking(run):
    assert lint(run, "--text", "feature: add x")[1][0][2].startswith("unknown type `feature`")
    code, problems = lint(run, "--text", "feat(api)!: Drop list return")
    assert code == 0
    assert [m.split(";")[0].split(" (")[0] for _, _, m in problems] == [
        "start the description in lower case after the colon", "breaking change"]
    code, problems = lint(run, "--text", "fix: " + "a" * 70, "--subject-max", "72")
    assert code == 1 and "75 characters" in problems[0][2]
    assert lint(run, "--text", "fixup! feat: x")[0] == 1


def test_plain_style_and_scissors_and_empty(run, tmp_path):
    assert lint(run, "--style", "plain", "--text", "Handle empty config files") == (0, [])
    assert lint(run, "--style", "plain", "--text", "handle it")[1] == [
        ("warning", 1, "start the subject with a capital letter")]
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text("docs: fix typo\n# ------------------------ >8 ------------------------\ndiff --git a b\n" + "y" * 99,
                   encoding="utf-8")
    assert lint(run, str(msg)) == (0, [])
    assert lint(run, "--text", "# only a comment\n")[1] == [("error", 1, "the message is empty")]
    done = run("commit-message-writer", "commit_lint.py", str(tmp_path / "missing"))
    assert done.returncode == 2 and "missing" in done.stderr
