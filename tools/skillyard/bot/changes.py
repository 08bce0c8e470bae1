"""What a pull request changes, read from the PR-files API (trusted), never from the artifact: which skill
folders it adds, updates or removes, what lies outside them, and why a file list cannot be trusted to automerge
(the shared path rule, a folder that differs from a known one only by case, a list the API cut short)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from skillyard.format.paths import collision_key, path_problem

SKILLS_DIR = "skills"
# The PR-files API lists at most this many files; a longer PR cannot be checked file by file.
FILES_API_LIMIT = 3000
# Statuses the PR-files API reports. "changed" is a mode or type change (executable bit, symlink) without a patch.
FILE_STATUSES = frozenset({"added", "removed", "modified", "renamed", "copied", "changed", "unchanged"})
_SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")


@dataclass(frozen=True)
class PrFile:
    """One entry of the PR-files API. `previous` is the old name of a rename or copy (`previous_filename`)."""

    path: str
    status: str
    previous: str | None = None


@dataclass(frozen=True)
class SkillChange:
    folder: str            # repo-relative, e.g. "skills/pdf-tools"
    kind: str              # "new" | "update" | "removed"

    @property
    def name(self) -> str:
        return self.folder.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Changes:
    """What a PR touches, from the API's file list (trusted), never from the artifact."""

    skills: tuple[SkillChange, ...] = ()
    outside: tuple[str, ...] = ()     # paths that are not inside a skill folder
    problems: tuple[str, ...] = ()    # why the file list itself cannot be trusted to automerge (path rule, size)

    @property
    def new(self) -> tuple[SkillChange, ...]:
        return tuple(c for c in self.skills if c.kind == "new")

    @property
    def existing(self) -> tuple[SkillChange, ...]:
        return tuple(c for c in self.skills if c.kind != "new")

    @property
    def removed(self) -> tuple[SkillChange, ...]:
        return tuple(c for c in self.skills if c.kind == "removed")

    @property
    def folders(self) -> frozenset[str]:
        return frozenset(c.folder for c in self.skills)


def skill_folder_of(path: str, skills_dir: str = SKILLS_DIR) -> str | None:
    """`skills/<name>/...` -> `skills/<name>`; None for anything else (including `skills/README.md`).

    The comparison is exact: `Skills/x` or `skills//x` is not a skill folder, so it counts as outside.
    """
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == skills_dir and parts[1] not in ("", ".", ".."):
        return f"{parts[0]}/{parts[1]}"
    return None


def as_pr_file(entry: PrFile | tuple) -> PrFile:
    return entry if isinstance(entry, PrFile) else PrFile(*entry)


def touched_paths(files: Iterable[PrFile | tuple]) -> list[tuple[str, str]]:
    """Every `(path, status)` a PR touches: a rename's old name counts as a removal of that path, and any other
    `previous_filename` (a copy's source) as touched, so it needs the same ownership."""
    out: list[tuple[str, str]] = []
    for entry in map(as_pr_file, files):
        out.append((entry.path, entry.status))
        if entry.previous and entry.previous != entry.path:
            out.append((entry.previous, "removed" if entry.status == "renamed" else "unchanged"))
    return out


def file_list_problems(files: list[PrFile], known_folders: Iterable[str], total: int | None = None,
                       skills_dir: str = SKILLS_DIR) -> list[str]:
    """Why a PR's file list blocks automerge on its own: paths the shared path rule refuses, statuses the bot does
    not know, folder names that only look like an existing skill, and lists the API truncated."""
    problems: list[str] = []
    listed = len(files)
    if listed >= FILES_API_LIMIT or (total is not None and total > listed):
        problems.append(f"the PR changes {max(total or 0, listed):,} files; the files API lists at most "
                        f"{FILES_API_LIMIT:,}, so the rest cannot be checked")
    known_keys = {collision_key(folder): folder for folder in known_folders}
    seen: set[str] = set()
    for entry in files:
        if entry.status not in FILE_STATUSES:
            problems.append(f"`{entry.path}` has the unknown status {entry.status!r}")
        for path in (entry.path, entry.previous):
            if not path or path in seen:
                continue
            seen.add(path)
            problem = path_problem(path)
            if problem:
                problems.append(f"`{path}` {problem}")
                continue
            folder = skill_folder_of(path, skills_dir)
            if folder is None:
                first = path.split("/", 1)[0]
                if first != skills_dir and collision_key(first) == collision_key(skills_dir):
                    problems.append(f"`{path}` is in `{first}/`, which is not `{skills_dir}/`")
                continue
            name = folder.rsplit("/", 1)[-1]
            twin = known_keys.get(collision_key(folder))
            if twin is not None and twin != folder:
                problems.append(f"`{folder}` differs from the existing `{twin}` only by letter case")
            elif not _SKILL_NAME.match(name):
                problems.append(f"`{folder}` is not a skill name (lowercase letters, digits and hyphens)")
    return list(dict.fromkeys(problems))


def classify_changes(files: Iterable[PrFile | tuple], registry: dict | None, skills_dir: str = SKILLS_DIR,
                     *, total: int | None = None) -> Changes:
    """Sort a PR's files into new/updated/removed skills, paths outside any skill and problems.

    Both names of a rename count (the old one as removed), so moving another skill's file, a workflow or
    CODEOWNERS into your own folder still touches the place it came from. A folder the base registry lists is an
    update (or a removal when every one of its registry files is deleted); a folder it does not list is new.
    `total` is the PR's `changed_files`, to notice a list the API truncated.
    """
    files = [as_pr_file(f) for f in files]
    known: dict[str, set[str]] = {}
    for skill in (registry or {}).get("skills") or []:
        if isinstance(skill, dict) and isinstance(skill.get("path"), str):
            known[skill["path"].strip("/")] = {f.get("path") for f in skill.get("files") or [] if isinstance(f, dict)}
    per_folder: dict[str, list[tuple[str, str]]] = {}
    outside: list[str] = []
    for path, status in touched_paths(files):
        folder = skill_folder_of(path, skills_dir)
        if folder is None:
            outside.append(path)
        else:
            per_folder.setdefault(folder, []).append((path[len(folder) + 1:], status))
    changes = []
    for folder in sorted(per_folder):
        if folder not in known:
            kind = "new"
        else:
            removed = {rel for rel, status in per_folder[folder] if status == "removed"}
            kind = "removed" if known[folder] and known[folder] <= removed else "update"
        changes.append(SkillChange(folder, kind))
    problems = file_list_problems(files, known, total, skills_dir)
    return Changes(tuple(changes), tuple(sorted(set(outside))), tuple(problems))
