"""Render the PR bot's comments. Pure: same inputs, same text, byte for byte.

Every string that came from the PR (names, versions, paths, messages quoting frontmatter, file names from the
API) is shown as an inline code span (`code`), the one Markdown context where GitHub renders no link, autolink
(bare URLs, `www.`), image, HTML tag, @mention or #reference. Before that, invisible and bidi characters are made
visible (U+FFFD), whitespace is collapsed to one line, and the length is capped; the fence is longer than any run
of backticks in the text, so nothing can close the span early.
"""

from __future__ import annotations

import re
import unicodedata

from skillyard.bot.decide import Changes, is_security_finding

MARKER = "<!-- skillyard-bot:report -->"
AUTOMERGE_MARKER = "<!-- skillyard-bot:automerge -->"
MAX_COMMENT_CHARS = 60000       # GitHub's limit is 65,536
MAX_TEXT = 400
MAX_LIST = 50
_SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
# Controls, format characters (bidi overrides and isolates, zero-width joiners and spaces, BOM, tags), separators,
# private use, surrogates and unassigned code points.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
# Letters and symbols that render as blank space although their category says otherwise.
_BLANK_LOOKING = frozenset("\u115f\u1160\u2800\u3164\uffa0\u034f\u180b\u180c\u180d\u180e\u180f"
                           + "".join(chr(c) for c in range(0xFE00, 0xFE10)))
_BACKTICKS = re.compile(r"`+")


