"""Where installed skills live, and how a folder of files gets there atomically.

One canonical copy per scope: `<scope root>/.agents/skills/<name>/` (user scope root = the home folder, project
scope root = the project folder). Other targets link to (or copy) that folder. A new version is staged in a
temporary sibling folder and swapped in by rename, so a failed or interrupted install leaves the previous
version as it was.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.paths import JOURNAL_PREFIX, SKILL_LOCK  # noqa: F401  (store.SKILL_LOCK is read by callers)
from skillyard.fsutil import fsync_dir, write_atomic

SKILLS_SUBDIR = Path(".agents") / "skills"
# Files the user's agent keeps beside an installed skill (`skill evolve`): kept across updates, never "edited".
LOCAL_STATE = ("evolution.json",)
LOCK_FILE = ".skill-cli.lock"
STAGING_PREFIX = ".staging-"
RETIRED_PREFIX = ".retired-"
MAX_JOURNAL_BYTES = 32 * 1024 * 1024  # a journal holds one skill lock (see lockfile.MAX_LOCK_BYTES) and little else


class StagedFile:
    """One file to install: its bytes as they will be written (inputs already rendered). Immutable. A plain class,
    not a dataclass: `dataclasses` (and the `inspect` it loads) was a seventh of `skill list`'s start-up."""

    __slots__ = ("path", "data", "executable")
    __match_args__ = __slots__

    def __init__(self, path: str, data: bytes, executable: bool = False):
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "executable", executable)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}")

    def _fields(self) -> tuple:
        return (self.path, self.data, self.executable)

    def __eq__(self, other):
        return self._fields() == other._fields() if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"StagedFile(path={self.path!r}, data={self.data!r}, executable={self.executable!r})"

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def entry(self) -> dict:
        return {"path": self.path, "sha256": self.sha256, "size": len(self.data)}


def scope_root(scope: str, *, project_root: Path, home: Path) -> Path:
    return Path(project_root if scope == "project" else home)


def skills_dir(root: Path) -> Path:
    return Path(root) / SKILLS_SUBDIR


def canonical_dir(root: Path, name: str) -> Path:
    return skills_dir(root) / name


NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")  # the format's `name` rule (skill-frontmatter schema)
MAX_NAME = 64


def check_name(name: object, *, what: str = "skill name") -> str:
    """Refuse a skill name that is not the format's plain name: it becomes a folder name under the store, so a
    path (`../x`, `/abs`, `a/b`), a device name, a control or invisible character, or a long name never reaches it."""
    from skillyard.format.paths import component_problem

    if isinstance(name, str) and NAME_RE.match(name) and len(name) <= MAX_NAME and component_problem(name):
        raise SkillyardError(f"{name!r} is not a valid {what}: as a folder name it {component_problem(name)}.",
                             "Pick another name; no skill can be installed under this one.")
    if not isinstance(name, str) or not NAME_RE.match(name) or len(name) > MAX_NAME:
        shown = repr(name)[:80] + ("…" if len(repr(name)) > 80 else "")
        raise SkillyardError(f"{shown} is not a valid {what}: a skill name is 1-{MAX_NAME} lowercase letters, "
                             "digits and single hyphens (no paths, spaces or other characters).",
                             "Give the skill's name as `skill list` or `skill search` shows it, e.g. pdf-tools.")
    return name


def check_ref_name(ref: str) -> str:
    """The name part of NAME, NAME@VERSION or NAME@SOURCE, checked like `check_name`; returns the ref."""
    check_name(ref.partition("@")[0])
    return ref


def check_relpath(rel: str) -> str:
    """Refuse a file path the shared path rule refuses (format/paths.py), so the client installs only what
    validate would accept: no traversal, absolute paths, device names, invisible characters or VCS metadata."""
    from skillyard.format.paths import path_problem

    problem = path_problem(rel)
    if problem:
        raise SkillyardError(f"Refusing the file path {rel!r}: it {problem}; nothing was installed.",
                             "The registry or archive is malformed or malicious; report it to its owner.")
    return rel


def check_paths(rels: list[str]) -> None:
    """Every path checked alone, then as a set: two names one case-insensitive disk would merge are refused."""
    from skillyard.format.paths import path_set_problems

    for rel in rels:
        check_relpath(rel)
    clashes = path_set_problems(rels)
    if clashes:
        rel, problem = clashes[0]
        raise SkillyardError(f"Refusing the file path {rel!r}: it {problem}; nothing was installed.",
                             "The registry or archive is malformed or malicious; report it to its owner.")


