"""What a merge changed, read from git in the publish checkout (never from the API's file list, which stops at
3,000 entries): the facts `record-verification` and its re-proof (`bot.verification_proof`) need from history.

Which commits a PR landed as:
- a merge commit (two parents) or a squash commit (one): the merge commit against its first parent, `M^1..M`;
- a rebase merge of N commits (GitHub names the last one as the merge commit): the first-parent range `M~N..M`.
A one-parent commit is read as a squash first; the rebase range is taken only when `M^1..M` does not show every
file the API lists (and as many files as the API counts) while `M~N..M` does. When neither range holds the PR's
whole change, or history is missing (a shallow clone, an absent commit), the caller gets a `SkillyardError`
naming the PR, the commit and the fix: a verification decided on part of a change would be a guess.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from skillyard.bot import decide
from skillyard.errors import SkillyardError

MAX_GIT_OUTPUT = 64 * 1024 * 1024   # bytes of one git answer (a diff's names, a pointer's text)
FULL_HISTORY = ("Check out the default branch with its full history (actions/checkout `fetch-depth: 0`) and run "
                "this in that checkout (--root).")
_STATUS = {"A": "added", "M": "modified", "T": "modified", "D": "removed", "R": "renamed", "C": "added"}


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """git in `root` with no pager, no textconv or external diff, paths never quoted."""
    try:
        result = subprocess.run(["git", "-C", str(root), "-c", "core.quotepath=off", *args], capture_output=True,
                                timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SkillyardError(f"cannot run git in {root}: {exc}", "Install git and run this in the registry "
                             "checkout.") from None
    if len(result.stdout) > MAX_GIT_OUTPUT:
        raise SkillyardError(f"git {args[0]} in {root} answered more than {MAX_GIT_OUTPUT:,} bytes",
                             "Split the change into smaller PRs.")
    if check and result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SkillyardError(f"git {' '.join(args[:3])} failed in {root}: {message[-1] if message else '?'}",
                             FULL_HISTORY)
    return result


def require_commit(root: Path, commit: str, what: str) -> str:
    """The full SHA of `commit` (40 hex digits, or HEAD), which must be in a checkout with full history (else a loud
    error). Nothing else is passed to git, so no value from the API can read as an option."""
    if commit != "HEAD" and not re.fullmatch(r"[0-9a-f]{40}", commit or ""):
        raise SkillyardError(f"{what}: {str(commit)[:60]!r} is not a full commit SHA",
                             "Report this: GitHub names merge commits by their 40-hex SHA.")
    shallow = git(root, "rev-parse", "--is-shallow-repository", check=False)
    if shallow.returncode != 0:
        raise SkillyardError(f"{root} is not a git checkout, so {what} cannot be read from history", FULL_HISTORY)
    if shallow.stdout.strip() == b"true":
        raise SkillyardError(f"the checkout {root} is shallow: {what} cannot be read from its history",
                             FULL_HISTORY)
    found = git(root, "rev-parse", "--verify", "-q", f"{commit}^{{commit}}", check=False)
    if found.returncode != 0 or not re.fullmatch(rb"[0-9a-f]{40}\n?", found.stdout):
        raise SkillyardError(f"{what}: commit {commit[:40]} is not in the checkout {root}", FULL_HISTORY)
    return found.stdout.decode().strip()


def parents(root: Path, commit: str) -> list[str]:
    line = git(root, "rev-list", "--parents", "-n", "1", commit).stdout.decode().split()
    return line[1:]


def is_ancestor(root: Path, older: str, newer: str = "HEAD") -> bool:
    return git(root, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def changes(root: Path, start: str, end: str) -> list[decide.PrFile]:
    """Each file `start..end` changed, renames found (`-M`), in the API's words (added, modified, renamed,
    removed)."""
    raw = git(root, "diff", "--no-ext-diff", "--no-textconv", "--name-status", "-M", "-z", start, end).stdout
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    out, i = [], 0
    while i < len(fields) and fields[i]:
        status = fields[i][:1]
        if status in ("R", "C"):
            old, new = fields[i + 1], fields[i + 2]
            out.append(decide.PrFile(new, _STATUS[status], old if status == "R" else None))
            i += 3
        else:
            out.append(decide.PrFile(fields[i + 1], _STATUS.get(status, "modified"), None))
            i += 2
    return out


def touched(root: Path, start: str, end: str) -> set[str]:
    """Every path `start..end` added, changed or removed (a rename is both its names)."""
    raw = git(root, "diff", "--no-ext-diff", "--no-renames", "--name-only", "-z", start, end).stdout
    return {p for p in raw.decode("utf-8", "surrogateescape").split("\0") if p}


def _holds(paths: set[str], listed: list[decide.PrFile], total: int | None) -> bool:
    """Whether a range that touched `paths` can be the PR's whole change: every file the API lists (both names
    of a rename) is among them, and there are at least as many as the API counts (`changed_files` counts a
    rename once, git here twice, so more is fine and fewer means something is missing)."""
    return (total is None or len(paths) >= total) and all(
        item.path in paths and (item.previous is None or item.previous in paths) for item in listed)


def landed_range(root: Path, number: int, merge: str, *, commits: int | None, listed: list[decide.PrFile],
                 total: int | None) -> str:
    """The commit the PR's change starts from on the default branch (see the module's docstring): `M^1`, or
    `M~N` for a rebase merge of N commits. Raises when no range holds the whole change the API describes."""
    merge = require_commit(root, merge, f"the merge commit of PR #{number}")
    first = parents(root, merge)
    if not first:
        raise SkillyardError(f"the merge commit {merge} of PR #{number} has no parent", FULL_HISTORY)
    candidates = [f"{merge}^1"]
    if len(first) == 1 and commits and commits > 1:
        candidates.append(f"{merge}~{commits}")
    seen = []
    for start in candidates:
        if git(root, "rev-parse", "--verify", "-q", f"{start}^{{commit}}", check=False).returncode != 0:
            raise SkillyardError(f"PR #{number}: commit {start} is not in the checkout {root}", FULL_HISTORY)
        paths = touched(root, start, merge)
        if _holds(paths, listed, total):
            return start
        seen.append(f"{start}..{merge[:12]} changed {len(paths)} paths")
    raise SkillyardError(
        f"PR #{number}: git does not show the whole change GitHub reports ({total} changed files; "
        f"{'; '.join(seen)}), so some pointer could be missed",
        "Merge PRs into the default branch by merge, squash or rebase of the PR's own commits, and run this in a "
        "full-history checkout of that branch; a maintainer can re-run publish after fixing the history.")


def file_at(root: Path, commit: str, path: str, limit: int) -> str | None:
    """The text of `path` at `commit` (None when it is not a file there or is larger than `limit` bytes)."""
    kind = git(root, "cat-file", "-t", f"{commit}:{path}", check=False)
    if kind.returncode != 0 or kind.stdout.strip() != b"blob":
        return None
    size = git(root, "cat-file", "-s", f"{commit}:{path}").stdout.strip()
    if not size.isdigit() or int(size) > limit:
        return None
    return git(root, "cat-file", "blob", f"{commit}:{path}").stdout.decode("utf-8", "replace")


def pointer_at(root: Path, commit: str, path: str | None) -> dict | None:
    """The pointer at `path` on `commit` as data, or None (no such file, or not a pointer)."""
    from skillyard.format.pointer import MAX_BYTES, parse_pointer

    text = file_at(root, commit, path, MAX_BYTES) if path else None
    if text is None:
        return None
    found, _ = parse_pointer(text)
    return found.data if found is not None else None
