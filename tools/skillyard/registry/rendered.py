"""The last build's finished output lines per skill, so an incremental build splices unchanged skills verbatim.

Decoding 20,000 cached check results (SQLite rows into CheckedSkill objects) and filling their git fields cost more
than the whole rest of a one-skill rebuild; this flat file is read with one `split`. It is trusted only with the
cache's key (bound to this user's secret) and the token the check cache recorded in the same build; anything else
about it that is off, and the build decodes the check cache as before. It also keeps every folder's last commit at the
HEAD it was built at, so the next build asks git only about the commits since (`git log HEAD0..HEAD`).

Layout (format 4): one JSON header line with a row per skill in output order ((name, path)), then each output's
line lengths in bytes (four arrays of little-endian int64), then four blocks (registry.json, index.json,
marketplace.json, AGENTS.md lines), each its lines joined with the separator they have in that output. A build after a
change so copies runs of unchanged skills' bytes into the outputs (`State.pieces`) without decoding or splitting 40 MB.
None of those lines can hold a newline (compact JSON; AGENTS.md lines are whitespace-collapsed), which `write` checks.
`load` checks the sizes add up and `pieces` that a separator stands at every cut, not every byte (counting the 80,000
newlines of 45 MB alone costs as much as the split this file replaced); the file is trusted as the check cache is.
"""

from __future__ import annotations

import itertools
import json
import mmap
import operator
import sys
from array import array
from pathlib import Path
from typing import NamedTuple

from skillyard.fsutil import write_atomic

STATE_FILE = ".skillyard-cache/rendered"
DELTA_FILE = ".skillyard-cache/rendered-delta"  # the builds since the full file: a one-skill change writes ~2 KB
DELTA_LIMIT = 1000  # beyond this many changed skills the full file is rewritten
FORMAT = 4
OUTPUTS = 4  # registry.json, index.json, marketplace.json, AGENTS.md lines
SEPARATORS = (b",\n    ", b",\n    ", b",\n    ", b"\n")  # between two lines in each output (compile.dumps_prepared)


