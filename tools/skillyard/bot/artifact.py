"""Read the validate workflow's report artifact as hostile input.

The artifact was produced by a job that ran the PR's own code, so anything in it may be forged: it is capped in
size, parsed strictly, checked against `validate-report.schema.json`, and every path in it must be a plain
repository-relative path. Only after that, and after its paths are matched against the PR's file list from the
API (see `check_against_pr`), does the bot use it.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from skillyard.errors import SkillyardError

MAX_ARTIFACT_BYTES = 512 * 1024
MAX_DEPTH = 32
_SKILL_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class ArtifactError(SkillyardError):
    """The artifact is not something the bot will act on; nothing is posted."""

    def __init__(self, message: str):
        super().__init__(f"rejected artifact: {message}",
                         "Re-run the validate workflow; a hand-made or altered artifact is never trusted.")


def safe_relpath(path: object) -> bool:
    """A plain `a/b/c` path: no absolute path, no `.`/`..`, no backslash, no control characters."""
    if not isinstance(path, str) or not path or len(path) > 500:
        return False
    if path.startswith(("/", "~")) or "\\" in path or _CONTROL.search(path) or re.match(r"^[A-Za-z]:", path):
        return False
    return all(part not in ("", ".", "..") for part in path.split("/"))


def _depth(value: object, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()] or [level])
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value] or [level])
    return level


def _reject_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_report(raw: bytes, *, max_bytes: int = MAX_ARTIFACT_BYTES) -> dict:
    """Bytes -> a report that passed every check, or ArtifactError saying which check failed."""
    if len(raw) > max_bytes:
        raise ArtifactError(f"it is {len(raw):,} bytes or more; the limit is {max_bytes:,}")
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ArtifactError(f"it is not valid JSON ({str(exc)[:120]})") from None
    if _depth(doc) > MAX_DEPTH:
        raise ArtifactError(f"it is nested deeper than {MAX_DEPTH} levels")
    from skillyard.format.schemas import schema_errors

    errors = schema_errors("validate-report", doc)
    if errors:
        first = errors[0]
        where = "/".join(map(str, first.absolute_path)) or "(top level)"
        raise ArtifactError(f"it does not match validate-report.schema.json at {where}: {first.message[:200]}")
    problems = path_problems(doc)
    if problems:
        raise ArtifactError(problems[0])
    return doc


def path_problems(report: dict) -> list[str]:
    """Every path or name in the report that is not a plain, repository-relative one (pure)."""
    problems = []
    for index, skill in enumerate(report.get("skills", [])):
        path = skill.get("path")
        if not safe_relpath(path) or len(path.split("/")) != 2:
            problems.append(f"skills[{index}].path {path!r} is not a `<skills dir>/<folder>` path")
        name = skill.get("name")
        if name is not None and not _SKILL_NAME.match(name):
            problems.append(f"skills[{index}].name {name!r} is not a skill name")
        for f_index, finding in enumerate(skill.get("findings", [])):
            if "file" in finding and finding["file"] != "." and not safe_relpath(finding["file"]):
                problems.append(f"skills[{index}].findings[{f_index}].file {finding['file']!r} is not a relative path")
    for index, path in enumerate(report.get("changed_paths", [])):
        if not safe_relpath(path):
            problems.append(f"changed_paths[{index}] {path!r} is not a relative path")
    summary = report.get("summary", {})
    skills = report.get("skills", [])
    if summary.get("skills") != len(skills) or summary.get("invalid") != sum(1 for s in skills if not s["valid"]):
        problems.append("its summary does not match its skills")
    if report.get("ok") and any(not s["valid"] for s in skills):
        problems.append("it says ok although a skill is invalid")
    return problems


def load_report(path: str | os.PathLike, *, max_bytes: int = MAX_ARTIFACT_BYTES) -> dict:
    """Read the artifact file without following links and without reading more than `max_bytes` + 1 bytes."""
    path = Path(path)
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise ArtifactError(f"{path} cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise ArtifactError(f"{path} is not a regular file")
    if info.st_size > max_bytes:
        raise ArtifactError(f"it is {info.st_size:,} bytes; the limit is {max_bytes:,}")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(max_bytes + 1)
    return parse_report(raw, max_bytes=max_bytes)


def check_against_pr(report: dict, pr_files: list[str], skill_folders: frozenset[str]) -> None:
    """The artifact must describe this PR: its skills are folders the PR touches and its changed paths are among
    the PR's files (the API's list is the truth; the artifact may only be narrower)."""
    for skill in report.get("skills", []):
        if skill["path"] not in skill_folders:
            raise ArtifactError(f"it reports {skill['path']!r}, which this PR does not change "
                                "(the artifact belongs to another PR or commit)")
    foreign = sorted(set(report.get("changed_paths", [])) - set(pr_files))
    if foreign:
        raise ArtifactError(f"its changed_paths name files this PR does not change (e.g. {foreign[:3]}); "
                            "the artifact belongs to another PR or commit")
