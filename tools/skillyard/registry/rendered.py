"""The last build's finished output lines per skill, so an incremental build splices unchanged skills verbatim.

Decoding 20,000 cached check results (SQLite rows into CheckedSkill objects) and filling their git fields cost more
than the whole rest of a one-skill rebuild; this flat file is read with one `split`. It is trusted only with the
cache's key (bound to this user's secret) and the token the check cache recorded in the same build; anything else
about it that is off, and the build decodes the check cache as before. It also keeps every folder's last commit at the
HEAD it was built at, so the next build asks git only about the commits since (`git log HEAD0..HEAD`).

Layout: one JSON header line, then four blocks of one line per skill (registry.json, index.json, marketplace.json,
AGENTS.md), in the header's order. None of those lines can hold a newline (compact JSON; AGENTS.md lines are
whitespace-collapsed), which `write` checks.
"""

from __future__ import annotations

import itertools
import json
import operator
from pathlib import Path
from typing import NamedTuple

from skillyard.fsutil import write_atomic

STATE_FILE = ".skillyard-cache/rendered"
DELTA_FILE = ".skillyard-cache/rendered-delta"  # the builds since the full file: a one-skill change writes ~2 KB
DELTA_LIMIT = 1000  # beyond this many changed skills the full file is rewritten
FORMAT = 3
OUTPUTS = 4  # registry.json, index.json, marketplace.json, AGENTS.md lines


class Rendered(NamedTuple):
    """One skill as a build saw it: `valid` before duplicate names were judged; `git` its folder's last (commit,
    date) at the state's HEAD, ("", "") when none touched it; `lines` filled with `git`, or None when they were not
    rendered (an invalid skill)."""

    name: str
    valid: bool
    git: tuple[str, str]
    lines: tuple[str, str, str, str] | None


class State:
    """The last build's skills, by folder, read from the file without making 20,000 objects: the full file (`base`,
    held as columns) with the small delta file of the builds since (`over`, `gone`) on top. The bulk questions
    (`seen`, `undone`, `columns`) are answered with C-level dict, zip and itemgetter passes."""

    def __init__(self, header: list, lines: list[str], token: str, head: str):
        self.token = token  # the full file's
        self.head = head  # the commit every `git` was read at ('' outside git)
        self._lines = lines
        self._count = len(header)
        columns = list(zip(*header, strict=True)) if header else [()] * 6
        self._paths, self._names, self._valid, self._commits, self._dates, self._done = columns
        self._index = dict(zip(self._paths, range(self._count), strict=True))
        self.over: dict[str, Rendered] = {}
        self.gone: set[str] = set()

    def __contains__(self, rel: str) -> bool:
        return rel in self.over or (rel in self._index and rel not in self.gone)

    def paths(self) -> set[str]:
        return (set(self._index) - self.gone) | set(self.over)

    def __getitem__(self, rel: str) -> Rendered:
        if rel in self.over:
            return self.over[rel]
        if rel in self.gone:
            raise KeyError(rel)
        i = self._index[rel]
        return Rendered(self._names[i], self._valid[i], (self._commits[i], self._dates[i]), self._base_lines(i))

    def _base_lines(self, i: int) -> tuple[str, str, str, str] | None:
        n, lines = self._count, self._lines
        return (lines[i], lines[n + i], lines[2 * n + i], lines[3 * n + i]) if self._done[i] else None

    def git(self, rel: str) -> tuple[str, str]:
        if rel in self.over:
            return self.over[rel].git
        i = self._index[rel]
        return self._commits[i], self._dates[i]

    def seen(self) -> dict[str, tuple[str, bool]]:
        """(name, valid) of every skill."""
        out = dict(zip(self._paths, zip(self._names, self._valid, strict=True), strict=True))
        for rel in self.gone:
            out.pop(rel, None)
        out.update({rel: (item.name, item.valid) for rel, item in self.over.items()})
        return out

    def undone(self) -> set[str]:
        """The skills recorded without lines."""
        out = set(itertools.compress(self._paths, map(operator.not_, self._done)))
        out -= self.gone
        out -= set(self.over)
        return out | {rel for rel, item in self.over.items() if item.lines is None}

    def columns(self, rels: list[str], lines: dict[str, tuple[str, str, str, str]]) -> list[list[str]]:
        """The four output columns of these skills, in this order: each one's lines from `lines`, else as recorded
        (every skill must have some: see `undone`)."""
        special = {rel: lines[rel] if rel in lines else self.over[rel].lines
                   for rel in set(lines).union(self.over).intersection(rels)}
        where = dict(zip(rels, range(len(rels)), strict=True)) if special else {}
        positions = list(map(self._index.get, rels, itertools.repeat(0, len(rels))))
        n, out = self._count, []
        for column in range(OUTPUTS):
            block = self._lines[column * n:(column + 1) * n]
            if not block or len(positions) < 2:
                picked = [block[i] if block else "" for i in positions]
            else:
                picked = list(operator.itemgetter(*positions)(block))
            for rel, done in special.items():
                picked[where[rel]] = done[column]
            out.append(picked)
        return out


