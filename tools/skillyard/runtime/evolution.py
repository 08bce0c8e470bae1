"""Experience notes kept in `evolution.json` inside an installed skill's folder; SKILL.md is never touched.

Ids are `evo-001`, `evo-002`, ... in order of addition and never reused or renumbered. The file is checked against
`schemas/evolution.schema.json` whenever it is read or written, and written atomically (temp file + os.replace)
under an exclusive lock so two processes adding notes at once both keep theirs.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.schemas import schema_errors
from skillyard.fsutil import write_atomic
from skillyard.runtime.jsonfile import JSONFileError, read_json

FILE = "evolution.json"
MAX_BYTES = 4 * 1024 * 1024  # thousands of notes; a larger file is refused, not loaded


def _check(document: object, path: Path) -> None:
    errors = schema_errors("evolution", document)
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise SkillyardError(f"{path}: {where}: {first.message}",
                             "Fix or delete the file; `skill evolve add` recreates it.")


def read(folder: Path, name: str) -> dict:
    path = Path(folder) / FILE
    if not path.exists():
        return {"schema_version": "1.0", "skill": name, "entries": []}
    try:
        document = read_json(path, MAX_BYTES)
    except JSONFileError as exc:
        raise SkillyardError(str(exc), "Fix or delete the file.") from None
    _check(document, path)
    return document


def next_id(entries: list[dict]) -> str:
    highest = max((int(e["id"].split("-", 1)[1]) for e in entries), default=0)
    return f"evo-{highest + 1:03d}"


@contextlib.contextmanager
def _locked(folder: Path):
    """Lock the skill folder itself (no lock file, so the folder keeps only the skill's files and our notes)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def add(folder: Path, name: str, *, title: str, content: str, trigger: str | None = None,
        author: str | None = None, today: _dt.date | None = None) -> dict:
    folder = Path(folder)
    with _locked(folder):
        document = read(folder, name)
        entry = {"id": next_id(document["entries"]), "date": (today or _dt.date.today()).isoformat(),
                 "title": title, "content": content}
        if trigger:
            entry["trigger"] = trigger
        if author:
            entry["author"] = author
        document["entries"].append(entry)
        path = folder / FILE
        _check(document, path)
        write_atomic(path, json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    return entry
