"""`skill install --accept RULE:FILE`: the user accepts one named security finding of a skill installed directly
(a folder, an archive or `github:`), so a skill that teaches security by quoting attacks can be installed.

An accepted finding works as a registry's reviewed exception does (format/exceptions.py `apply`): the finding
stays in the report, marked allowed, and no longer refuses. Only rules a reviewed exception may allow
(`EXCEPTABLE_RULES`) can be accepted, never a finding in a SKILL.md or skill.yaml value, and every accept must
match a finding of the skill (a typo accepts nothing). The lock records the accepted findings (`accepted`, one
entry per finding, keyed by `ACCEPT_KEYS`), and a restore repeats them: it does not ask again, and refuses as any
install would when the files now hold a finding the lock did not accept. Registry installs never take --accept:
they honour only the exceptions their registry reviewed.

A finding's identity is `ACCEPT_KEYS`; a key added there (a digest of the matched text, say) is recorded, read
and compared everywhere through `identity` and `record`.
"""

from __future__ import annotations

from skillyard.errors import SkillyardError
from skillyard.format.exceptions import _FRONTMATTER_TWINS, EXCEPTABLE_RULES

ACCEPT_KEYS = ("rule", "file")
REASON = "accepted by the user at install (skill install --accept)"
FLAG = "--accept"


def identity(entry) -> tuple:
    """The identity of an accepted finding (a dict) or of a finding (an object with the same attributes)."""
    get = entry.get if isinstance(entry, dict) else (lambda key: getattr(entry, key, None))
    return tuple(get(key) for key in ACCEPT_KEYS)


def record(entries: list[dict]) -> list[dict]:
    """The lock's `accepted`: sorted, one per identity, only the identity's keys."""
    unique = {identity(e): {k: e[k] for k in ACCEPT_KEYS} for e in entries}
    return [unique[key] for key in sorted(unique)]


def parse(values: list[str] | None) -> list[dict]:
    """`RULE:FILE` values as accepted findings; a rule no exception may allow is refused, naming it and why."""
    out = []
    for value in values or []:
        rule, sep, file = value.partition(":")
        if not sep or not rule or not file:
            raise SkillyardError(f"{FLAG} {value!r} is not RULE:FILE.",
                                 f"Name the finding as the refusal prints it, e.g. {FLAG} "
                                 "security-pipe-to-shell:references/attacks.md.")
        check_rule(rule)
        out.append({"rule": rule, "file": file.removeprefix("./")})
    return record(out)


def check_rule(rule: str) -> None:
    if rule in EXCEPTABLE_RULES:
        return
    if rule in _FRONTMATTER_TWINS:
        raise SkillyardError(f"{FLAG}: `{rule}` cannot be accepted: it is a frontmatter check, and text hidden in a "
                             "SKILL.md or skill.yaml value is what every agent loads and every catalogue shows.",
                             "Ask the author to remove the character; a file's text is "
                             f"`{_FRONTMATTER_TWINS[rule]}`.")
    raise SkillyardError(f"{FLAG}: `{rule[:80]}` cannot be accepted: it is not a security finding the scanner marks "
                         "as exceptable (format and safety checks - paths, links, sizes, YAML, names - always refuse).",
                         f"Accept one of: {', '.join(sorted(EXCEPTABLE_RULES))}.")


def reviewed(accepted: list[dict]) -> list[dict]:
    """The accepts as the judge's reviewed exceptions ({rule, file, reason})."""
    return [{"rule": e["rule"], "file": e["file"], "reason": REASON} for e in accepted]


def check(package, accepted: list[dict], *, where: str) -> list[str]:
    """Refuse an accept that matches no finding of the skill, or one whose finding no accept can allow (a SKILL.md
    or skill.yaml value); run after judging with `reviewed(accepted)`. Returns a warning per accepted finding, so
    every install and restore says what it let through."""
    said = []
    for entry in accepted:
        key = identity(entry)
        matching = [f for f in package.findings if identity(f) == key]
        allowed = [f for f in matching if f.allowed == REASON]
        if allowed:
            lines = sorted({f.line for f in allowed if f.line})
            at = f" (line {', '.join(map(str, lines[:5]))})" if lines else ""
            said.append(f"{where}: installed with the finding {entry['rule']} in {entry['file']}{at} accepted "
                        f"({FLAG}; the lock records it and a restore repeats it)")
            continue
        if matching:  # found, not allowed: a finding in a frontmatter or skill.yaml value
            raise SkillyardError(f"{where}: {FLAG} {entry['rule']}:{entry['file']}: the finding is in a "
                                 f"{matching[0].field or 'metadata'} value, which cannot be accepted: that text is "
                                 "what every agent loads; nothing was installed.",
                                 "Ask the author to move the text out of the metadata into a file of the skill.")
        found = sorted({f"{f.rule}:{f.file}" for f in package.findings
                        if f.rule in EXCEPTABLE_RULES and f.file and f.allowed is None and f.is_error})
        raise SkillyardError(f"{where}: {FLAG} {entry['rule']}:{entry['file']} matches no finding of the skill; "
                             "nothing was installed.",
                             (f"Its findings that may be accepted: {', '.join(found[:5])}." if found else
                              "The skill has no finding to accept: install it without --accept.")
                             + " An accepted finding is named exactly as the refusal prints it (rule:file).")
    return said


class Carried(list):
    """The lock's accepts carried into `skill update`: each stays in force only while its file holds the bytes
    installed (`locked`: path -> sha256 from the lock), so a finding in a file that changed is asked about again
    (the update refuses with the --accept advice) and one in an unchanged file is not."""

    def __init__(self, entries: list[dict], locked_files: list[dict]):
        super().__init__(entries)
        self.locked = {f["path"]: f["sha256"] for f in locked_files}


def in_force(accepted, sha256_of) -> list[dict]:
    """The accepts that apply: all of them, or for `Carried` ones those whose file (`sha256_of(path)`, None when
    absent) is unchanged."""
    locked = getattr(accepted, "locked", None)
    if locked is None:
        return list(accepted)
    return [e for e in accepted if e["file"] in locked and sha256_of(e["file"]) == locked[e["file"]]]


def hint(refusing, ref: str | None) -> str:
    """The fix's sentence for a direct install refused only by findings the user may accept."""
    keys = sorted({f"{f.rule}:{f.file}" for f in refusing})
    if not refusing or not all(f.rule in EXCEPTABLE_RULES and f.file and f.field is None for f in refusing):
        return ""
    flags = " ".join(f"{FLAG} {key}" for key in keys[:5])
    return (" If you have read the file(s) and the text is there to teach (a skill that quotes attacks), accept "
            f"each finding by name: `skill install {ref or 'REF'} {flags}` (recorded in the lock).")
