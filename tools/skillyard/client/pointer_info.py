"""What `skill info` shows of a pointer entry (a skill that lives in its own repository): where it lives, the
pinned commit as a link, the ref it tracks, and whether a maintainer of the registry approved the pin.

The entry comes from a registry the client does not trust: a link is made only from a `source_url` of the form
`https://github.com/OWNER/REPO` and a 40-hex commit, and every value is shown through `display.clean`.
"""

from __future__ import annotations

import re
from urllib.parse import quote

_REPOSITORY = re.compile(r"https://github\.com/[A-Za-z0-9-]{1,39}/[A-Za-z0-9._-]{1,100}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")
_PR_URL = re.compile(r"https?://[^\s/?#]{1,253}/[A-Za-z0-9._/-]{1,200}/pull/\d{1,10}")


def _matching(pattern: re.Pattern, value) -> str | None:
    return value if isinstance(value, str) and pattern.fullmatch(value) else None


def upstream(skill: dict) -> dict | None:
    """The pointer facts of a registry entry (None for the registry's own skills); a value that is not of its
    documented form is left out, never shown."""
    if "source_url" not in skill:
        return None
    source = skill.get("source") if isinstance(skill.get("source"), dict) else {}
    repository = _matching(_REPOSITORY, skill.get("source_url"))
    commit = _matching(_COMMIT, skill.get("commit"))
    parts = [part for part in str(skill.get("path") or "").split("/") if part]
    if any(part in (".", "..") for part in parts):  # a link must not climb out of the pinned tree
        repository = None
    folder = "/".join(quote(part, safe="") for part in parts)
    facts = skill.get("verification") if isinstance(skill.get("verification"), dict) else {}
    out: dict = {"repository": repository, "commit": commit,
                 "commit_url": f"{repository}/commit/{commit}" if repository and commit else None,
                 "folder_url": (f"{repository}/tree/{commit}" + (f"/{folder}" if folder else ""))
                 if repository and commit else None,
                 "tracks": source.get("tracks") if isinstance(source.get("tracks"), str) else None,
                 "verified": skill.get("verified") is True}
    if out["verified"]:
        out["approved_by"] = _matching(_LOGIN, facts.get("approved_by"))
        out["approved_in"] = _matching(_PR_URL, facts.get("approved_in"))
        out["approved_at"] = _matching(_STAMP, facts.get("approved_at"))
    out["checked_at"] = _matching(_STAMP, facts.get("checked_at"))
    return out


def lines(facts: dict) -> list[str]:
    """The text lines of `upstream()`'s facts, for `skill info`."""
    from skillyard.client.display import clean

    out = [f"  upstream: {facts['repository'] or '(not a github.com repository)'}"]
    if facts["commit"]:
        out.append(f"  upstream commit: {facts['commit_url'] or facts['commit']}")
    if facts["folder_url"]:
        out.append(f"  upstream files: {facts['folder_url']}")
    if facts["tracks"]:
        out.append(f"  tracks: {clean(facts['tracks'])}")
    if facts["verified"]:
        who = f" by @{facts['approved_by']}" if facts.get("approved_by") else ""
        when = f" on {facts['approved_at']}" if facts.get("approved_at") else ""
        where = f" in {facts['approved_in']}" if facts.get("approved_in") else ""
        out.append(f"  verified: yes — the pin was approved{who}{when}{where}")
    else:
        out.append("  verified: no — no maintainer of the registry approved this pin yet")
    out.append(f"  last checked: {facts['checked_at'] or 'never recorded'}")
    return out
