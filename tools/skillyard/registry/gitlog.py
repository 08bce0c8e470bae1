"""When each skill folder last changed, from one pass over `git log` (never one git call per skill).

The pass stops as soon as every folder has been seen, and a cache keyed on HEAD makes a rebuild after a new commit
read only the commits since the cached HEAD.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

TYPE_CHECKING = False  # not `typing`'s: importing typing costs ~4 ms of every validate
if TYPE_CHECKING:
    import subprocess

SEPARATOR = "\x1e"
# Variables that let git find a repository without a `.git` above the folder.
_DISCOVERY_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    import subprocess  # lazily: `validate` of folders outside any repository never starts git

    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=check)


def head_commit(root: Path) -> str | None:
    result = _git(root, "rev-parse", "--verify", "-q", "HEAD", check=False)
    return result.stdout.strip() or None if result.returncode == 0 else None


def is_git_repo(root: Path) -> bool:
    return _git(root, "rev-parse", "--git-dir", check=False).returncode == 0


def _no_repository_above(root: Path) -> bool:
    """True when git could not find a repository for `root`: no `.git` in it or any folder above, and no
    environment variable pointing git elsewhere. Then `validate` of loose folders never starts git."""
    if any(name in os.environ for name in _DISCOVERY_ENV):
        return False
    folder = os.path.realpath(root)
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return False
        parent = os.path.dirname(folder)
        if parent == folder:
            return True
        folder = parent


def repo_toplevel(root: Path) -> Path | None:
    if _no_repository_above(root):
        return None
    result = _git(root, "rev-parse", "--show-toplevel", check=False)
    return Path(result.stdout.strip()) if result.returncode == 0 else None


def owner_folder(path: str, folders: set[str]) -> str | None:
    """The skill folder that a repository-relative file path belongs to."""
    directory = path.rpartition("/")[0]
    while directory:  # innermost first
        if directory in folders:
            return directory
        directory = directory.rpartition("/")[0]
    return None


def folder_history(root: Path, folders: Iterable[str], *, since: str | None = None,
                   pathspec: str | None = None) -> dict[str, tuple[str, str]]:
    """Map each repo-relative folder to (last commit sha, its committer date in UTC ISO 8601).

    `since` limits the walk to commits after it (`since..HEAD`). Folders never committed are left out.
    """
    wanted = set(folders)
    result: dict[str, tuple[str, str]] = {}
    if not wanted:
        return result  # (in a repository without commits git prints nothing, so the answer is empty too)
    args = ["git", "-C", str(root), "-c", "core.quotepath=off", "log", "--no-renames", "--name-only",
            f"--format={SEPARATOR}%H %ct"]
    args.append(f"{since}..HEAD" if since else "HEAD")
    args += ["--", pathspec or "."]
    import subprocess

    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
    assert process.stdout is not None
    commit = date = ""
    owners: dict[str, str | None] = {}  # a file's directory → its skill folder: most lines share a directory
    try:
        for line in process.stdout:
            line = line.rstrip("\n")
            if line.startswith(SEPARATOR):
                commit, _, stamp = line[1:].partition(" ")
                date = _iso(int(stamp))
                if len(result) == len(wanted):
                    break
            elif line:
                directory = line.rpartition("/")[0]
                try:
                    folder = owners[directory]
                except KeyError:
                    folder = owners[directory] = owner_folder(line, wanted)
                if folder is not None and folder not in result:
                    result[folder] = (commit, date)
    finally:
        process.stdout.close()
        process.terminate()
        process.wait()
    return result


def is_ancestor(root: Path, old: str, new: str) -> bool:
    return _git(root, "merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def changed_files(root: Path, ref: str) -> list[str]:
    """Files changed since the merge base with `ref`, plus uncommitted and untracked changes."""
    from skillyard.errors import SkillyardError

    if not ref or ref.startswith("-") or any(c.isspace() or ord(c) < 32 for c in ref):
        raise SkillyardError(f"{ref!r} is not a git ref", "Pass a branch, tag or commit name (it cannot start with `-`).")
    diff = _git(root, "diff", "--name-only", "--no-renames", f"{ref}...HEAD", check=False)
    if diff.returncode != 0:
        raise SkillyardError(f"git cannot compare with {ref!r}: {diff.stderr.strip()}",
                             "Pass a branch, tag or commit that exists locally (fetch it first, with full history).")
    files = set(diff.stdout.split("\n"))
    files |= set(_git(root, "diff", "--name-only", "--no-renames", "HEAD", check=False).stdout.split("\n"))
    files |= set(_git(root, "ls-files", "--others", "--exclude-standard", check=False).stdout.split("\n"))
    return sorted(f for f in files if f)


def _iso(timestamp: int) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class StatusScan:
    """`git status` of the working tree under `pathspec` (a path, or a list of folders taken literally), started in
    the background. With `untracked=False` only tracked files are compared (`-uno`): their index stat check is
    cheap, while walking 20,000 skill folders for untracked and ignored files costs git ~0.8 s (`dirsig.py` covers
    new files instead)."""

    def __init__(self, root: Path, pathspec: str | list[str] = ".", *, untracked: bool = True):
        specs = [pathspec] if isinstance(pathspec, str) else [f":(literal){p}" for p in pathspec]
        which = ["--untracked-files=all", "--ignored=matching"] if untracked else ["--untracked-files=no"]
        import subprocess

        # --no-optional-locks: a status running beside other git commands must not hold the index lock.
        self.process = subprocess.Popen(
            ["git", "--no-optional-locks", "-C", str(root), "-c", "core.quotepath=off", "status", "--porcelain", "-z",
             "--no-renames", *which, "--", *specs],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def dirty_paths(self) -> set[str] | None:
        """Paths modified, staged, untracked or ignored in the working tree (None when git failed)."""
        entries = self.entries()
        return None if entries is None else {path for _, path in entries}

    def entries(self) -> list[tuple[str, str]] | None:
        """(two-letter status, repository-relative path) of every path that differs from HEAD: ` M`, `D `, `??`,
        `!!`... (an ignored or untracked folder ends with `/`). None when git failed."""
        out, _ = self.process.communicate()
        if self.process.returncode != 0:
            return None
        return [(entry[:2], entry[3:]) for entry in out.decode("utf-8", "surrogateescape").split("\0")
                if len(entry) > 3]

    def finish(self) -> None:
        """Wait for git when its answer was not needed (never killed: git must end its own work)."""
        if self.process.returncode is None:
            self.process.communicate()


def changed_since(root: Path, old: str, pathspec: str = ".", *,
                  status: StatusScan | None = None) -> tuple[set[str], set[str]] | None:
    """(paths changed between `old` and HEAD or in the working tree, paths dirty in the working tree), or None when
    git cannot tell (unknown commit, not a repository). Ignored and untracked files count: the build reads them."""
    status = status or StatusScan(root, pathspec)
    diff = _git(root, "-c", "core.quotepath=off", "diff", "--name-only", "--no-renames", old, "HEAD", "--", pathspec,
                check=False)
    dirty = status.dirty_paths()
    if diff.returncode != 0 or dirty is None:
        return None
    return {p for p in diff.stdout.split("\n") if p} | dirty, dirty