class Damaged(ValueError):
    """The state file's byte layout does not hold together (a line's cut misses its separators): build as if
    there were no state."""


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
    held as columns and byte blocks) with the small delta file of the builds since (`over`, `gone`) on top. The bulk
    questions (`seen`, `undone`, `pieces`) are answered with C-level dict, zip and slice passes."""

    def __init__(self, header: list, blocks: list[bytes | memoryview], lengths: list[array], token: str, head: str):
        """`blocks[c]`: output c's lines joined with SEPARATORS[c]; `lengths[c]`: each line's length in bytes."""
        self.token = token  # the full file's
        self.head = head  # the commit every `git` was read at ('' outside git)
        self._blocks, self._lengths = blocks, lengths
        self._starts: list[list[int] | None] = [None] * OUTPUTS
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

    def _start(self, column: int) -> list[int]:
        """Where each line of a block starts (one more: the block's length plus a separator)."""
        starts = self._starts[column]
        if starts is None:
            step = itertools.repeat(len(SEPARATORS[column]))
            starts = self._starts[column] = list(itertools.accumulate(map(operator.add, self._lengths[column], step),
                                                                      initial=0))
        return starts

    def _line(self, column: int, i: int) -> str:
        """Line `i` of a block, after checking that a separator stands on each side of it (the lengths are not
        checked when the file is loaded): `Damaged` otherwise."""
        start, end = self._start(column)[i], self._start(column)[i] + self._lengths[column][i]
        block, sep = self._blocks[column], SEPARATORS[column]
        if (i and block[start - len(sep):start] != sep) or (i + 1 < self._count and block[end:end + len(sep)] != sep) \
                or (i + 1 == self._count and end != len(block)):
            raise Damaged("damaged rendered state")
        try:
            return str(block[start:end], "utf-8")
        except UnicodeDecodeError:
            raise Damaged("damaged rendered state") from None

    def _base_lines(self, i: int) -> tuple[str, str, str, str] | None:
        return tuple(self._line(column, i) for column in range(OUTPUTS)) if self._done[i] else None

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

    def _special(self, rels: list[str], lines: dict[str, tuple[str, str, str, str]]) -> dict:
        return {rel: lines[rel] if rel in lines else self.over[rel].lines
                for rel in set(lines).union(self.over).intersection(rels)}

    def columns(self, rels: list[str], lines: dict[str, tuple[str, str, str, str]]) -> list[list[str]]:
        """The four output columns of these skills, in this order, as text: each one's lines from `lines`, else as
        recorded (every skill must have some: see `undone`)."""
        special = self._special(rels, lines)
        positions = [None if rel in special else self._index[rel] for rel in rels]
        return [[special[rel][column] if i is None else self._line(column, i) for rel, i in zip(rels, positions,
                                                                                                 strict=True)]
                for column in range(OUTPUTS)]

    def pieces(self, rels: list[str], lines: dict[str, tuple[str, str, str, str]]) -> list[list]:
        """`columns` as bytes, each column joined with its separator: a list of pieces (runs of consecutive recorded
        lines as memoryview slices of the blocks, the other lines encoded) whose concatenation is the output's body.
        ValueError (or KeyError) when a skill has no lines or the recorded bytes do not fit: the caller then uses
        `columns`."""
        special = self._special(rels, lines)
        if any(done is None or done[2] == "" for done in special.values()):
            raise ValueError("a skill without lines")  # (an empty marketplace line is `columns`'s caller's error)
        items: list = []  # (first, last) row runs, or a folder from `special`
        first = last = -2
        index, gone = self._index, self.gone
        for rel in rels:
            if rel in special:
                if first >= 0:
                    items.append((first, last))
                    first = last = -2
                items.append(rel)
                continue
            if rel in gone:
                raise KeyError(rel)
            i = index[rel]
            if i == last + 1 and first >= 0:
                last = i
                continue
            if first >= 0:
                items.append((first, last))
            first = last = i
        if first >= 0:
            items.append((first, last))
        runs = [item for item in items if type(item) is tuple]
        if not all(all(self._done[a:b + 1]) for a, b in runs) or any(0 in self._lengths[2][a:b + 1] for a, b in runs):
            raise ValueError("a skill without lines")
        out = []
        for column in range(OUTPUTS):
            sep, block, lengths, starts = SEPARATORS[column], memoryview(self._blocks[column]), self._lengths[column], \
                self._start(column)
            n, width, picked = self._count, len(sep), []
            for item in items:
                if picked:
                    picked.append(sep)
                if type(item) is tuple:
                    a, b = item
                    start, end = starts[a], starts[b] + lengths[b]
                    if (a and block[start - width:start] != sep) or (b + 1 < n and block[end:end + width] != sep):
                        raise Damaged("damaged rendered state")
                    picked.append(block[start:end])
                else:
                    picked.append(special[item][column].encode("utf-8"))
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
    data = _map(root / STATE_FILE)
    end = data.find(b"\n")
    if end < 0:
        return None
    meta = json.loads(data[:end])
    if not (isinstance(meta, dict) and meta.get("format") == FORMAT and meta.get("key") == key
            and meta.get("token") == token and isinstance(meta.get("skills"), list) and _head_ok(meta.get("head"))):
        return None
    header = meta["skills"]
    if header and (set(map(type, header)) != {list} or set(map(len, header)) != {6}):
        return None
    for column, kind in zip(zip(*header, strict=True), (str, str, bool, str, str, bool), strict=False):
        if set(map(type, column)) != {kind}:
            return None
    n = len(header)
    at = end + 1
    lengths = []
    for _ in range(OUTPUTS):
        numbers = array("q")
        numbers.frombytes(data[at:at + 8 * n])
        if len(numbers) != n:
            return None
        if sys.byteorder != "little":
            numbers.byteswap()
        if n and min(numbers) < 0:
            return None
        lengths.append(numbers)
        at += 8 * n
    blocks, view = [], memoryview(data)  # slices of the mapped file: nothing is copied until the outputs are written
    for sep, numbers in zip(SEPARATORS, lengths, strict=True):
        size = sum(numbers) + len(sep) * (n - 1) if n else 0
        if at + size > len(data):
            return None
        blocks.append(view[at:at + size])
        at += size
    if at != len(data):  # (a run copied as bytes is checked where it is cut: `pieces`)
        return None
    state = State(header, blocks, lengths, token, meta["head"])
    return state if len(state._index) == len(header) else None


def _map(path: Path) -> mmap.mmap | bytes:
    """The file's bytes, mapped rather than read: reading 40 MB faulted in 10,000 fresh pages of memory (~20 ms of
    kernel time on the build machine), and the outputs are written from the mapping's pages with `os.writev`.
    The file is only ever replaced by a rename, never rewritten in place, so the mapping stays whole."""
    with open(path, "rb") as handle:
        try:
            return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # an empty file cannot be mapped; a platform without mmap of it
            return handle.read()


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
    items = {rel: skills[rel] for rel in skills}
    order = sorted(items, key=lambda rel: (items[rel].name, rel))  # the outputs' order: runs of them copy as bytes
    empty = ("", "", "", "")
    header = [[rel, items[rel].name, items[rel].valid, *items[rel].git, items[rel].lines is not None] for rel in order]
    parts = [json.dumps({"format": FORMAT, "key": key, "token": token, "head": head or "", "skills": header},
                        ensure_ascii=False).encode("utf-8") + b"\n"]
    blocks = []
    for column, sep in enumerate(SEPARATORS):
        encoded = [(items[rel].lines or empty)[column].encode("utf-8") for rel in order]
        block = sep.join(encoded)
        if block.count(b"\n") != max(0, len(order) - 1):  # a line holding a newline would shift every later one
            (root / STATE_FILE).unlink(missing_ok=True)
            return
        lengths = array("q", map(len, encoded))
        if sys.byteorder != "little":
            lengths.byteswap()
        parts.append(lengths.tobytes())
        blocks.append(block)
    write_atomic(root / STATE_FILE, b"".join(parts + blocks), mode=0o600)
