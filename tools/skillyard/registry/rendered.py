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
from pathlib import Path
from typing import NamedTuple

from skillyard.fsutil import write_atomic

STATE_FILE = ".skillyard-cache/rendered"
FORMAT = 2
OUTPUTS = 4  # registry.json, index.json, marketplace.json, AGENTS.md lines


class Rendered(NamedTuple):
    """One skill as a build saw it: `valid` before duplicate names were judged; `lines` filled with `git`
    (commit, updated_at), or None when they were not rendered (an invalid skill)."""

    name: str
    valid: bool
    git: tuple[str, str]
    lines: tuple[str, str, str, str] | None


class State:
    """The last build's skills, by folder, read from the file without making 20,000 objects."""

    def __init__(self, header: list, lines: list[str]):
        self._header = header
        self._lines = lines
        self._count = len(header)
        self._index = {row[0]: i for i, row in enumerate(header)}

    def __contains__(self, rel: str) -> bool:
        return rel in self._index

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, rel: str) -> Rendered:
        i = self._index[rel]
        _, name, valid, commit, updated, done = self._header[i]
        n, lines = self._count, self._lines
        return Rendered(name, valid, (commit, updated),
                        (lines[i], lines[n + i], lines[2 * n + i], lines[3 * n + i]) if done else None)

    def name_valid(self, rel: str) -> tuple[str, bool]:
        row = self._header[self._index[rel]]
        return row[1], row[2]


def load(root: Path, key: str | None, token: str | None) -> State | None:
    """The last build's skills, or None when the file is missing, damaged or not this cache's."""
    if key is None or not token:
        return None
    try:
        lines = (root / STATE_FILE).read_bytes().decode("utf-8").split("\n")  # bytes: no newline translation
        meta = json.loads(lines[0])
        if not (isinstance(meta, dict) and meta.get("format") == FORMAT and meta.get("key") == key
                and meta.get("token") == token and isinstance(meta.get("skills"), list)):
            return None
        header = meta["skills"]
        if len(lines) != OUTPUTS * len(header) + 2 or lines[-1] != "":
            return None
        shapes = {tuple(map(type, row)) for row in header}
        if shapes and shapes != {(str, str, bool, str, str, bool)}:
            return None
        state = State(header, lines[1:-1])
        return state if len(state._index) == len(header) else None
    except (OSError, ValueError, TypeError, RecursionError):
        return None


def write(root: Path, key: str | None, token: str, skills: dict[str, Rendered]) -> None:
    """Record the skills (every checked folder) for the next build; a line that cannot be stored skips the file."""
    if key is None:
        return
    order = sorted(skills)
    empty = ("", "", "", "")
    header = [[path, skills[path].name, skills[path].valid, *skills[path].git, skills[path].lines is not None]
              for path in order]
    parts = [json.dumps({"format": FORMAT, "key": key, "token": token, "skills": header}, ensure_ascii=False)]
    for column in range(OUTPUTS):
        block = "\n".join([(skills[path].lines or empty)[column] for path in order])
        if block.count("\n") != max(0, len(order) - 1):  # a line holding a newline would shift every later one
            (root / STATE_FILE).unlink(missing_ok=True)
            return
        parts.append(block)
    if not order:
        parts = parts[:1]
    write_atomic(root / STATE_FILE, "\n".join(parts) + "\n", mode=0o600)
