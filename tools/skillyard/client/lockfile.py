"""Read and write `skill.lock.json` (one per installed skill) and `skills.lock.json` (one per project).

Writes are atomic (temporary file + os.replace) and deterministic (sorted keys, no timestamps). Every lock read is
checked against its JSON Schema, so a hand-edited or truncated lock gives an error naming the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.paths import SKILL_LOCK  # noqa: F401  (lockfile.SKILL_LOCK is read by callers)
from skillyard.fsutil import write_atomic

SCHEMA_VERSION = "1.0"
PROJECT_LOCK = "skills.lock.json"
# A lockfile may come with a cloned project: bound what is read. 16 MiB holds ~50,000 file entries.
MAX_LOCK_BYTES = 16 * 1024 * 1024


def dumps(document: dict) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def atomic_write_text(path: Path, text: str) -> None:
    """Write a lockfile so readers see the old or the new content, never a part (and it survives a crash)."""
    write_atomic(path, text, durable=True)


def _read(path: Path, kind: str) -> dict:
    from skillyard.format.schemas import check_document

    try:
        size = Path(path).stat().st_size
        if size > MAX_LOCK_BYTES:
            raise SkillyardError(f"{path} is {size} bytes; a lockfile is at most {MAX_LOCK_BYTES}.",
                                 "Restore it from version control, or delete it and reinstall the skill(s).")
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except RecursionError:
        raise SkillyardError(f"{path} is nested too deeply to be a lockfile.",
                             "Restore it from version control, or delete it and reinstall the skill(s).") from None
    except (OSError, ValueError) as exc:  # ValueError: bad UTF-8 or JSON, or an integer past Python's 4,300 digits
        raise SkillyardError(f"{path} is not readable JSON: {exc}.",
                             "Restore it from version control, or delete it and reinstall the skill(s).") from None
    check_document(kind, document, what=str(path))
    return document


def skill_lock_document(*, skill: str, version: str, resolved_source: dict, resolved_inputs: dict,
                        targets: list[dict], files: list[dict], deps: dict | None = None,
                        accepted: list[dict] | None = None) -> dict:
    """`deps` (how the skill's MCP tools were handled: checked, unchecked, skipped) only for a skill that has
    `mcp_deps`, and `accepted` (the security findings the user accepted, client/accept.py) only when there are
    some, so every other lock stays as it was."""
    document = {
        "schema_version": SCHEMA_VERSION,
        "skill": skill,
        "version": version,
        "resolved_source": clean_source(resolved_source),
        "resolved_inputs": dict(resolved_inputs),
        "targets": sorted(targets, key=lambda t: (t["scope"], t["target"], t["path"])),
        "files": sorted(files, key=lambda f: f["path"]),
    }
    if deps:
        document["deps"] = dict(deps)
    if accepted:
        document["accepted"] = [dict(e) for e in accepted]
    return document


def clean_source(source: dict) -> dict:
    """Only the schema's keys, none empty; a URL never keeps credentials."""
    out = {k: v for k, v in source.items() if k in ("type", "source", "url", "ref", "commit", "path", "integrity") and v}
    if "url" in out:
        out["url"] = strip_credentials(out["url"])
    return out


def strip_credentials(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        parts = parts._replace(netloc=host)
    return urlunsplit(parts)


def read_skill_lock(folder: Path) -> dict:
    """The lock inside an installed skill folder (FileNotFoundError when there is none)."""
    return _read(Path(folder) / SKILL_LOCK, "skill-lock")


def skill_lock_text(document: dict) -> str:
    from skillyard.format.schemas import check_document

    check_document("skill-lock", document, what=SKILL_LOCK)
    return dumps(document)


def write_skill_lock(folder: Path, document: dict) -> None:
    atomic_write_text(Path(folder) / SKILL_LOCK, skill_lock_text(document))


def read_project_lock(project_root: Path) -> dict | None:
    """The project's skills.lock.json, or None when the project has none."""
    try:
        return _read(Path(project_root) / PROJECT_LOCK, "skills-lock")
    except FileNotFoundError:
        return None


def project_entry(skill_lock: dict, project_root: Path | None = None) -> dict:
    """The project lockfile's record of one skill, from its skill.lock.json.

    A local source inside the project is recorded relative to the project root, so the lockfile works in every
    checkout of the project (an absolute path would only work on the machine that wrote it).
    """
    source = dict(skill_lock["resolved_source"])
    if source.get("type") == "local" and project_root is not None and os.path.isabs(source.get("path", "")):
        root = os.path.realpath(project_root)
        real = os.path.realpath(source["path"])
        if os.path.commonpath([root, real]) == root:
            source["path"] = Path(os.path.relpath(real, root)).as_posix()
    entry = {
        "version": skill_lock["version"],
        "resolved_source": source,
        "resolved_inputs": skill_lock["resolved_inputs"],
        "targets": sorted({t["target"] for t in skill_lock.get("targets", [])}),
        "files": sorted(skill_lock.get("files", []), key=lambda f: f["path"]),
    }
    if skill_lock.get("deps"):
        entry["deps"] = dict(skill_lock["deps"])
    if skill_lock.get("accepted"):
        entry["accepted"] = [dict(e) for e in skill_lock["accepted"]]
    return entry


def write_project_lock(project_root: Path, skills: dict[str, dict]) -> None:
    from skillyard.format.schemas import check_document

    document = {"schema_version": SCHEMA_VERSION, "skills": dict(sorted(skills.items()))}
    check_document("skills-lock", document, what=PROJECT_LOCK)
    atomic_write_text(Path(project_root) / PROJECT_LOCK, dumps(document))


def update_project_lock(project_root: Path, name: str, entry: dict | None) -> None:
    """Set (or, with entry=None, drop) one skill in the project lockfile. Call under the store lock."""
    current = read_project_lock(project_root)
    skills = dict(current["skills"]) if current else {}
    if entry is None:
        if name not in skills:
            return
        skills.pop(name)
    else:
        skills[name] = entry
    write_project_lock(project_root, skills)
