#!/usr/bin/env python3
"""Lint a git commit message: subject length and form, blank line, body wrapping, Conventional Commits.

Reads a message file (as git passes to a commit-msg hook), standard input, or `--text`. Lines starting with `#`
are ignored, like git does, and so is everything below git's "------------------------ >8 ------------------------"
scissors line. Exit code 1 when an error is found, 0 otherwise (warnings do not fail).
"""

from __future__ import annotations

import argparse
import json
import re
import sys

TYPES = ("feat", "fix", "docs", "style", "refactor", "perf", "test", "build", "ci", "chore", "revert")
HEADER = re.compile(r"^(?P<type>[a-z]+)(?:\((?P<scope>[^()\s]+)\))?(?P<bang>!)?: (?P<desc>.+)$")
NOT_IMPERATIVE = re.compile(r"^(added|adds|adding|fixed|fixes|fixing|updated|updates|updating|changed|changes|"
                            r"changing|removed|removes|removing|created|creates|implemented|implements|refactored|"
                            r"improved|improves|renamed|renames|moved|moves|deleted|deletes)\b", re.I)
TRAILER = re.compile(r"^[A-Za-z][A-Za-z-]*: .+$|^BREAKING CHANGE: .+$")
SCISSORS = "# ------------------------ >8 ------------------------"


def clean(message: str) -> list[str]:
    lines = []
    for line in message.replace("\r\n", "\n").split("\n"):
        if line.startswith(SCISSORS):
            break
        if not line.startswith("#"):
            lines.append(line.rstrip())
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def lint(message: str, *, style: str = "conventional", subject_max: int = 72, body_max: int = 72) -> list[dict]:
    problems: list[dict] = []

    def add(severity: str, line: int, text: str) -> None:
        problems.append({"severity": severity, "line": line, "message": text})

    lines = clean(message)
    if not lines:
        add("error", 1, "the message is empty")
        return problems
    subject = lines[0]
    if len(subject) > subject_max:
        add("error", 1, f"subject is {len(subject)} characters; keep it at most {subject_max} (50 is ideal)")
    elif len(subject) > 50:
        add("warning", 1, f"subject is {len(subject)} characters; 50 or fewer reads best in one-line logs")
    if subject.endswith("."):
        add("warning", 1, "subject ends with a period; drop it")
    if subject != subject.strip():
        add("warning", 1, "subject has leading whitespace")
    description = subject
    if style == "conventional":
        match = HEADER.match(subject)
        if not match:
            add("error", 1, "subject is not `type(scope): description` (e.g. `fix(parser): handle empty files`)")
        else:
            description = match["desc"]
            if match["type"] not in TYPES:
                add("error", 1, f"unknown type `{match['type']}`; use one of {', '.join(TYPES)}")
            if description[:1].isupper() and not description[:2].isupper():
                add("warning", 1, "start the description in lower case after the colon")
    elif subject[:1].islower():
        add("warning", 1, "start the subject with a capital letter")
    if NOT_IMPERATIVE.match(description):
        word = description.split()[0]
        add("warning", 1, f"use the imperative mood (`{_imperative(word)}`, not `{word}`)")
    if re.match(r"^(wip|fixup!|squash!)", subject, re.I):
        add("error", 1, "work-in-progress or fixup commit; squash it before merging")
    if len(lines) > 1 and lines[1]:
        add("error", 2, "leave the second line blank to separate subject and body")
    in_code = False
    for number, line in enumerate(lines[2:], start=3):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith(("    ", "\t")) or "://" in line or TRAILER.match(line):
            continue
        if len(line) > body_max:
            add("warning", number, f"body line is {len(line)} characters; wrap at {body_max}")
    if style == "conventional":
        match = HEADER.match(subject)
        trailers = [line for line in lines if line.startswith(("BREAKING CHANGE:", "BREAKING-CHANGE:"))]
        if match and match["bang"] and not trailers and len(lines) < 3:
            add("warning", 1, "breaking change (`!`) without a body; explain what users must change")
    return problems


BASE_VERBS = ("add", "fix", "update", "change", "remove", "create", "implement", "refactor", "improve", "rename",
              "move", "delete")


def _imperative(word: str) -> str:
    """`Added` -> `Add`, `fixes` -> `fix`: the base verb from NOT_IMPERATIVE's list, in the word's case."""
    lower = word.lower()
    for base in BASE_VERBS:
        if lower.startswith(base[:-1] if base.endswith("e") else base):
            return base.capitalize() if word[:1].isupper() else base
    return word


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lint a git commit message.",
                                     epilog="examples:\n  commit_lint.py .git/COMMIT_EDITMSG\n"
                                            "  commit_lint.py --text 'fix: handle empty files'\n"
                                            "  git log -1 --format=%B | commit_lint.py -",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="message file, or - for standard input")
    parser.add_argument("--text", help="the message itself")
    parser.add_argument("--style", choices=("conventional", "plain"), default="conventional")
    parser.add_argument("--subject-max", type=int, default=72)
    parser.add_argument("--body-max", type=int, default=72)
    parser.add_argument("--json", action="store_true", help="print problems as JSON")
    args = parser.parse_args(argv)
    if (args.file is None) == (args.text is None):
        parser.error("give a message file (or -) or --text, not both")
    if args.text is not None:
        message = args.text
    elif args.file == "-":
        message = sys.stdin.read()
    else:
        try:
            with open(args.file, encoding="utf-8") as handle:
                message = handle.read()
        except OSError as exc:
            print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
            return 2
    problems = lint(message, style=args.style, subject_max=args.subject_max, body_max=args.body_max)
    if args.json:
        json.dump({"ok": not any(p["severity"] == "error" for p in problems), "problems": problems}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for p in problems:
            print(f"{p['severity']}: line {p['line']}: {p['message']}")
        if not problems:
            print("ok")
    return 1 if any(p["severity"] == "error" for p in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