@contextlib.contextmanager
def store_lock(root: Path) -> Iterator[None]:
    """Hold an exclusive lock on one scope's store, so concurrent `skill` processes take turns."""
    folder = skills_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def write_tree(folder: Path, files: list[StagedFile], *, bookkeeping: dict[str, bytes] | None = None) -> None:
    """Write files under `folder` (which must be new and empty); paths are checked first, as a set.

    `bookkeeping` is the client's own files (the lock), whose names the path rule keeps from packages."""
    check_paths([item.path for item in files])
    for item in files + [StagedFile(k, v) for k, v in (bookkeeping or {}).items()]:
        target = folder / item.path
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as handle:
            handle.write(item.data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(target, 0o755 if item.executable else 0o644)  # noqa: S103


def stage_tree(dest: Path, files: list[StagedFile], *, extra: dict[str, bytes] | None = None) -> Path:
    """Write `files` (+ `extra`, e.g. the lock) into a new hidden sibling of `dest`, fully and fsynced, and carry
    over the user's local state; returns the staging folder. Nothing visible changes yet."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{dest.name}-", dir=dest.parent))
    try:
        write_tree(staging, files, bookkeeping=extra)
        for name in LOCAL_STATE:  # experience notes survive reinstalls and updates
            kept = dest / name
            if kept.is_file() and not kept.is_symlink() and not (staging / name).exists():
                shutil.copy2(kept, staging / name)
        os.chmod(staging, 0o755)  # noqa: S103 - a skill folder is meant to be readable
    except BaseException:
        remove_tree(staging)
        raise
    return staging


def retired_path(dest: Path) -> Path:
    return Path(dest).parent / f"{RETIRED_PREFIX}{Path(dest).name}-{os.getpid()}-{os.urandom(4).hex()}"


def swap_in(dest: Path, staging: Path, retired: Path) -> bool:
    """Move a staged folder to `dest` and the old one to `retired`, resuming from any point a kill left it at;
    True when the new folder is in place, False when it was lost and the old one was put back.

    The order is fixed (old aside, then new in), so every state in between is recognisable: the caller's journal
    names all three paths, and running this again finishes the job."""
    if not os.path.lexists(staging) and not os.path.lexists(dest):
        if os.path.lexists(retired):  # the staged copy is gone (deleted by hand?): roll back, never lose both
            os.rename(retired, dest)
        return False
    if os.path.lexists(staging):
        if os.path.lexists(dest):
            if os.path.lexists(retired):  # cannot happen in order; never lose the staged copy for it
                remove_tree(dest)
            else:
                os.rename(dest, retired)
        os.rename(staging, dest)
        fsync_dir(dest.parent)  # the swap reaches the disk before the lockfiles that describe it
    if os.path.lexists(retired):
        remove_tree(retired)
    return True


def install_tree(dest: Path, files: list[StagedFile], *, extra: dict[str, bytes] | None = None) -> None:
    """Atomically make `dest` hold exactly `files` (+ `extra`, e.g. the lock file), in one process (no journal).

    Staged in a hidden sibling; the old folder, if any, is renamed aside and deleted only after the new one is in
    place, and put back if the swap fails.
    """
    dest = Path(dest)
    staging = stage_tree(dest, files, extra=extra)
    try:
        retired = None
        if dest.exists() or dest.is_symlink():
            retired = retired_path(dest)
            os.rename(dest, retired)
        try:
            os.rename(staging, dest)
        except BaseException:
            if retired is not None:
                os.rename(retired, dest)
            raise
        if retired is not None:
            remove_tree(retired)
    except BaseException:
        remove_tree(staging)
        raise


def remove_tree(path: Path) -> None:
    """Delete a folder (or link/file) without following links out of it."""
    path = Path(path)
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path)


def retire(dest: Path) -> None:
    """Remove an installed folder in one step (rename aside, then delete), so it never looks half-removed."""
    if not (dest.exists() or dest.is_symlink()):
        return
    retired = retired_path(dest)
    os.rename(dest, retired)
    remove_tree(retired)


def journal_path(root: Path, name: str) -> Path:
    return skills_dir(root) / f"{JOURNAL_PREFIX}{check_name(name)}.json"


def write_journal(root: Path, intent: dict) -> Path:
    """Record what a change is about to do, durably, before its first visible step (see `install.apply_intent`)."""
    return write_atomic(journal_path(root, intent["name"]), json.dumps(intent, sort_keys=True), durable=True)


def clear_journal(root: Path, name: str) -> None:
    journal_path(root, name).unlink(missing_ok=True)


# A multi-skill install journals each skill with `group` set, then writes the group's commit record: the one
# atomic step after which recovery finishes every member; before it, recovery discards them all.
GROUP_RE = re.compile(r"^[0-9a-f]{16}\Z")
COMMIT_SUFFIX = ".commit"


def new_group() -> str:
    return os.urandom(8).hex()


def commit_path(root: Path, group: str) -> Path:
    if not GROUP_RE.match(group):
        raise SkillyardError(f"{group!r} is not a transaction id.", "Delete the journal files and reinstall.")
    return skills_dir(root) / f"{JOURNAL_PREFIX}txn-{group}{COMMIT_SUFFIX}"


def write_commit(root: Path, group: str, names: list[str]) -> None:
    write_atomic(commit_path(root, group), json.dumps({"group": group, "skills": names}), durable=True)


def clear_commit(root: Path, group: str) -> None:
    commit_path(root, group).unlink(missing_ok=True)


def committed_groups(root: Path) -> list[str]:
    """The groups whose commit record was written (its members are to be finished, not discarded)."""
    folder = skills_dir(root)
    if not folder.is_dir():
        return []
    prefix = f"{JOURNAL_PREFIX}txn-"
    names = (p.name[len(prefix):-len(COMMIT_SUFFIX)] for p in folder.glob(f"{prefix}*{COMMIT_SUFFIX}"))
    return sorted(g for g in names if GROUP_RE.match(g))


def read_journals(root: Path) -> list[tuple[Path, dict]]:
    """Every pending intent in a scope, checked so that a tampered journal can only name folders of its own skill
    beside the store (a journal that does not read is refused with its file name)."""
    from skillyard.format.paths import path_problem

    folder = skills_dir(root)
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.glob(f"{JOURNAL_PREFIX}*.json")):
        try:
            if path.stat().st_size > MAX_JOURNAL_BYTES:
                raise ValueError(f"it is larger than {MAX_JOURNAL_BYTES} bytes")
            intent = json.loads(path.read_text(encoding="utf-8"))
            name = check_name(intent["name"])
            if path.name != f"{JOURNAL_PREFIX}{name}.json" or intent["action"] not in ("install", "uninstall"):
                raise ValueError("it names another skill or an unknown action")
            if intent.get("scope") not in ("project", "user") or not isinstance(intent.get("targets", []), list):
                raise ValueError("its `scope` or `targets` is malformed")
            if intent["action"] == "install" and not isinstance(intent.get("lock"), dict):
                raise ValueError("it has no `lock`")
            if intent.get("group") is not None and not (isinstance(intent["group"], str)
                                                        and GROUP_RE.match(intent["group"])):
                raise ValueError("its `group` is not a transaction id")
            if (intent.get("staging") is None) != (intent.get("retired") is None):
                raise ValueError("it names only one of `staging` and `retired`")
            for key, prefix in (("staging", STAGING_PREFIX), ("retired", RETIRED_PREFIX)):
                leaf = intent.get(key)
                if leaf is not None and not (isinstance(leaf, str) and leaf.startswith(f"{prefix}{name}-")
                                             and path_problem(leaf) is None and "/" not in leaf):
                    raise ValueError(f"its `{key}` is not a {prefix}{name}-* folder")
        except (OSError, ValueError, KeyError, TypeError, RecursionError, SkillyardError) as exc:
            raise SkillyardError(f"{path} is not a readable change journal ({exc}); the change it recorded was "
                                 "not finished.",
                                 f"Delete {path.name}, then reinstall the skill it names with --force.") from None
        out.append((path, intent))
    return out


def clean_lock_temps(folder: Path) -> None:
    """Delete the temporary file of a lock write that a kill interrupted (it would read as a local edit)."""
    for temp in Path(folder).glob(f".{SKILL_LOCK}.*.tmp"):
        remove_tree(temp)


def leftover_owner(entry_name: str) -> str | None:
    """The skill a `.retired-<name>-<pid>-<hex>` or `.staging-<name>-<random>` folder belongs to, or None."""
    if entry_name.startswith(RETIRED_PREFIX):
        parts = entry_name[len(RETIRED_PREFIX):].rsplit("-", 2)
        name = parts[0] if len(parts) == 3 else ""
    elif entry_name.startswith(STAGING_PREFIX):
        name = entry_name[len(STAGING_PREFIX):].rsplit("-", 1)[0]
    else:
        return None
    return name if NAME_RE.match(name) and len(name) <= MAX_NAME else None


def remove_leftovers(root: Path, name: str) -> None:
    """Delete every staging/retired folder of one skill (an uninstall's, which must never come back)."""
    folder = skills_dir(root)
    for entry in folder.iterdir() if folder.is_dir() else []:
        if leftover_owner(entry.name) == name:
            remove_tree(entry)


def sweep(root: Path) -> None:
    """Delete staging/retired leftovers from an interrupted run, and the temporary files of an interrupted lock
    write (only call while holding store_lock, after recovering every journal: a journal needs its folders).

    One exception: a retired folder, intact per its own lock, whose skill folder is missing is the previous
    version of a swap that was killed without a journal (an older client): it is put back, never deleted."""
    folder = skills_dir(root)
    if not folder.is_dir():
        return
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(RETIRED_PREFIX):
            name = leftover_owner(entry.name)
            dest = folder / name if name else None
            if dest is not None and not os.path.lexists(dest) and _intact(entry):
                os.rename(entry, dest)
                continue
            remove_tree(entry)
        elif entry.name.startswith(STAGING_PREFIX):
            remove_tree(entry)
        elif not entry.name.startswith(".") and entry.is_dir() and not entry.is_symlink():
            clean_lock_temps(entry)
    for temp in Path(root).glob(".skills.lock.json.*.tmp"):
        remove_tree(temp)


def _intact(folder: Path) -> bool:
    """A real folder whose files are exactly those its skill.lock.json lists."""
    lock = folder / SKILL_LOCK
    if folder.is_symlink() or not folder.is_dir() or not lock.is_file():
        return False
    try:
        files = json.loads(lock.read_text(encoding="utf-8"))["files"]
        return edited_files(folder, files) == []
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # a project's committed lock may be hostile
        return False


def installed_names(root: Path) -> list[str]:
    folder = skills_dir(root)
    if not folder.is_dir():
        return []
    # Only names `skill` could have installed: a folder called `evil\x1b[2J` (a cloned project can hold anything)
    # is not listed, updated or printed.
    return sorted(e.name for e in folder.iterdir()
                  if NAME_RE.match(e.name) and len(e.name) <= MAX_NAME and (e / SKILL_LOCK).is_file())


def pending_changes(root: Path) -> list[str]:
    """Skills with a journaled change a killed run did not finish (the next mutating command finishes it)."""
    folder = skills_dir(root)
    if not folder.is_dir():
        return []
    return sorted(p.name[len(JOURNAL_PREFIX):-len(".json")] for p in folder.glob(f"{JOURNAL_PREFIX}*.json"))


def scan_files(folder: Path, *, skip: tuple[str, ...] = (SKILL_LOCK, *LOCAL_STATE)) -> dict[str, tuple[int, str]]:
    """path → (size, sha256) of every regular file under an installed folder (links are not followed)."""
    out: dict[str, tuple[int, str]] = {}
    folder = Path(folder)
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            full = Path(dirpath) / name
            rel = full.relative_to(folder).as_posix()
            if rel in skip or full.is_symlink() or not full.is_file():
                continue
            data = full.read_bytes()
            out[rel] = (len(data), hashlib.sha256(data).hexdigest())
    return out


def edited_files(folder: Path, lock_files: list[dict]) -> list[str]:
    """Files under an installed folder that differ from what the lock says was written: changed, removed, added."""
    expected = {f["path"]: (f["size"], f["sha256"]) for f in lock_files}
    actual = scan_files(folder)
    changed = [p for p, v in expected.items() if actual.get(p) != v]
    added = [p for p in actual if p not in expected]
    return sorted(set(changed + added))
