"""Compare our strict-standard verdict with the reference validator's (skills-ref), folder by folder, over a corpus
of real third-party skills, and write tests/conformance/skills-ref-disagreements.md.

    python tests/conformance/corpus_diff.py ../shared/corpus [--out FILE]

Our verdict is `load_skill` in strict mode restricted to the rules that implement the standard (frontmatter, YAML,
the standard's fields, portability); registry policy beyond the standard (security scan, path and package rules)
is left out, since the reference validator does not look at it. The report lists folder names, rule ids and
categories of the reference's messages only -- never corpus content (its messages can quote YAML, so they are
reduced to a category).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from pathlib import Path

STANDARD_RULES = re.compile(
    r"^(frontmatter-|yaml-|required-field$|name-|description-format$|license-format$|compatibility-format$|"
    r"metadata-format$|allowed-tools-format$|not-portable$|skill-md-|control-character$|invisible-unicode$|"
    r"angle-bracket$|encoding$)")

# The reference's messages, reduced to a category (never the quoted content).
THEIR_CATEGORIES = [
    (re.compile(r"^Unexpected fields in frontmatter: ([\w, -]+)\."), "unexpected-fields"),
    (re.compile(r"^Invalid YAML in frontmatter"), "strictyaml-refused"),
    (re.compile(r"^Missing required field in frontmatter: (\w+)"), "missing-field"),
    (re.compile(r"^SKILL.md must start with YAML frontmatter"), "no-frontmatter"),
    (re.compile(r"^SKILL.md frontmatter not properly closed"), "unclosed"),
    (re.compile(r"^SKILL.md frontmatter must be a YAML mapping"), "not-a-mapping"),
    (re.compile(r"^Missing required file"), "no-skill-md"),
    (re.compile(r"^Directory name .* must match skill name"), "name-folder-mismatch"),
    (re.compile(r"^Skill name .* must be lowercase"), "name-not-lowercase"),
    (re.compile(r"^Skill name .* contains invalid characters"), "name-characters"),
    (re.compile(r"^Skill name cannot"), "name-hyphens"),
    (re.compile(r"exceeds \d+ character limit"), "too-long"),
    (re.compile(r"must be a non-empty string"), "empty-or-not-string"),
    (re.compile(r"^Field 'compatibility' must be a string"), "compatibility-not-string"),
]

# Why the two disagree, by (what we report, what they report). Checked in order; the first match explains.
EXPLANATIONS = [
    (lambda ours, theirs: not ours and "strictyaml-refused" in theirs,
     "skills-ref is wrong: it splits the file at the first `---` anywhere (`content.split('---', 2)`), so a `---` "
     "inside a value, or a body that is read as YAML, breaks it; or strictyaml refuses a construct the standard's "
     "YAML allows. We accept only what strictyaml accepts except this splitting bug."),
    (lambda ours, theirs: ours and not theirs and any(r.startswith("name-") for r in ours),
     "We are stricter on `name`: ASCII lowercase letters, digits and single hyphens, no Windows device names "
     "(the standard's wording; skills-ref accepts any Unicode letter after NFKC)."),
    (lambda ours, theirs: ours and not theirs and "not-portable" in ours,
     "We refuse what spec-only clients misread though skills-ref passes it: a byte-order mark, a `---` inside "
     "the frontmatter, or a list for `allowed-tools` (skills-ref does not check its type)."),
    (lambda ours, theirs: ours and not theirs and ("metadata-format" in ours or "allowed-tools-format" in ours),
     "skills-ref is wrong: the standard makes `metadata` a map of strings to strings, but skills-ref turns a nested "
     "list or map into its Python `str()` (`\"['a', 'b']\"`, `\"{'k': 'v'}\"`) and passes it, and it does not "
     "type-check `allowed-tools`. Clients that read YAML normally get a list or map where the standard promises a "
     "string."),
    (lambda ours, theirs: ours and not theirs and ("invisible-unicode" in ours or "control-character" in ours
                                                   or "angle-bracket" in ours),
     "We are stricter on purpose, beyond the standard: invisible/control characters and `<`/`>` in frontmatter are "
     "refused (frontmatter reaches model prompts and web pages: markup injection); skills-ref has no such check."),
    (lambda ours, theirs: ours and not theirs and any(r.startswith("yaml-") for r in ours),
     "Our YAML bounds or repairs (unquoted `: `, duplicate keys, limits) refuse what skills-ref's strictyaml read."),
    (lambda ours, theirs: ours and not theirs and "description-format" in ours,
     "We count the description after YAML folding; skills-ref counts the same string, so this is a length "
     "edge case."),
    (lambda ours, theirs: ours and not theirs and set(ours) <= {"frontmatter-line-too-long", "frontmatter-too-long"},
     "Registry style, strict mode only: a frontmatter line over 500 characters (a one-line description the standard "
     "allows up to 1,024) or over 200 lines. The fix is named in the finding: fold it as a `description: >-` block, "
     "which `skillyard migrate --to-standard` does. Lenient mode and the runtime accept these folders "
     "(standard-floor-exceptions.md)."),
    (lambda ours, theirs: ours and not theirs and "encoding" in ours,
     "We refuse SKILL.md that is not UTF-8 text before parsing; skills-ref reported something else first."),
]


def _categories(messages: list[str]) -> list[str]:
    out = []
    for message in messages:
        for pattern, category in THEIR_CATEGORIES:
            match = pattern.search(message)
            if match:
                detail = match.group(1) if match.groups() and category in ("unexpected-fields", "missing-field") else ""
                out.append(f"{category}({detail})" if detail else category)
                break
        else:
            out.append("other")
    return out


def skill_folders(root: Path, limit: int = 5000) -> list[Path]:
    """Every folder holding a SKILL.md or skill.md, without following links, bounded."""
    found = []
    for directory, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if "SKILL.md" in files or "skill.md" in files:
            found.append(Path(directory))
            if len(found) >= limit:
                break
    return sorted(found)


def ours(folder: Path) -> list[str]:
    from skillyard.format import Policy, load_skill

    package = load_skill(folder, Policy(strict=True))
    return sorted({f.rule for f in package.findings if f.is_error and STANDARD_RULES.match(f.rule)
                   and not _registry_only(f)})


def _registry_only(finding) -> bool:
    """`not-portable` findings about where Skillyard reads its own data (skill.yaml, `metadata.version`) are registry
    policy: the standard has nothing to say about them."""
    return finding.rule == "not-portable" and (finding.file == "skill.yaml" or (finding.field or "").startswith("metadata."))


def theirs(folder: Path) -> list[str]:
    from skills_ref.validator import validate

    try:
        return _categories(validate(folder))
    except Exception as exc:  # noqa: BLE001 - a crash of the reference is itself a finding
        return [f"crash({type(exc).__name__})"]


def explain(our_rules: list[str], their_cats: list[str]) -> str:
    for test, text in EXPLANATIONS:
        if test(our_rules, their_cats):
            return text
    if our_rules and not their_cats:
        return "We refuse, skills-ref accepts: see our rule ids."
    return "skills-ref refuses, we accept: see its categories."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("skills-ref-disagreements.md"))
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"{args.corpus}: not a folder", file=sys.stderr)
        return 2
    rows = []
    agree = Counter()
    folders = skill_folders(args.corpus)
    for folder in folders:
        our_rules, their_cats = ours(folder), theirs(folder)
        if bool(our_rules) == bool(their_cats):
            agree["both refuse" if our_rules else "both accept"] += 1
            continue
        rows.append((folder.relative_to(args.corpus).as_posix(), our_rules, their_cats))
    lines = ["# Where skills-ref disagrees with our strict-standard verdict", "",
             "Written by `tests/conformance/corpus_diff.py` (nox session `conformance`). skills-ref 0.1.1's "
             "`validate` against `load_skill` in strict mode, restricted to the standard's rules (registry policy "
             "such as the security scan is left out). Folder names, rule ids and message categories only.", "",
             f"- folders: {len(folders)}",
             *(f"- {key}: {value}" for key, value in sorted(agree.items())),
             f"- disagreements: {len(rows)}", ""]
    reasons = Counter(explain(o, t) for _, o, t in rows)
    if rows:
        lines += ["## Reasons", ""]
        lines += [f"- {count} folder(s): {reason}" for reason, count in reasons.most_common()]
        lines += ["", "## Folders", "", "| folder | ours (strict) | skills-ref | reason |", "| --- | --- | --- | --- |"]
        numbered = {reason: index for index, (reason, _) in enumerate(reasons.most_common(), start=1)}
        for name, our_rules, their_cats in rows:
            verdict = ", ".join(f"`{r}`" for r in our_rules) or "accepts"
            their = ", ".join(their_cats) or "accepts"
            lines.append(f"| `{name}` | {verdict} | {their} | reason {numbered[explain(our_rules, their_cats)]} |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(folders)} folder(s), {len(rows)} disagreement(s): {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
