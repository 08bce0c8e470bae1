#!/usr/bin/env python3
"""Build a Markdown changelog section from git history, grouped by Conventional Commit type.

Reads commits either from git directly (`--range v1.2.0..HEAD`, runs `git log` in --repo) or from a file made with
the record format printed by `--print-format` (so it also works where the agent cannot run git, or on `git log
--oneline` output). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

FIELD, RECORD = "\x1f", "\x1e"
GIT_FORMAT = "%H%x1f%an%x1f%ad%x1f%s%x1f%b%x1e"
HEADER = re.compile(r"^(?P<type>[a-zA-Z]+)(?:\((?P<scope>[^()]*)\))?(?P<bang>!)?:\s*(?P<subject>.+)$")
BREAKING_FOOTER = re.compile(r"^BREAKING[ -]CHANGE:\s*(?P<text>.+)$", re.M)
ONELINE = re.compile(r"^(?P<hash>[0-9a-f]{7,40})\s+(?P<subject>.+)$")
SECTIONS = (
    ("feat", "Features"), ("fix", "Bug fixes"), ("perf", "Performance"), ("revert", "Reverts"),
    ("refactor", "Refactoring"), ("docs", "Documentation"), ("test", "Tests"), ("build", "Build"),
    ("ci", "Continuous integration"), ("style", "Style"), ("chore", "Chores"),
)
DEFAULT_TYPES = ("feat", "fix", "perf", "revert")
SKIP_SUBJECT = re.compile(r"^(Merge (pull request|branch|remote-tracking branch)|Merged? in )", re.I)


def parse_records(text: str) -> list[dict]:
    """Commits from `--print-format` records, or from `git log --oneline` lines when no separators are present."""
    commits = []
    if FIELD in text:
        for record in text.split(RECORD):
            record = record.strip("\n")
            if not record.strip():
                continue
            parts = record.split(FIELD)
            if len(parts) < 4:
                raise ValueError(f"malformed record (expected 5 fields): {record[:60]!r}")
            sha, author, day, subject = parts[:4]
            body = parts[4] if len(parts) > 4 else ""
            commits.append({"hash": sha.strip(), "author": author, "date": day, "subject": subject.strip(),
                            "body": body.strip()})
        return commits
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        match = ONELINE.match(line.strip())
        if not match:
            raise ValueError(f"line {number} is neither a record nor `git log --oneline` output: {line[:60]!r}")
        commits.append({"hash": match["hash"], "author": "", "date": "", "subject": match["subject"], "body": ""})
    return commits


def classify(commit: dict) -> dict:
    """Add type, scope, description and breaking flag; non-conventional subjects become type `other`.

    Types outside the Conventional Commits list (e.g. `skills:`) keep their name but are listed under "Other".
    """
    out = dict(commit)
    match = HEADER.match(commit["subject"])
    if match:
        out.update(type=match["type"].lower(), scope=match["scope"] or "", description=match["subject"].strip(),
                   breaking=bool(match["bang"]))
    else:
        out.update(type="other", scope="", description=commit["subject"], breaking=False)
    footer = BREAKING_FOOTER.search(commit.get("body", ""))
    if footer:
        out["breaking"] = True
        out["breaking_note"] = footer["text"].strip()
    elif out["breaking"]:
        out["breaking_note"] = out["description"]
    return out


def render(commits: list[dict], *, version: str, day: str, types: tuple[str, ...], authors: bool,
           commit_url: str | None) -> str:
    lines = [f"## {version} - {day}", ""]
    kept = [c for c in commits if not SKIP_SUBJECT.match(c["subject"])]

    def entry(c: dict, text: str) -> str:
        scope = f"**{c['scope']}:** " if c["scope"] else ""
        sha = c["hash"][:7]
        ref = f"[{sha}]({commit_url.format(hash=c['hash'])})" if commit_url and c["hash"] else sha
        who = f" by {c['author']}" if authors and c["author"] else ""
        return f"- {scope}{text} ({ref}){who}"

    breaking = [c for c in kept if c["breaking"]]
    if breaking:
        lines += ["### Breaking changes", ""] + [entry(c, c["breaking_note"]) for c in breaking] + [""]
    titles = dict(SECTIONS)
    order = [t for t, _ in SECTIONS if t in types] + [t for t in types if t not in titles]
    for kind in order:
        group = [c for c in kept if (c["type"] if c["type"] in titles else "other") == kind]
        if group:
            title = titles.get(kind, "Other changes" if kind == "other" else kind.capitalize())
            lines += [f"### {title}", ""] + [entry(c, c["description"] if c["type"] in titles else c["subject"]) for c in sorted(
                group, key=lambda c: (c["scope"], c["description"].lower()))] + [""]
    if len(lines) == 2:
        lines += ["No user-facing changes.", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def run_git(repo: str, rev_range: str) -> str:
    try:
        done = subprocess.run(["git", "-C", repo, "log", "--no-color", f"--format={GIT_FORMAT}", "--date=short",
                               rev_range], capture_output=True, text=True, encoding="utf-8", check=False)
    except FileNotFoundError:
        raise ValueError("git is not installed; export the log with --print-format and pass it with --input") from None
    if done.returncode != 0:
        raise ValueError(f"git log {rev_range} failed: {done.stderr.strip()}")
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Generate a Markdown changelog section from Conventional Commits.",
        epilog="examples:\n  git_changelog.py --range v1.2.0..HEAD --version 1.3.0\n"
               "  git log --oneline v1.2.0..HEAD | git_changelog.py --input - --version 1.3.0",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--range", dest="rev_range", help="git revision range, e.g. v1.2.0..HEAD")
    source.add_argument("--input", help="file with exported records or `git log --oneline` lines (- for stdin)")
    source.add_argument("--print-format", action="store_true", help="print the git log command for --input and exit")
    parser.add_argument("--repo", default=".", help="repository folder for --range (default: current folder)")
    parser.add_argument("--version", default="Unreleased", help="heading for the section (default Unreleased)")
    parser.add_argument("--date", default=None, help="date in the heading (default: today)")
    parser.add_argument("--types", default=",".join(DEFAULT_TYPES),
                        help="comma-separated commit types to list; `other` covers unknown and non-conventional "
                             "subjects; 'all' lists everything "
                             f"(default {','.join(DEFAULT_TYPES)}); breaking changes are always listed")
    parser.add_argument("--authors", action="store_true", help="credit commit authors")
    parser.add_argument("--commit-url", help="link template with {hash}, e.g. https://github.com/o/r/commit/{hash}")
    parser.add_argument("--json", action="store_true", help="print the classified commits as JSON instead")
    args = parser.parse_args(argv)
    if args.print_format:
        print(f"git log --format='{GIT_FORMAT}' --date=short RANGE > commits.txt")
        return 0
    if args.commit_url and "{hash}" not in args.commit_url:
        parser.error("--commit-url must contain {hash}")
    types = tuple(t for t, _ in SECTIONS) + ("other",) if args.types == "all" else tuple(
        t.strip().lower() for t in args.types.split(",") if t.strip())
    try:
        if args.input:
            text = sys.stdin.read() if args.input == "-" else Path(args.input).read_text(encoding="utf-8")
        else:
            text = run_git(args.repo, args.rev_range or "HEAD")
        commits = [classify(c) for c in parse_records(text)]
    except OSError as exc:
        print(f"error: cannot read {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(commits, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(render(commits, version=args.version, day=args.date or date.today().isoformat(), types=types,
                            authors=args.authors, commit_url=args.commit_url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
