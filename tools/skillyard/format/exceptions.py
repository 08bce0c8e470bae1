"""Reviewed security exceptions: skill.yaml's `security_exceptions`, a list of `{rule, file, reason}`.

A skill that teaches security must quote what the scanner refuses (a zero-width space in a prompt-injection example,
`curl … | sh` in a list of attacks). One entry allows one security rule in one file: the finding stays in every
report, carrying the reason as `allowed`, but is no longer an error. Only the scanner's rules (format/scan/judge.py)
may be allowed, never a format rule. A registry's reviewers decide whether an exception stands (automerge refuses a
PR that adds or changes one), so the `skill` client honours an exception only from a registry entry that carries
it, never from the skill.yaml of a folder, archive or `github:` install. Pure: data in, findings out.
"""

from __future__ import annotations

from skillyard.format import paths, safety
from skillyard.format.findings import Finding, error, warning

FIELD = "security_exceptions"
MANIFEST = "skill.yaml"
MAX_REASON = 500  # characters: a reviewer's sentence or two, shown on the site and in the PR comment
MAX_ENTRIES = 100  # one per rule and file: no honest skill comes near it
KEYS = ("rule", "file", "reason")
# The scanner's rules (every rule id format/scan/judge.py reports; tests/format/test_exceptions.py keeps the two in
# step). Text a skill may need to quote to teach: invisible and control characters, hidden markup, downloads piped
# to a shell, credential paths, base64 blobs. Frontmatter checks (`invisible-unicode` and `control-character` in a
# SKILL.md or skill.yaml value) are not here: that text is what every runtime loads and catalogues show.
EXCEPTABLE_RULES = frozenset({
    "security-invisible-unicode", "security-control-character", "security-hidden-comment",
    "security-pipe-to-shell", "security-credential-path", "security-base64-blob",
    # the behaviour rules (format/scan/rules.py, format/scan/skill_level.py)
    "security-download-exec", "security-obfuscated-exec", "security-exfiltration", "security-persistence",
    "security-safety-bypass", "security-prompt-injection", "security-concealment", "security-hidden-instructions",
    "security-typosquat", "security-package-index",
    "security-reverse-shell",  # format/scan/behaviour_shell.py: a shell bound to a socket
    # prose the model reads and opaque content (format/scan/prose.py, format/scan/opaque.py)
    "security-no-confirmation", "security-remote-instructions", "security-agent-config-write",
    "security-tool-poisoning", "security-archive", "security-opaque-code",
})
_FRONTMATTER_TWINS = {"invisible-unicode": "security-invisible-unicode",
                      "control-character": "security-control-character"}


def entry_lines(text: str, key_line: int | None, count: int) -> list[int | None]:
    """The 1-based line of each item of the block list under the key on `key_line` (the key's own line for a flow
    list or when the items cannot be told apart), so an error names the entry's line."""
    if key_line is None:
        return [None] * count
    lines = text.split("\n")
    found: list[int] = []
    indent = None
    for number in range(key_line + 1, len(lines) + 1):
        line = lines[number - 1]
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        depth = len(line) - len(stripped)
        if indent is None:
            if not stripped.startswith("-"):
                break
            indent = depth
        if depth < indent or (depth == indent and not stripped.startswith("-")):
            break
        if depth == indent:
            found.append(number)
    return found[:count] if len(found) >= count else [key_line] * count


def parse(value: object, *, text: str, key_line: int | None,
          files: set[str]) -> tuple[list[dict], list[Finding], dict[tuple[str, str], int | None]]:
    """The valid entries (sorted by file, then rule) and an error for each malformed one: not a mapping, a key other
    than rule/file/reason, an unknown or non-security rule, a path that is outside the skill or no published file,
    an empty or overlong reason, the same rule and file twice. Third, each valid entry's skill.yaml line."""
    where = {"file": MANIFEST, "field": FIELD}
    if value is None:
        return [], [], {}
    if not isinstance(value, list):
        return [], [error("exception-invalid", f"`{FIELD}` in skill.yaml is a {type(value).__name__}, not a list.",
                          _FORM, line=key_line, **where)], {}
    if len(value) > MAX_ENTRIES:
        return [], [error("exception-invalid", f"`{FIELD}` lists {len(value)} entries; at most {MAX_ENTRIES} are "
                          "allowed.", "Fix the findings instead; keep exceptions for text the skill must quote.",
                          line=key_line, **where)], {}
    entries: list[dict] = []
    findings: list[Finding] = []
    seen: dict[tuple[str, str], int | None] = {}
    for index, (item, line) in enumerate(zip(value, entry_lines(text, key_line, len(value)), strict=True)):
        at = {"file": MANIFEST, "line": line, "field": f"{FIELD}[{index}]"}
        problem, fix = _entry_problem(item, files)
        if problem is None and (item["rule"], item["file"]) in seen:
            problem = f"allows `{item['rule']}` in `{paths.shown(item['file'])}` a second time"
            fix = "Keep one entry per rule and file (one reason for both)."
        if problem is not None:
            findings.append(error("exception-invalid", f"`{FIELD}[{index}]` {problem}.", fix, **at))
            continue
        seen[item["rule"], item["file"]] = line
        entries.append({"rule": item["rule"], "file": item["file"], "reason": item["reason"].strip()})
    entries.sort(key=lambda e: (e["file"], e["rule"]))
    return entries, findings, seen


