"""Read the validate workflow's report artifact as hostile input.

The artifact was produced by a job that ran the PR's own code, so anything in it may be forged: it is capped in
size, parsed strictly, checked against `validate-report.schema.json`, and every path in it must be a plain
repository-relative path. Only after that, and after its paths are matched against the PR's file list from the
API (see `check_against_pr`), does the bot use it.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import zipfile
from pathlib import Path

from skillyard.errors import SkillyardError

MAX_ARTIFACT_BYTES = 512 * 1024
MAX_DEPTH = 32
# The artifact as GitHub serves it: a zip holding the one file the validate workflow uploaded.
ARTIFACT_NAME = "validate-report"
REPORT_MEMBER = "report.json"
MAX_ZIP_BYTES = 1024 * 1024   # a stored (uncompressed) 512 KiB report plus the zip's own records
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
        if not safe_relpath(path) or len(path.split("/")) < 2:  # a grouped skill: skills/<group>/<name>
            problems.append(f"skills[{index}].path {path!r} is not a `<skills dir>/<folder>[/<folder>…]` path")
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
    the PR's files (the API's list is the truth; the artifact may only be narrower). A grouped skill
    (`skills/group/name`, which the build publishes) belongs to the top folder the PR changes (`skills/group`)."""
    for skill in report.get("skills", []):
        if "/".join(skill["path"].split("/")[:2]) not in skill_folders:
            raise ArtifactError(f"it reports {skill['path']!r}, which this PR does not change "
                                "(the artifact belongs to another PR or commit)")
    foreign = sorted(set(report.get("changed_paths", [])) - set(pr_files))
    if foreign:
        raise ArtifactError(f"its changed_paths name files this PR does not change (e.g. {foreign[:3]}); "
                            "the artifact belongs to another PR or commit")


def artifact_problem(meta: dict, *, run_id: int, head_sha: str, max_bytes: int = MAX_ZIP_BYTES) -> str | None:
    """Why an artifact, as the Actions API lists it, is not the report of run `run_id` of commit `head_sha`
    (pure; `meta` is the API's artifact object). None when it is."""
    run = meta.get("workflow_run") if isinstance(meta.get("workflow_run"), dict) else {}
    if meta.get("name") != ARTIFACT_NAME:
        return f"the artifact is named {str(meta.get('name'))[:100]!r}, not {ARTIFACT_NAME!r}"
    if run.get("id") != run_id:
        return f"the artifact belongs to workflow run {run.get('id')}, not to run {run_id}"
    if run.get("head_sha") != head_sha:
        return f"the artifact was made for commit {str(run.get('head_sha'))[:12]}, not the head {head_sha[:12]}"
    if meta.get("expired"):
        return "the artifact has expired; re-run the validate workflow"
    size = meta.get("size_in_bytes")
    if not isinstance(size, int) or size < 0 or size > max_bytes:
        return f"the artifact is {size!r} bytes; the limit is {max_bytes:,}"
    return None


def report_from_zip(data: bytes, *, max_bytes: int = MAX_ARTIFACT_BYTES) -> dict:
    """The report inside a downloaded artifact archive, read as hostile: the archive is capped, must hold exactly
    one regular, unencrypted `report.json`, and at most `max_bytes` + 1 bytes of it are ever inflated."""
    if len(data) > MAX_ZIP_BYTES:
        raise ArtifactError(f"the archive is {len(data):,} bytes or more; the limit is {MAX_ZIP_BYTES:,}")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            names = [m.filename[:100] for m in members[:3]]
            if len(members) != 1 or members[0].filename != REPORT_MEMBER:
                raise ArtifactError(f"the archive holds {len(members)} member(s) {names}, not one {REPORT_MEMBER}")
            info = members[0]
            if info.is_dir() or stat.S_IFMT(info.external_attr >> 16) not in (0, stat.S_IFREG):
                raise ArtifactError(f"{REPORT_MEMBER} in the archive is not a regular file")
            if info.flag_bits & 0x1:
                raise ArtifactError(f"{REPORT_MEMBER} in the archive is encrypted")
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ArtifactError(f"{REPORT_MEMBER} uses compression method {info.compress_type}")
            if info.file_size > max_bytes:
                raise ArtifactError(f"{REPORT_MEMBER} is {info.file_size:,} bytes; the limit is {max_bytes:,}")
            with archive.open(info) as handle:
                raw = handle.read(max_bytes + 1)   # the declared size may lie: never inflate more than this
    except ArtifactError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, RuntimeError,
            NotImplementedError) as exc:
        raise ArtifactError(f"the archive cannot be read as a zip ({str(exc)[:120]})") from None
    return parse_report(raw, max_bytes=max_bytes)
