"""Check many skill folders fast: in parallel across cores, and reusing unchanged results from a local cache.

The cache lives in `.skillyard-cache/` (git-ignored) and is keyed on each file's size and mtime plus the tool
version and policy. It is JSON (never pickle) and is ignored when `CI` is set, so a pull request cannot plant a
cache entry that hides a finding.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from skillyard import __version__
from skillyard.format.findings import Finding, Severity
from skillyard.format.package import load_skill
from skillyard.format.policy import Policy
from skillyard.registry.compile import compile_skill, entry_line, entry_summary

CACHE_FILE = ".skillyard-cache/skills.json"
PARALLEL_THRESHOLD = 200
CACHE_FORMAT = 2  # bump when what a cache item holds changes


@dataclass
class CheckedSkill:
    path: str  # repo-relative (or as given) folder path
    name: str
    version: str | None
    summary: dict  # the fields index.json and the compatibility files need
    line: str  # the registry.json line, with slots for the git fields
    findings: list[Finding]

    @property
    def valid(self) -> bool:
        return not any(f.is_error for f in self.findings)


def _check_one(args: tuple[str, str, Policy]) -> CheckedSkill:
    folder, rel, policy = args
    pkg = load_skill(folder, policy, rel_path=rel)
    version = pkg.data.get("version") if isinstance(pkg.data.get("version"), str) else None
    entry = compile_skill(pkg)
    return CheckedSkill(rel, pkg.name, version, entry_summary(entry), entry_line(entry), pkg.findings)


def _check_chunk(chunk: list[tuple[str, str, Policy]]) -> list[CheckedSkill]:
    return [_check_one(item) for item in chunk]


def signature(folder: str) -> list:
    """Cheap change detector: (relative path, size, mtime_ns) of every entry below the folder."""
    out = []
    stack = [("", folder)]
    while stack:
        prefix, directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            st = entry.stat(follow_symlinks=False)
            out.append((prefix + entry.name, st.st_size, st.st_mtime_ns, st.st_mode))
            if entry.is_dir(follow_symlinks=False):
                stack.append((prefix + entry.name + "/", entry.path))
    out.sort()
    return out


def _cache_key(policy: Policy) -> str:
    from skillyard.format.schemas import SCHEMA_FILES, schema_dir

    settings = {k: sorted(v) if isinstance(v, frozenset) else v for k, v in asdict(policy).items()}
    digest = hashlib.sha256(f"{__version__}|{CACHE_FORMAT}|{json.dumps(settings, sort_keys=True)}".encode())  # stable across runs
    for name in sorted(SCHEMA_FILES.values()):
        digest.update((schema_dir() / name).read_bytes())
    return digest.hexdigest()


class SkillCache:
    """Results of earlier checks, by folder, plus the git HEAD and folder list they were computed at."""

    def __init__(self, root: Path, policy: Policy):
        self.path = root / CACHE_FILE
        self.key = _cache_key(policy)
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict) or data.get("key") != self.key:
            data = {}
        self.head: str | None = data.get("head")
        self.folders: list[str] = list(data.get("folders") or [])
        self.dirty: set[str] = set(data.get("dirty") or [])
        self.skills: dict = data.get("skills") or {}

    def store(self, results: dict[str, CheckedSkill], signatures: dict[str, list], *, head: str | None,
              dirty: set[str]) -> None:
        skills = {rel: _to_cache(item, signatures.get(rel)) for rel, item in results.items()}
        payload = {"key": self.key, "head": head, "folders": sorted(results), "dirty": sorted(dirty), "skills": skills}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        temp.write_text(json.dumps(payload, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        os.replace(temp, self.path)


def _to_cache(skill: CheckedSkill, sig: list | None) -> dict:
    return {"sig": sig, "name": skill.name, "version": skill.version, "summary": skill.summary, "line": skill.line,
            "findings": [f.to_dict() for f in skill.findings]}


def _from_cache(path: str, item: dict) -> CheckedSkill:
    findings = [Finding(d["rule"], Severity(d["severity"]), d["message"], d.get("fix"), d.get("file"), d.get("line"),
                        d.get("field")) for d in item["findings"]]
    return CheckedSkill(path, item["name"], item["version"], item["summary"], item["line"], findings)


def check_folders(folders: list[tuple[Path, str]], policy: Policy, *, cache_root: Path | None = None,
                  cache: SkillCache | None = None, fresh: set[str] | None = None, head: str | None = None,
                  dirty: set[str] | None = None, jobs: int | None = None, progress=None) -> list[CheckedSkill]:
    """Check (folder, relative path) pairs; results come back in input order.

    With a cache, a folder is reused when `fresh` (the folders git says changed) does not name it, or, without git,
    when its file signature is unchanged.
    """
    if cache is None and cache_root is not None and not os.environ.get("CI"):
        cache = SkillCache(cache_root, policy)
    results: dict[str, CheckedSkill] = {}
    todo: list[tuple[str, str, Policy]] = []
    signatures: dict[str, list] = {}
    for folder, rel in folders:
        item = cache.skills.get(rel) if cache is not None else None
        if cache is not None and fresh is not None:
            if item is not None and rel not in fresh:
                results[rel] = _from_cache(rel, item)
                if progress:
                    progress.advance()
                continue
        elif cache is not None:
            sig = json.loads(json.dumps(signature(str(folder))))
            signatures[rel] = sig
            if item is not None and item.get("sig") == sig:
                results[rel] = _from_cache(rel, item)
                if progress:
                    progress.advance()
                continue
        todo.append((str(folder), rel, policy))
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if len(todo) >= PARALLEL_THRESHOLD and workers > 1:
        size = max(16, len(todo) // (workers * 8))
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for checked_chunk in pool.map(_check_chunk, chunks):
                for checked in checked_chunk:
                    results[checked.path] = checked
                if progress:
                    progress.advance(len(checked_chunk))
    else:
        for item in todo:
            checked = _check_one(item)
            results[checked.path] = checked
            if progress:
                progress.advance()
    if cache is not None and (todo or set(cache.skills) != set(results) or cache.head != head):
        cache.store(results, signatures, head=head, dirty=dirty or set())
    return [results[rel] for _, rel in folders]
