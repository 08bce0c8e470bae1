"""Folder change stamps for the incremental build: the ctime of every folder below the skills folder.

Adding, removing or renaming an entry anywhere changes its folder's ctime, so one `lstat` per folder finds new
untracked files and skills, deleted ones and renames without `git status` walking every folder for untracked and
ignored files (0.8 s at 20,000 skills). In-place edits of tracked files are git's (`git status -uno`); folders holding
untracked or ignored files are re-checked on every build, as before.

ctime, not mtime: no tool can set it back. A stamp at or after the moment the scan starts is "racy" (a change in the
same clock tick would leave it equal) and is stored as -1, which never matches: that folder is looked at again.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import os
import signal
import zlib

from skillyard.format.paths import MAX_DEPTH

SHARDS = 64  # the stamps are stored in this many rows, by skill: a one-skill change rewrites ~1/64 of them
UNKNOWN = -1  # a stamp that never matches: racy, unreadable, or a folder too large to watch
MAX_FOLDERS_PER_SKILL = 5000  # a skill with more folders is always re-checked (its walk stays bounded)


def scan_start(cache_dir: str) -> int:
    """The file system's "now" (ctime of a file written now): stamps at or after it are racy."""
    os.makedirs(cache_dir, exist_ok=True)
    path = os.path.join(cache_dir, "scan-stamp")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("the incremental build's clock\n")
    return os.lstat(path).st_ctime_ns


def _stamp(path: str, racy: int) -> int:
    try:
        ctime = os.lstat(path).st_ctime_ns
    except OSError:
        return UNKNOWN
    return UNKNOWN if ctime >= racy else ctime


def skill_dirs(top: str, skill: str, racy: int) -> dict[str, int]:
    """Every folder inside the skill folder `skill` (repository-relative; links never followed), by repository-relative
    path, with its stamp. Deeper than the package walk reads, and never more than MAX_FOLDERS_PER_SKILL (then only
    the folder itself, as UNKNOWN: it is re-checked on every build)."""
    folder = f"{top}/{skill}"
    out = {skill: _stamp(folder, racy)}
    stack = [(skill, folder, 0)]
    while stack:
        rel, directory, depth = stack.pop()
        try:
            with os.scandir(directory) as entries:
                subdirs = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:
            out[rel] = UNKNOWN
            continue
        for name in subdirs:
            child, path = f"{rel}/{name}", f"{directory}/{name}"
            out[child] = _stamp(path, racy)
            if depth + 1 <= MAX_DEPTH:
                stack.append((child, path, depth + 1))
        if len(out) > MAX_FOLDERS_PER_SKILL:
            return {skill: UNKNOWN}
    return out


def layout_dirs(top: str, skills_rel: str, skills: set[str], racy: int) -> dict[str, int]:
    """The folders the skill scan (`scan.find_skill_folders`) may enter: every folder under the skills folder
    (`skills_rel`, repository-relative) outside the skill folders. Hidden folders and `__pycache__` are never entered
    by the scan, so a change inside them cannot add or remove a skill; their own appearance changes their parent's
    stamp."""
    out: dict[str, int] = {}
    if skills_rel in skills:
        return out
    out[skills_rel] = _stamp(f"{top}/{skills_rel}", racy)
    stack = [(skills_rel, f"{top}/{skills_rel}", 0)]
    while stack:
        rel, directory, depth = stack.pop()
        try:
            with os.scandir(directory) as entries:
                subdirs = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:
            out[rel] = UNKNOWN
            continue
        for name in subdirs:
            child = f"{rel}/{name}"
            if child in skills or name.startswith(".") or name == "__pycache__" or depth + 1 >= MAX_DEPTH:
                continue
            out[child] = _stamp(f"{directory}/{name}", racy)
            stack.append((child, f"{directory}/{name}", depth + 1))
    return out


def encode(stamps: dict[str, int]) -> tuple[list[str], list[int]]:
    """One skill's (folders, stamps) as stored. A folder name holding a newline turns the set into one UNKNOWN stamp
    for the shortest folder (its skill is then re-checked, or the layout re-scanned, on every build)."""
    if any("\n" in rel for rel in stamps):
        return [min(stamps, key=len).replace("\n", "/")], [UNKNOWN]
    return list(stamps), list(stamps.values())


