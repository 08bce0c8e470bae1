"""Check many skill folders fast: in parallel across cores, and reusing unchanged results from a local cache.

The cache lives in `.skillyard-cache/` (git-ignored): an SQLite file whose rows hold JSON text (never pickle), keyed
on the tool version, the policy and the schemas, with git (or each file's size and mtime) telling which folders
changed. It is ignored when `CI` is set, so a pull request cannot plant a cache entry that hides a finding.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path

from skillyard import __version__
from skillyard.format.findings import Finding, Severity
from skillyard.format.policy import Policy
from skillyard.registry import compat
from skillyard.registry.compile import compact, compile_skill, entry_line, entry_summary, index_line

CACHE_FILE = ".skillyard-cache/skills.sqlite"
PARALLEL_THRESHOLD = 200
CACHE_FORMAT = 4  # bump when what a cache item holds changes


@dataclass
class CheckedSkill:
    path: str  # repo-relative (or as given) folder path
    name: str
    version: str | None
    line: str  # the registry.json line, with slots for the git fields
    findings: list[Finding]
    lines: dict[str, str] = field(default_factory=dict)  # the skill's line in each other output (see `output_lines`)

    @property
    def valid(self) -> bool:
        return not any(f.is_error for f in self.findings)


def _check_one(args: tuple[str, str, Policy]) -> CheckedSkill:
    from skillyard.format.package import load_skill

    folder, rel, policy = args
    pkg = load_skill(folder, policy, rel_path=rel)
    version = pkg.data.get("version") if isinstance(pkg.data.get("version"), str) else None
    entry = compile_skill(pkg)
    return CheckedSkill(rel, pkg.name, version, entry_line(entry), pkg.findings, output_lines(entry_summary(entry)))


def output_lines(summary: dict) -> dict[str, str]:
    """The skill's encoded line in index.json (commit slot left open), marketplace.json and AGENTS.md: encoding
    them here puts the work in the parallel, cached part of the build."""
    return {"index": index_line(summary), "plugin": compact(compat.plugin_entry(summary)),
            "agents": compat.agents_line(summary)}


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
    """Results of earlier checks, by folder, plus the git HEAD they were computed at.

    SQLite (standard library) rather than one JSON file: reading 10,000 rows takes a few milliseconds, and a build
    that re-checked one skill rewrites one row instead of re-encoding every entry. Any damage to the file simply
    discards it.
    """

    def __init__(self, root: Path, policy: Policy):
        self.path = root / CACHE_FILE
        self.key = _cache_key(policy)
        self.head: str | None = None
        self.dirty: set[str] = set()
        self.rows: dict[str, tuple] = {}
        self._converted: dict[str, CheckedSkill] = {}
        try:
            self._load()
        except (sqlite3.Error, ValueError, TypeError):
            self.head, self.dirty, self.rows = None, set(), {}
            self._discard()

    @property
    def folders(self) -> list[str]:
        return sorted(self.rows)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a cache: losing the last write after a power cut is fine
        return db

    def _load(self) -> None:
        if not self.path.is_file():
            return
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta"))
            if meta.get("key") != self.key:
                return
            self.head = meta.get("head") or None
            self.dirty = set(json.loads(meta.get("dirty") or "[]"))
            self.rows = {row[0]: row[1:] for row in db.execute(
                "SELECT path, sig, name, version, line, index_line, plugin_line, agents_line, findings FROM skills")}
        finally:
            db.close()

    def _discard(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    def get(self, rel: str) -> tuple | None:
        return self.rows.get(rel)

    def checked(self, rel: str) -> CheckedSkill | None:
        """The cached result for a folder, as a CheckedSkill (converted once, see `preload`)."""
        done = self._converted.get(rel)
        if done is None and rel in self.rows:
            done = self._converted[rel] = _from_row(rel, self.rows[rel])
        return done

    def preload(self) -> None:
        """Convert every row now: the build does this while git is still scanning the working tree."""
        for rel in self.rows:
            self.checked(rel)

    def store(self, results: dict[str, CheckedSkill], signatures: dict[str, str], *, head: str | None,
              dirty: set[str], changed: set[str]) -> None:
        """Write the rows of `changed` folders, drop folders that are gone, and record HEAD."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._write(results, signatures, head=head, dirty=dirty, changed=changed)
        except sqlite3.Error:
            self._discard()  # a cache that cannot be written is rebuilt next time

    def _write(self, results, signatures, *, head, dirty, changed) -> None:
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            stored_key = db.execute("SELECT value FROM meta WHERE key = 'key'").fetchone()
            if stored_key is None or stored_key[0] != self.key:  # another tool version or policy: start over
                db.execute("DROP TABLE IF EXISTS skills")
                changed = set(results)
            db.execute("CREATE TABLE IF NOT EXISTS skills (path TEXT PRIMARY KEY, sig TEXT, name TEXT, version TEXT, "
                       "line TEXT, index_line TEXT, plugin_line TEXT, agents_line TEXT, findings TEXT)")
            gone = set(self.rows) - set(results)
            db.executemany("DELETE FROM skills WHERE path = ?", [(rel,) for rel in sorted(gone)])
            db.executemany("INSERT OR REPLACE INTO skills VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [_to_row(results[rel], signatures.get(rel)) for rel in sorted(changed) if rel in results])
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [("key", self.key), ("head", head or ""), ("dirty", json.dumps(sorted(dirty)))])
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()


def _to_row(skill: CheckedSkill, sig: str | None) -> tuple:
    return (skill.path, sig, skill.name, skill.version, skill.line, skill.lines["index"], skill.lines["plugin"],
            skill.lines["agents"], json.dumps([f.to_dict() for f in skill.findings], ensure_ascii=False))


def _from_row(path: str, row: tuple) -> CheckedSkill:
    _sig, name, version, line, index, plugin, agents, findings = row
    found = [] if findings == "[]" else [  # most skills have none: skip the decoder
        Finding(d["rule"], Severity(d["severity"]), d["message"], d.get("fix"), d.get("file"), d.get("line"),
                d.get("field")) for d in json.loads(findings)]
    return CheckedSkill(path, name, version, line, found, {"index": index, "plugin": plugin, "agents": agents})


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
    signatures: dict[str, str] = {}
    for folder, rel in folders:
        row = cache.get(rel) if cache is not None else None
        if cache is not None and fresh is not None:
            if row is not None and rel not in fresh:
                results[rel] = cache.checked(rel)
                if progress:
                    progress.advance()
                continue
        elif cache is not None:
            sig = json.dumps(signature(str(folder)))
            signatures[rel] = sig
            if row is not None and row[0] == sig:
                results[rel] = cache.checked(rel)
                if progress:
                    progress.advance()
                continue
        todo.append((str(folder), rel, policy))
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if todo:
        import skillyard.format.package  # noqa: F401 - imported once here, before workers fork, not in each
    if len(todo) >= PARALLEL_THRESHOLD and workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        size = max(16, len(todo) // (workers * 32))  # small chunks: no core idles long at the end
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
    if cache is not None and (todo or set(cache.rows) != set(results) or cache.head != head
                              or cache.dirty != (dirty or set())):
        cache.store(results, signatures, head=head, dirty=dirty or set(), changed={rel for _, rel, _ in todo})
    return [results[rel] for _, rel in folders]