class Overlay:
    """Every skill of a build as a mapping: `changed` entries over the state `base` (no object per unchanged skill
    unless `write` has to rewrite the full file)."""

    def __init__(self, base: State, names: list[str], changed: dict[str, Rendered]):
        self._base, self._names, self._set, self._changed = base, names, set(names), changed

    def __contains__(self, rel: object) -> bool:
        return rel in self._set

    def __iter__(self):
        return iter(self._names)

    def __getitem__(self, rel: str) -> Rendered:
        return self._changed[rel] if rel in self._changed else self._base[rel]


def load(root: Path, key: str | None, token: str | None) -> State | None:
    """The last build's skills, or None when the files are missing, damaged or not this cache's."""
    if key is None or not token:
        return None
    try:
        delta = _load_delta(root, key)
        state = _load_full(root, key, delta["base"] if delta and delta["token"] == token else token)
        if state is not None and delta and delta["token"] == token:
            state.over, state.gone, state.head = delta["over"], delta["gone"], delta["head"]
        return state
    except (OSError, ValueError, TypeError, RecursionError):
        return None


def _load_full(root: Path, key: str, token: str) -> State | None:
    lines = (root / STATE_FILE).read_bytes().decode("utf-8").split("\n")  # bytes: no newline translation
    meta = json.loads(lines[0])
    if not (isinstance(meta, dict) and meta.get("format") == FORMAT and meta.get("key") == key
            and meta.get("token") == token and isinstance(meta.get("skills"), list) and _head_ok(meta.get("head"))):
        return None
    header = meta["skills"]
    if len(lines) != OUTPUTS * len(header) + 2 or lines[-1] != "":
        return None
    if header and (set(map(type, header)) != {list} or set(map(len, header)) != {6}):
        return None
    for column, kind in zip(zip(*header, strict=True), (str, str, bool, str, str, bool), strict=False):
        if set(map(type, column)) != {kind}:
            return None
    state = State(header, lines[1:-1], token, meta["head"])
    return state if len(state._index) == len(header) else None


def _load_delta(root: Path, key: str) -> dict | None:
    """The delta file as {base, token, over, gone}, or None (missing, damaged, another key's)."""
    try:
        meta = json.loads((root / DELTA_FILE).read_bytes().decode("utf-8"))
    except FileNotFoundError:
        return None
    if not (isinstance(meta, dict) and meta.get("format") == FORMAT and meta.get("key") == key
            and isinstance(meta.get("base"), str) and isinstance(meta.get("token"), str) and _head_ok(meta.get("head"))
            and isinstance(meta.get("skills"), dict) and isinstance(meta.get("gone"), list)):
        return None
    over = {}
    for rel, (name, valid, commit, updated, lines) in meta["skills"].items():
        if not (all(isinstance(v, str) for v in (name, commit, updated)) and isinstance(valid, bool)
                and (lines is None or (isinstance(lines, list) and len(lines) == OUTPUTS
                                       and all(isinstance(v, str) for v in lines)))):
            return None
        over[rel] = Rendered(name, valid, (commit, updated), None if lines is None else tuple(lines))
    if not all(isinstance(rel, str) for rel in meta["gone"]):
        return None
    return {"base": meta["base"], "token": meta["token"], "over": over, "gone": set(meta["gone"]), "head": meta["head"]}


def _head_ok(head: object) -> bool:
    """A recorded HEAD reaches git commands: a full commit id, or '' (no git)."""
    from skillyard.registry.cache import COMMIT_ID

    return isinstance(head, str) and (head == "" or COMMIT_ID.fullmatch(head) is not None)


def write(root: Path, key: str | None, token: str, skills, *, head: str | None, base: State | None = None,
          changed: set[str] | frozenset = frozenset()) -> None:
    """Record the skills (every checked folder: a dict or an `Overlay`, by folder) as of `head` for the next build:
    as a delta over `base` (the state this build read) when only the `changed` folders differ from it, else as a new
    full file."""
    if key is None:
        return
    if base is not None:
        over = {rel: item for rel, item in base.over.items() if rel in skills}
        over.update({rel: skills[rel] for rel in changed if rel in skills})
        gone = (base.gone | (set(base._index) - set(skills))) - set(over)
        if len(over) + len(gone) <= DELTA_LIMIT:
            delta = {"format": FORMAT, "key": key, "base": base.token, "token": token, "head": head or "",
                     "gone": sorted(gone),
                     "skills": {rel: [item.name, item.valid, *item.git, item.lines] for rel, item in over.items()}}
            write_atomic(root / DELTA_FILE, json.dumps(delta, ensure_ascii=False), mode=0o600)
            return
    (root / DELTA_FILE).unlink(missing_ok=True)  # before the full file: a crash between leaves no stale pair
    order = sorted(skills)
    empty = ("", "", "", "")
    items = [skills[path] for path in order]
    header = [[path, item.name, item.valid, *item.git, item.lines is not None] for path, item in zip(order, items, strict=True)]
    parts = [json.dumps({"format": FORMAT, "key": key, "token": token, "head": head or "", "skills": header},
                        ensure_ascii=False)]
    for column in range(OUTPUTS):
        block = "\n".join([(item.lines or empty)[column] for item in items])
        if block.count("\n") != max(0, len(order) - 1):  # a line holding a newline would shift every later one
            (root / STATE_FILE).unlink(missing_ok=True)
            return
        parts.append(block)
    if not order:
        parts = parts[:1]
    write_atomic(root / STATE_FILE, "\n".join(parts) + "\n", mode=0o600)