def clean(value: object, limit: int = MAX_TEXT) -> str:
    """Untrusted text as one visible line: hidden characters become U+FFFD, whitespace runs one space, at most
    `limit` characters."""
    text = str(value)[: limit * 4]
    text = "".join("\ufffd" if char in _BLANK_LOOKING or (not char.isascii() or char < " " or char == "\x7f")
                   and unicodedata.category(char) in _HIDDEN_CATEGORIES else char for char in text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def code(value: object, limit: int = MAX_TEXT) -> str:
    """Untrusted text as an inert inline code span. Never used in a table: GFM splits table cells on `|` before
    it sees code spans, and its escaping of `|` can itself be escaped."""
    text = clean(value, limit)
    if not text:
        return "(empty)"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _where(finding: dict) -> str:
    file = finding.get("file")
    if not file:
        return ""
    line = finding.get("line")
    return code(f"{file}:{line}" if line else file, 160)


def _finding_line(finding: dict) -> str:
    where = _where(finding)
    text = f"- {where + ' — ' if where else ''}**{code(finding.get('rule', '?'), 80)}**: " \
           f"{code(finding.get('message', ''))}"
    if finding.get("allowed"):  # a reviewed security exception (skill.yaml `security_exceptions`): its reason
        text += f"<br>allowed by the skill, reason: {code(finding['allowed'])}"
    elif finding.get("fix"):
        text += f"<br>fix: {code(finding['fix'])}"
    return text


def _kind_of(changes: Changes | None, path: str) -> str:
    for change in changes.skills if changes else ():
        if change.folder == path:
            return {"new": "new skill", "update": "update", "removed": "removal"}[change.kind]
    return "changed"


def _bullets(items, limit: int = MAX_LIST, width: int = 200) -> list[str]:
    items = list(items)
    lines = [f"- {code(item, width)}" for item in items[:limit]]
    if len(items) > limit:
        lines.append(f"- … and {len(items) - limit} more")
    return lines


def _cap(text: str) -> str:
    if len(text) > MAX_COMMENT_CHARS:
        cut = text[:MAX_COMMENT_CHARS].rsplit("\n", 1)[0]
        text = cut + "\n\n… the report is too long to show in full; run `skillyard validate` locally.\n"
    return text


def render_comment(report: dict, *, changes: Changes | None = None, labels: set[str] | None = None,
                   needs_owner: list[str] | None = None) -> str:
    """The whole comment body, starting with the hidden marker the bot finds it by."""
    skills = report.get("skills", [])
    invalid = [s for s in skills if not s.get("valid")]
    lines = [MARKER]
    if not skills:
        lines.append("### Skillyard check: no skill folders changed")
    elif invalid:
        lines.append(f"### Skillyard check: ❌ {len(invalid)} of {len(skills)} skill(s) need changes")
    else:
        lines.append(f"### Skillyard check: ✅ {len(skills)} skill(s) valid")
    lines.append("")
    security: list[tuple[str, dict]] = []
    for skill in sorted(skills, key=lambda s: s.get("path", "")):
        name = skill.get("name") or skill.get("path", "").rsplit("/", 1)[-1]
        status = "✅ valid" if skill.get("valid") else "❌ invalid"
        version = f" {code(skill['version'], 40)}" if skill.get("version") else ""
        lines.append(f"#### {code(name, 64)}{version} ({_kind_of(changes, skill.get('path', ''))}, "
                     f"{code(skill.get('path', ''), 200)}): {status}")
        findings = skill.get("findings", [])
        allowed = [f for f in findings if f.get("allowed")]
        errors = [f for f in findings if f.get("severity") == "error" and not f.get("allowed")]
        hints = [f for f in findings if f.get("severity") != "error" and not f.get("allowed")]
        security += [(name, f) for f in findings if is_security_finding(f)]
        if errors:
            lines += ["", "**Errors (block the merge):**"] + [_finding_line(f) for f in errors]
        if hints:
            lines += ["", "**Hints (advice, not blocking):**"] + [_finding_line(f) for f in hints]
        if allowed:
            lines += ["", "**Allowed by the skill's security exceptions (a maintainer reviews each reason):**"]
            lines += [_finding_line(f) for f in allowed[:MAX_LIST]]
            lines += [f"- … and {len(allowed) - MAX_LIST} more"] if len(allowed) > MAX_LIST else []
        if skill.get("valid") and isinstance(skill.get("name"), str) and _SKILL_NAME.match(skill["name"]):
            lines += ["", "Once merged, install it with:", "", "```sh", f"skill install {skill['name']}", "```"]
        lines.append("")
    if security:
        lines += ["#### Security findings", ""]
        for name, finding in security:
            lines.append(f"- {code(name, 64)} — {_finding_line(finding).removeprefix('- ')}")
        lines.append("")
    if changes is not None and changes.problems:
        lines += [f"#### The file list blocks automerge ({len(changes.problems)})", ""]
        lines += _bullets(changes.problems, width=MAX_TEXT) + [""]
    if changes is not None and changes.outside:
        lines += [f"#### Changes outside skill folders ({len(changes.outside)})", "",
                  "A maintainer reviews these; a skill PR should only touch its own folder (a rename counts at "
                  "both its old and its new name).", ""]
        lines += _bullets(changes.outside) + [""]
    if needs_owner:
        lines += ["#### Needs a maintainer", "",
                  "This PR changes skill(s) its author does not own (owners are the `author` and `maintainers` "
                  "recorded in registry.json): " + ", ".join(code(f, 200) for f in needs_owner[:MAX_LIST]), ""]
    if labels:
        lines.append("<sub>Labels: " + ", ".join(f"`{label}`" for label in sorted(labels)) + "</sub>")
    return _cap("\n".join(lines).rstrip() + "\n")


def render_automerge_comment(reasons: list[str] | tuple[str, ...], *, waiting: bool, head_sha: str) -> str:
    """The sticky automerge status: why the PR was not merged, and whether a later check run will retry."""
    lines = [AUTOMERGE_MARKER, f"### Automerge: not merged yet (head {code(head_sha[:12], 12)})", ""]
    if waiting:
        lines += ["Some checks have not finished. Automerge tries again when the `validate` and `ci` workflow "
                  "runs complete; nothing to do for now.", ""]
    else:
        lines += ["Automerge is blocked:", ""]
    lines += _bullets(reasons, limit=MAX_LIST, width=MAX_TEXT)
    return _cap("\n".join(lines).rstrip() + "\n")
