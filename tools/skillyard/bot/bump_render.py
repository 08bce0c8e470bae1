"""The body of a bump PR: the change summary (`format.pointer_change.summarise_change`) as Markdown.

Every value that came from upstream (paths, messages, versions, the licence) is an inert inline code span
(`render.code`), so a file named like a link or an image renders as text. Pure: a dict in, a string out.
"""

from __future__ import annotations

import re

from skillyard.bot.render import MAX_COMMENT_CHARS, MAX_LIST, code
from skillyard.format.meaning_change import describe

_SHA = re.compile(r"[0-9a-f]{40}")
_REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


def _size(n: object) -> str:
    return f"{n:,} B" if isinstance(n, int) else "?"


def bump_body(summary: dict) -> str:
    old, new = str(summary.get("old_commit") or ""), str(summary.get("new_commit") or "")
    repo = str(summary.get("repository") or "")
    lines = [f"Bump {code(summary.get('name'))} to upstream {code(repo)} {code(summary.get('path') or '.')} at "
             f"{code(new[:12])}.", ""]
    if _REPOSITORY.fullmatch(repo) and _SHA.fullmatch(old) and _SHA.fullmatch(new):
        lines += [f"Upstream changes: https://github.com/{repo}/compare/{old}...{new}", ""]
    version = summary.get("version") or {}
    if version.get("old") != version.get("new"):
        lines.append(f"- version {code(version.get('old') or 'none')} → {code(version.get('new') or 'none')}")
    if summary.get("upstream_changed"):
        lines.append("- **the upstream repository or folder changed**")
    licence = summary.get("license") or {}
    if licence.get("changed"):
        lines.append(f"- **licence changed**: {code(licence.get('old'))} → {code(licence.get('new'))}")
    files = summary.get("files") or {}
    items = ([f"- added {code(f.get('path'))} ({_size(f.get('size'))})" for f in files.get("added", [])]
             + [f"- removed {code(f.get('path'))} ({_size(f.get('size'))})" for f in files.get("removed", [])]
             + [f"- changed {code(f.get('path'))} ({_size(f.get('old_size'))} → {_size(f.get('new_size'))})"
                for f in files.get("changed", [])])
    meaning = [c for c in summary.get("meaning") or [] if isinstance(c, dict) and c.get("field")]
    exception_files = summary.get("exception_files_changed") or []
    # what the skill is, may do and who owns it come first: the list is cut at MAX_LIST, these never are
    lines += [f"- {'**' if c.get('needs_maintainer') else ''}{describe(c, lambda v: code(v, 200), '→')}"
              f"{'**' if c.get('needs_maintainer') else ''}" for c in meaning]
    lines += [f"- **changed {code(p)}, which carries a reviewed security exception**" for p in exception_files]
    findings = summary.get("findings") or {}
    items += [f"- new finding {code(f.get('rule'))} in {code(f.get('file') or '.')}: {code(f.get('message'), 200)}"
              for f in findings.get("new", [])]
    items += [f"- resolved finding {code(f.get('rule'))} in {code(f.get('file') or '.')}"
              for f in findings.get("resolved", [])]
    lines += items[:MAX_LIST]
    if len(items) > MAX_LIST:
        lines.append(f"- … and {len(items) - MAX_LIST} more")
    if not items:
        lines.append("- no file of the skill changed")
    security = findings.get("new_security") or []
    if security:
        lines += ["", f"**{len(security)} new security finding(s): a maintainer reviews this bump.**"]
    gated = [c["field"] for c in meaning if c.get("needs_maintainer")]
    if gated:
        lines += ["", "**It widens what the skill may do or changes its owners ("
                  + ", ".join(code(f) for f in gated) + "): a maintainer reviews this bump.**"]
    if exception_files:
        lines += ["", "**It changes a file that carries a reviewed security exception: a maintainer reviews this "
                  "bump.**"]
    lines += ["", "Opened by `skillyard external bump`. The new pin is `verified: false` until a maintainer of this "
              "registry approves a PR that sets it."]
    body = "\n".join(lines) + "\n"
    return body if len(body) <= MAX_COMMENT_CHARS else body[:MAX_COMMENT_CHARS - 40] + "\n\n(cut at GitHub's limit)\n"