_FORM = ("Write each exception as a mapping: `- rule: security-invisible-unicode`, `file: references/attacks.md`, "
         "`reason: <why the skill must ship this text>`.")


def _entry_problem(item: object, files: set[str]) -> tuple[str | None, str]:
    """(what is wrong with one entry, the fix), or (None, "") for a valid one."""
    if not isinstance(item, dict):
        return f"is a {type(item).__name__}, not a mapping of rule, file and reason", _FORM
    extra = sorted(str(k) for k in item if k not in KEYS)
    if extra:
        return f"has the key `{safety.visible(extra[0], one_line=True)[:60]}`; an entry has only rule, file and " \
               "reason", "Remove the other keys (one rule in one file per entry)."
    missing = [k for k in KEYS if k not in item]
    if missing:
        return f"has no `{missing[0]}`", _FORM
    rule, file, reason = item["rule"], item["file"], item["reason"]
    allowed = ", ".join(sorted(EXCEPTABLE_RULES))
    if not isinstance(rule, str) or rule not in EXCEPTABLE_RULES:
        shown = safety.visible(rule, one_line=True)[:80] if isinstance(rule, str) else repr(rule)[:80]
        if isinstance(rule, str) and rule in _FRONTMATTER_TWINS:
            return (f"names `{rule}`, a frontmatter check: characters hidden in a SKILL.md or skill.yaml value cannot "
                    "be allowed"), f"Delete the character; for a file's text the rule is `{_FRONTMATTER_TWINS[rule]}`."
        return f"names the rule `{shown}`, which is not a security rule an exception may allow", \
            f"Use the rule id of the finding (`skillyard validate` prints it), one of: {allowed}."
    if not isinstance(file, str) or not file:
        return "has a `file` that is not a path", "Give the file's path inside the skill, such as references/attacks.md."
    problem = paths.path_problem(file)
    if problem is not None:
        return f"names the file `{paths.shown(file)}`, which {problem}", \
            "Give a relative POSIX path inside the skill folder, such as references/attacks.md (no `./`, no `..`)."
    if file == MANIFEST:
        return "names skill.yaml itself", "Keep skill.yaml free of findings: the exceptions' own file is not exempt."
    if file not in files:
        near = next((f for f in sorted(files) if f.casefold() == file.casefold()), None)
        return f"names `{paths.shown(file)}`, but the skill publishes no such file", \
            f"Did you mean `{near}`? Paths are case-sensitive." if near else \
            "Give the path of a file the skill ships, relative to the skill folder."
    if not isinstance(reason, str) or not reason.strip():
        return "has an empty `reason`", "Say why the skill must ship this text (what it teaches, and that it is inert)."
    if len(reason.strip()) > MAX_REASON:
        return f"has a `reason` of {len(reason.strip())} characters; at most {MAX_REASON} are allowed", \
            "Shorten the reason to a sentence or two; explain at length in the skill's references."
    if safety.CONTROL.search(reason) or safety.find_invisible(reason):
        return "has a control or invisible character in its `reason`", "Write the reason in plain visible text."
    return None, ""


def apply(findings: list[Finding], entries: list[dict], *,
          lines: dict[tuple[str, str], int | None] | None = None) -> list[Finding]:
    """The findings with each one an entry covers marked `allowed` (its reason), plus a warning for each entry that
    covers none (stale: the text was removed, or the rule or path is wrong). A finding in a SKILL.md or skill.yaml
    value (format/scan/values.py: it names the field) is never covered: that text is what every agent indexes."""
    if not entries:
        return findings
    reasons = {(e["rule"], e["file"]): e["reason"] for e in entries}
    used: set[tuple[str, str]] = set()
    out = []
    for finding in findings:
        key = (finding.rule, finding.file)
        if key in reasons and finding.field is None:  # a file's text; never a frontmatter or skill.yaml value
            used.add(key)
            finding = finding.with_allowed(reasons[key])
        out.append(finding)
    for entry in entries:
        if (entry["rule"], entry["file"]) not in used:
            out.append(warning("exception-stale", f"`{FIELD}` allows `{entry['rule']}` in "
                               f"`{paths.shown(entry['file'])}`, but the file has no such finding (a stale "
                               "exception).",
                               f"Remove the entry from `{FIELD}` in skill.yaml (or correct its rule or file).",
                               file=MANIFEST, line=(lines or {}).get((entry["rule"], entry["file"])), field=FIELD))
    return out


UNTRUSTED_FIX = ("The skill's own skill.yaml lists `security_exceptions` for this, but a security exception is only "
                 "honoured from a registry that reviewed it (its registry.json entry carries the exception): install "
                 "the skill from a registry that publishes it, or remove the flagged text.")


def withdraw(findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(the findings with every `allowed` removed, the ones that had it): for a skill no registry reviewed."""
    withdrawn = [f for f in findings if f.allowed is not None]
    if not withdrawn:
        return findings, []
    return [f.with_allowed(None) if f.allowed is not None else f for f in findings], withdrawn


def from_entry(value: object) -> list[dict]:
    """A registry entry's `security_exceptions` as entries `apply` takes; anything malformed is dropped (the
    registry's schema already refuses it: this only keeps a hostile document from widening an exception)."""
    out = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and item.get("rule") in EXCEPTABLE_RULES and isinstance(item.get("file"), str) \
                and isinstance(item.get("reason"), str) and item["reason"].strip():
            out.append({"rule": item["rule"], "file": item["file"], "reason": item["reason"].strip()})
    return out[:MAX_ENTRIES]
