"""The last build's finished output lines per skill, so an incremental build splices unchanged skills verbatim.

Decoding 20,000 cached check results (SQLite rows into CheckedSkill objects) and filling their git fields cost more
than the whole rest of a one-skill rebuild; this flat file is read with one `split`. It is trusted only with the
cache's key (bound to this user's secret) and the token the check cache recorded in the same build; anything else
about it that is off, and the build decodes the check cache as before.

Layout: one JSON header line, then four blocks of one line per skill (registry.json, index.json, marketplace.json,
AGENTS.md), in the header's order. None of those lines can hold a newline (compact JSON; AGENTS.md lines are
whitespace-collapsed), which `write` checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from skillyard.fsutil import write_atomic

STATE_FILE = ".skillyard-cache/rendered"
FORMAT = 1
OUTPUTS = 4  # registry.json, index.json, marketplace.json, AGENTS.md lines


@dataclass(frozen=True)
class Rendered:
    """One skill as the last build saw it: `valid` before duplicate names were judged; `lines` filled with `git`
    (commit, updated_at), or None when they were not rendered (an invalid skill)."""

    name: str
    valid: bool
    git: tuple[str, str]
    lines: tuple[str, str, str, str] | None


def load(root: Path, key: str | None, token: str | None) -> dict[str, Rendered] | None:
    """The last build's skills by folder, or None when the file is missing, damaged or not this cache's."""
    if key is None or not token:
        return None
    try:
        text = (root / STATE_FILE).read_bytes().decode("utf-8")  # bytes: no newline translation
        head, _, body = text.partition("\n")
        meta = json.loads(head)
        if not (isinstance(meta, dict) and meta.get("format") == FORMAT and meta.get("key") == key
                and meta.get("token") == token and isinstance(meta.get("skills"), list)):
            return None
        skills = meta["skills"]
        lines = body.split("\n")
        count = len(skills)
        if len(lines) != OUTPUTS * count + 1 or lines[-1] != "":
            return None
        out: dict[str, Rendered] = {}
        for i, (path, name, valid, commit, updated, rendered) in enumerate(skills):
            if not all(isinstance(v, str) for v in (path, name, commit, updated)) or path in out:
                return None
            row = (lines[i], lines[count + i], lines[2 * count + i], lines[3 * count + i]) if rendered is True else None
            out[path] = Rendered(name, valid is True, (commit, updated), row)
        return out
    except (OSError, ValueError, TypeError, RecursionError):
        return None


def write(root: Path, key: str | None, token: str, skills: dict[str, Rendered]) -> None:
    """Record the skills (every checked folder) for the next build; a line that cannot be stored skips the file."""
    if key is None:
        return
    order = sorted(skills)
    blocks: list[list[str]] = [[], [], [], []]
    header = []
    for path in order:
        item = skills[path]
        header.append([path, item.name, item.valid, item.git[0], item.git[1], item.lines is not None])
        for block, line in zip(blocks, item.lines or ("", "", "", ""), strict=True):
            block.append(line)
    if any("\n" in line or "\r" in line for block in blocks for line in block):
        (root / STATE_FILE).unlink(missing_ok=True)
        return
    meta = json.dumps({"format": FORMAT, "key": key, "token": token, "skills": header}, ensure_ascii=False)
    parts = [meta]
    for block in blocks:
        parts.extend(block)
    write_atomic(root / STATE_FILE, "\n".join(parts) + "\n", mode=0o600)