class Table:
    """Folder stamps as four parallel lists, stored as four texts: the skills ('' for the layout), how many folders
    each has, the folders, their stamps. Loaded from 64 such rows (`shard`), the folders and stamps stay texts until
    used: the build's main process needs only the skills and counts (a folder's owner is found by bisection), while
    the forked `Watch` splits the rest (one row per skill took 0.15 s to load at 20,000 skills)."""

    def __init__(self, skills: list[str], counts: list[int], folders: list[str] | str, values: list[int] | str):
        self.skills, self.counts = skills, counts
        self._folders, self._values = folders, values  # a text: split on first use

    @property
    def folders(self) -> list[str]:
        if isinstance(self._folders, str):
            self._folders = self._folders.split("\n") if self.skills else []
        return self._folders

    @property
    def values(self) -> list[int]:
        """ValueError when the stored text is damaged."""
        if isinstance(self._values, str):
            self._values = list(map(int, self._values.split(" "))) if self.skills else []
        return self._values

    @classmethod
    def concat(cls, tables: list[Table]) -> Table:
        """The shards as one table (their texts joined, not split); ValueError when a skill is in two of them."""
        tables = [table for table in tables if table.skills]
        skills = [skill for table in tables for skill in table.skills]
        if len(set(skills)) != len(skills):
            raise ValueError("damaged folder stamps")
        if all(isinstance(t._folders, str) and isinstance(t._values, str) for t in tables):
            return cls(skills, [n for table in tables for n in table.counts], "\n".join(t._folders for t in tables),
                       " ".join(t._values for t in tables))
        return cls(skills, [n for table in tables for n in table.counts],
                   [f for table in tables for f in table.folders], [v for table in tables for v in table.values])

    @classmethod
    def decode(cls, texts: tuple[str, str, str, str] | None) -> Table:
        """`encode_all`'s inverse (None: no stamps); ValueError when the texts do not fit together (a stamp that is
        not a number shows when `values` is read)."""
        if texts is None or texts == ("", "", "", ""):
            return cls([], [], [], [])
        if not all(isinstance(t, str) for t in texts):
            raise ValueError("damaged folder stamps")
        skills, counts = texts[0].split("\n"), list(map(int, texts[1].split(" ")))
        total = sum(counts)
        if (len(skills) != len(counts) or texts[2].count("\n") + 1 != total or texts[3].count(" ") + 1 != total
                or min(counts) < 1 or len(set(skills)) != len(skills)):
            raise ValueError("damaged folder stamps")
        return cls(skills, counts, texts[2], texts[3])

    def encode_all(self) -> tuple[str, str, str, str] | None:
        """The four texts; None when a skill's name holds a newline (nothing is stored: the next build scans all)."""
        if not self.skills or any("\n" in skill for skill in self.skills):
            return None
        return ("\n".join(self.skills), " ".join(map(str, self.counts)), "\n".join(self.folders),
                " ".join(map(str, self.values)))

    def owners(self, positions: list[int]) -> list[str]:
        """The skill ('' for the layout) of the folder at each position."""
        ends = list(itertools.accumulate(self.counts)) if positions else []
        return [self.skills[bisect.bisect_right(ends, i)] for i in positions]

    def replaced(self, stamps: dict[str, dict[str, int]], *, replace_all: bool) -> Table:
        """A new table: each named skill's folders replaced (an empty dict drops it); `replace_all` forgets the rest."""
        skills, counts, folders, values = [], [], [], []
        start = 0
        for skill, count in zip(self.skills, self.counts, strict=True):
            if not replace_all and skill not in stamps:
                skills.append(skill)
                counts.append(count)
                folders += self.folders[start:start + count]
                values += self.values[start:start + count]
            start += count
        for skill in sorted(stamps):
            if stamps[skill]:
                paths, numbers = encode(stamps[skill])
                skills.append(skill)
                counts.append(len(paths))
                folders += paths
                values += numbers
        return Table(skills, counts, folders, values)


def shard(skill: str) -> int:
    """The stored row a skill's stamps go to (stable across runs and machines)."""
    return zlib.crc32(skill.encode("utf-8", "surrogatepass")) % SHARDS


def moved(top: str, table: Table) -> list[int]:
    """`changed` for a table; every position when its stored stamps are damaged (everything is then looked at)."""
    try:
        folders, values = table.folders, table.values
    except ValueError:
        return list(range(sum(table.counts)))
    return changed(top, folders, values)


def changed(top: str, folders: list[str], stamps: list[int]) -> list[int]:
    """The positions of the repository-relative folders whose stamp differs now: changed, gone, unreadable, or racy
    when stored."""
    try:
        now = [os.lstat(f"{top}/{rel}").st_ctime_ns for rel in folders]  # the common case: no exception handler
    except OSError:
        now = [_stamp(f"{top}/{rel}", 1 << 62) for rel in folders]
    if now == stamps and UNKNOWN not in stamps:
        return []
    return [i for i, (old, new) in enumerate(zip(stamps, now, strict=True)) if old != new or old == UNKNOWN]


class Watch:
    """`changed`, worked out in a forked child so that the 75,000 `lstat`s of a 20,000-skill registry (~0.25 s of
    CPU, most of it building stat results) run on another core while the build reads its caches. Where fork is
    unavailable or the child fails, the same answer is computed inline."""

    def __init__(self, top: str, table: Table):
        self._args = (top, table)
        self._pid = self._fd = None
        self._result: list[int] | None = None
        try:
            read, write = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except (AttributeError, OSError):  # no fork here: `result` computes it inline
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: answer through the pipe, then leave without running any of the parent's cleanup
            code = 1
            try:
                os.close(read)
                data = memoryview(" ".join(map(str, moved(top, table))).encode() + b"\n")
                while data:
                    data = data[os.write(write, data):]
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pid, self._fd = pid, read

    def result(self) -> list[int]:
        """The positions `changed` gives (waits for the child)."""
        if self._result is None:
            data = b""
            if self._pid is not None:
                with os.fdopen(self._fd, "rb") as pipe:
                    data = pipe.read()
                _, status = os.waitpid(self._pid, 0)
                self._pid = None
                if os.waitstatus_to_exitcode(status) != 0 or not data.endswith(b"\n"):
                    data = b""
            self._result = list(map(int, data.split())) if data else moved(*self._args)
        return self._result

    def close(self) -> None:
        """Stop the child when its answer is no longer wanted."""
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            os.close(self._fd)
            os.waitpid(self._pid, 0)
            self._pid = None
