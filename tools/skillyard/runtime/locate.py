"""Turn what a user typed (a folder path or an installed skill's name) into a skill folder."""

from __future__ import annotations

import os
from pathlib import Path

from skillyard.runtime.discovery import default_roots, scan

CANONICAL = Path(".agents") / "skills"


def installed_folders(name: str, *, cwd: str | os.PathLike | None = None,
                      home: str | os.PathLike | None = None) -> list[tuple[str, Path]]:
    """(scope, canonical folder) of every installed copy of `name`: project copies (walking up) first, then user."""
    here = Path(os.path.abspath(cwd or os.getcwd()))
    home_path = Path(os.path.abspath(home or Path.home()))
    found: list[tuple[str, Path]] = []
    for directory in (here, *here.parents):
        if directory == home_path:
            break
        candidate = directory / CANONICAL / name
        if (candidate / "SKILL.md").is_file():
            found.append(("project", candidate))
            break
        if (directory / ".git").exists():
            break
    user = home_path / CANONICAL / name
    if (user / "SKILL.md").is_file():
        found.append(("user", user))
    return found


def locate(ref: str, *, cwd: str | os.PathLike | None = None, home: str | os.PathLike | None = None) -> Path | None:
    """A folder path as given, else the installed copy (project before user), else any discovered skill by name."""
    path = Path(os.path.expanduser(ref))
    if not path.is_absolute() and cwd is not None:
        path = Path(cwd) / path
    if path.is_dir():
        return path
    if path.name == "SKILL.md" and path.is_file():
        return path.parent
    if "/" in ref or os.sep in ref:
        return None
    installed = installed_folders(ref, cwd=cwd, home=home)
    if installed:
        return installed[0][1]
    skill = scan(default_roots(cwd, home=home)).get(ref)
    return Path(skill.folder) if skill else None
