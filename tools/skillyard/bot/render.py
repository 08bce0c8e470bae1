"""Render the sticky PR comment from a validated report. Pure: same inputs, same text, byte for byte.

Every string that came from the PR (names, paths, messages quoting frontmatter) is escaped so it cannot inject
HTML, Markdown links, mentions or close the hidden marker.
"""

from __future__ import annotations

import html
import re

from skillyard.bot.decide import Changes, is_security_finding

MARKER = "<!-- skillyard-bot:report -->"
MAX_COMMENT_CHARS = 60000       # GitHub's limit is 65,536
MAX_TEXT = 400
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>])")
_SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def esc(value: object, limit: int = MAX_TEXT) -> str:
    """Untrusted text made inert for a GitHub comment: one line, HTML-escaped, Markdown-escaped, no @mentions."""
    text = " ".join(str(value).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = html.escape(text, quote=True)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("@", "@\u200b")


def _where(finding: dict) -> str:
    file = finding.get("file")
    if not file:
        return ""
    line = finding.get("line")
    return esc(f"{file}:{line}" if line else file, 160) + " — "


def _finding_line(finding: dict) -> str:
    text = f"- {_where(finding)}**{esc(finding.get('rule', '?'), 80)}**: {esc(finding.get('message', ''))}"
    if finding.get("fix"):
        text += f"<br>fix: {esc(finding['fix'])}"
    return text


def _kind_of(changes: Changes | None, path: str) -> str:
    for change in changes.skills if changes else ():
        if change.folder == path:
            return {"new": "new skill", "update": "update", "removed": "removal"}[change.kind]
    return "changed"


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
        version = f" {esc(skill['version'], 40)}" if skill.get("version") else ""
        lines.append(f"#### {esc(name, 64)}{version} ({_kind_of(changes, skill.get('path', ''))}, "
                     f"{esc(skill.get('path', ''), 200)}): {status}")
        findings = skill.get("findings", [])
        errors = [f for f in findings if f.get("severity") == "error"]
        hints = [f for f in findings if f.get("severity") != "error"]
        security += [(name, f) for f in findings if is_security_finding(f)]
        if errors:
            lines += ["", "**Errors (block the merge):**"] + [_finding_line(f) for f in errors]
        if hints:
            lines += ["", "**Hints (advice, not blocking):**"] + [_finding_line(f) for f in hints]
        if skill.get("valid") and isinstance(skill.get("name"), str) and _SKILL_NAME.match(skill["name"]):
            lines += ["", "Once merged, install it with:", "", "```sh", f"skill install {skill['name']}", "```"]
        lines.append("")
    if security:
        lines += ["#### Security findings", "", "| skill | where | rule | message |", "| --- | --- | --- | --- |"]
        for name, finding in security:
            where = _where(finding).removesuffix(" — ") or "—"
            lines.append(f"| {esc(name, 64)} | {where} | {esc(finding.get('rule'), 80)} | "
                         f"{esc(finding.get('message', ''))} |")
        lines.append("")
    if changes is not None and changes.outside:
        lines += [f"#### Changes outside skill folders ({len(changes.outside)})", "",
                  "A maintainer reviews these; a skill PR should only touch its own folder.", ""]
        lines += [f"- {esc(p, 200)}" for p in changes.outside[:50]]
        if len(changes.outside) > 50:
            lines.append(f"- … and {len(changes.outside) - 50} more")
        lines.append("")
    if needs_owner:
        lines += ["#### Needs a maintainer", "",
                  "This PR changes skill(s) its author does not own (owners are the `author` and `maintainers` "
                  "recorded in registry.json): " + ", ".join(esc(f, 200) for f in needs_owner), ""]
    if labels:
        lines.append("<sub>Labels: " + ", ".join(f"`{label}`" for label in sorted(labels)) + "</sub>")
    text = "\n".join(lines).rstrip() + "\n"
    if len(text) > MAX_COMMENT_CHARS:
        cut = text[:MAX_COMMENT_CHARS].rsplit("\n", 1)[0]
        text = cut + "\n\n… the report is too long to show in full; run `skillyard validate` locally.\n"
    return text
