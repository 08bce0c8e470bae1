"""The local check cache: earlier results by folder, so a rebuild re-checks only what changed.

It lives in `.skillyard-cache/` (git-ignored): an SQLite file whose rows hold JSON text (never pickle), keyed on the
tool version, the policy and the schemas, with git (or each file's size and mtime) telling which folders changed.
It is ignored when `CI` is set, so a pull request cannot plant a cache entry that hides a finding; locally, the key
also mixes in a random secret kept in the user's own cache folder, so a cache file that arrives inside a clone or an
archive (made with another secret) is never trusted either.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from skillyard import __version__
from skillyard.format.findings import Finding
from skillyard.format.policy import Policy
from skillyard.fsutil import write_atomic
from skillyard.registry.checked import CheckedSkill

if TYPE_CHECKING:
    from skillyard.registry import dirsig

CACHE_FILE = ".skillyard-cache/skills.sqlite"
ALL_ROWS = "SELECT path, sig, name, version, line, index_line, plugin_line, agents_line, findings FROM skills"
ONE_ROW = ("SELECT path, sig, name, version, line, index_line, plugin_line, agents_line, findings FROM skills "
           "WHERE path = ?")
CACHE_FORMAT = 8  # bump when what a cache item holds changes


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


SALT_PATH = "skillyard/cache-secret"  # relative to the user cache folder
COMMIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # what a cached HEAD must be before it reaches a git command


def user_cache_dir() -> Path:
    """The user's cache folder (`$XDG_CACHE_HOME`, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"))


def cache_root_for(root: Path, config) -> Path:
    """Where the check cache of a run rooted at `root` lives: the registry root when `root` is a registry (its
    `.skillyard-cache/` is git-ignored there); otherwise a folder of the user's cache named after the absolute root,
    so validating a lone skill folder (`skillyard validate .`) never writes into it or into the working directory."""
    if config.section:
        return Path(root)
    absolute = os.path.abspath(root)
    return user_cache_dir() / "skillyard" / "validate" / hashlib.sha256(absolute.encode()).hexdigest()[:24]


def local_secret() -> bytes | None:
    """This user's cache secret (made on first use, 0600), or None when it can be neither read nor made."""
    path = os.path.join(user_cache_dir(), SALT_PATH)
    for attempt in range(2):
        try:
            with open(path, "rb") as handle:
                secret = handle.read(128)
            if len(secret) >= 32:
                return secret
        except OSError:
            pass
        if attempt == 0:
            try:
                write_atomic(path, secrets.token_hex(32), mode=0o600)  # racing builds: the last one wins, once
            except OSError:
                return None
    return None


def _cache_key(policy: Policy) -> str:
    """What every cached result depends on besides the skill itself: the tool (its version and the source of the
    checking code, so an edited checkout never reuses old answers), the policy and the schemas."""
    from skillyard.format.schemas import SCHEMA_FILES, schema_dir

    settings = {k: sorted(v) if isinstance(v, frozenset) else v for k, v in policy.to_dict().items()}
    digest = hashlib.sha256(f"{__version__}|{CACHE_FORMAT}|{json.dumps(settings, sort_keys=True)}".encode())  # stable across runs
    for name in sorted(SCHEMA_FILES.values()):
        digest.update((schema_dir() / name).read_bytes())
    package = Path(__file__).resolve().parents[1]
    for source in sorted([*(package / "format").glob("*.py"), *(package / "registry").glob("*.py")]):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def _local_key(policy: Policy) -> str | None:
    """The cache key bound to this user's secret; None (no caching) when there is no secret."""
    secret = local_secret()
    return None if secret is None else hashlib.sha256(secret + b"|" + _cache_key(policy).encode()).hexdigest()


class SkillCache:
    """Results of earlier checks, by folder, plus the git HEAD they were computed at.

    SQLite (standard library) rather than one JSON file: reading 10,000 rows takes a few milliseconds, and a build
    that re-checked one skill rewrites one row instead of re-encoding every entry. Any damage to the file simply
    discards it.
    """

    def __init__(self, root: Path, policy: Policy, *, lazy: bool = False):
        """`lazy` (the build): read the folder list, not the rows; `fetch` and `load_rows` read them when needed."""
        self.path = root / CACHE_FILE
        self.key = _local_key(policy)
        self.head: str | None = None
        self.dirty: set[str] = set()
        self.token: str | None = None  # names the `rendered.py` file written with these rows
        self.known: set[str] = set()
        self.lazy = lazy
        self.rows: dict[str, tuple] = {}
        self.stamps: dirsig.Table | None = None  # folder stamps (the build's): what was added or removed
        self.stamp_shards: dict[int, dirsig.Table] = {}  # the same, as stored
        self._converted: dict[str, CheckedSkill] = {}
        try:
            self._load()
        except (sqlite3.Error, ValueError, TypeError, AttributeError):
            self.head, self.dirty, self.rows, self.known = None, set(), {}, set()
            self.stamps, self.stamp_shards = None, {}
            self._discard()

    @property
    def folders(self) -> list[str]:
        return sorted(self.known)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # a cache: losing the last write after a power cut is fine
        return db

    def _load(self) -> None:
        if self.key is None or not self.path.is_file():
            return
        db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta"))
            if meta.get("key") != self.key:
                return
            self.head = meta.get("head") or None
            if self.head is not None and not COMMIT_ID.fullmatch(self.head):
                raise ValueError("damaged cache: HEAD is not a commit id")
            self.dirty = set(json.loads(meta.get("dirty") or "[]"))
            self.token = meta.get("token")
            if self.lazy:
                self.known = {row[0] for row in db.execute("SELECT path FROM skills")}
                self._load_stamps(db)
            else:
                self.rows = {row[0]: row[1:] for row in db.execute(ALL_ROWS)}
                self.known = set(self.rows)
        finally:
            db.close()

    def _load_stamps(self, db: sqlite3.Connection) -> None:
        from skillyard.registry import dirsig  # the build's alone (validate never reads them)

        with contextlib.suppress(sqlite3.OperationalError):  # no such table: the build never stored stamps
            for shard, *texts in db.execute("SELECT shard, skills, counts, dirs, stamps FROM stamps"):
                if not 0 <= shard < dirsig.SHARDS:
                    raise ValueError("damaged folder stamps")
                self.stamp_shards[shard] = dirsig.Table.decode(tuple(texts))
        self.stamps = dirsig.Table.concat([self.stamp_shards[k] for k in sorted(self.stamp_shards)])

    def load_rows(self) -> None:
        """Read every row now (a lazy cache, when the build cannot splice its last outputs)."""
        if self.lazy:
            self.rows = self.fetch(None)
            self.lazy = False

    def fetch(self, paths: list[str] | None) -> dict[str, tuple]:
        """The rows of these folders (all with None); a damaged or unreadable file gives none."""
        if self.key is None or not self.known:
            return {}
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
            try:
                if paths is None:
                    return {row[0]: row[1:] for row in db.execute(ALL_ROWS)}
                out = {}
                for rel in paths:
                    row = db.execute(ONE_ROW, (rel,)).fetchone()
                    if row is not None:
                        out[rel] = row[1:]
                return out
            finally:
                db.close()
        except sqlite3.Error:
            return {}

    def checked_many(self, paths: list[str]) -> dict[str, CheckedSkill] | None:
        """These folders' cached results, or None when any is missing or damaged."""
        rows = self.fetch(paths) if paths else {}
        try:
            out = {rel: _from_row(rel, rows[rel]) for rel in paths}
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
        return out

    def set_token(self, token: str) -> bool:
        """Record the token of a `rendered.py` file written for the rows as they are."""
        try:
            return self._keyed_write(lambda db: db.execute("INSERT OR REPLACE INTO meta VALUES ('token', ?)",
                                                           (token,)))
        except sqlite3.Error:
            return False

    def _keyed_write(self, work) -> bool:
        """Run `work(db)` in one write transaction, only beside rows of this same key (another key's rows were dropped
        by `store`); False when there is no such cache. sqlite3.Error goes to the caller."""
        if self.key is None or not self.path.is_file():
            return False
        with self._transaction() as db:
            stored_key = db.execute("SELECT value FROM meta WHERE key = 'key'").fetchone()
            if stored_key is None or stored_key[0] != self.key:
                db.execute("ROLLBACK")
                return False
            work(db)
        return True

    @contextlib.contextmanager
    def _transaction(self):
        """A connection inside BEGIN IMMEDIATE, committed when the block ends normally (unless it rolled back
        itself), rolled back on any exception, then closed."""
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            if db.in_transaction:
                db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
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
            try:
                done = self._converted[rel] = _from_row(rel, self.rows[rel])
            except (ValueError, KeyError, TypeError, AttributeError):  # a damaged row is a miss, never a crash
                return None  # (the folder stays listed: it is checked again and its row rewritten)
        return done

    def preload(self) -> None:
        """Convert every row now: the build does this while git is still scanning the working tree."""
        for rel in self.rows:
            self.checked(rel)

    def store(self, results: dict[str, CheckedSkill], signatures: dict[str, str], *, head: str | None,
              dirty: set[str], changed: set[str], gone: set[str] | None = None, token: str = "") -> bool:
        """Write the rows of `changed` folders, drop folders that are gone (default: known but not in `results`), and
        record HEAD and the token of the `rendered.py` file that goes with these rows. False when it failed."""
        if self.key is None:
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._write(results, signatures, head=head, dirty=dirty, changed=changed,
                        gone=self.known - set(results) if gone is None else gone, token=token)
        except sqlite3.Error:
            self._discard()  # a cache that cannot be written is rebuilt next time
            return False
        return True

    def _write(self, results, signatures, *, head, dirty, changed, gone, token) -> None:
        with self._transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            stored_key = db.execute("SELECT value FROM meta WHERE key = 'key'").fetchone()
            if stored_key is None or stored_key[0] != self.key:  # another tool version or policy: start over
                db.execute("DROP TABLE IF EXISTS skills")
                db.execute("DROP TABLE IF EXISTS stamps")
                changed = set(results)
            db.execute("CREATE TABLE IF NOT EXISTS skills (path TEXT PRIMARY KEY, sig TEXT, name TEXT, version TEXT, "
                       "line TEXT, index_line TEXT, plugin_line TEXT, agents_line TEXT, findings TEXT)")
            db.executemany("DELETE FROM skills WHERE path = ?", [(rel,) for rel in sorted(gone)])
            db.executemany("INSERT OR REPLACE INTO skills VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           [_to_row(results[rel], signatures.get(rel)) for rel in sorted(changed) if rel in results])
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [("key", self.key), ("head", head or ""), ("dirty", json.dumps(sorted(dirty))),
                            ("token", token)])

    def store_stamps(self, stamps: dict[str, dict[str, int]], *, replace_all: bool) -> None:
        """Record folder stamps by skill ('' for the layout), replacing each named skill's (an empty dict drops it);
        `replace_all` forgets the rest. Only the shards (`dirsig.shard`) of the named skills are rewritten."""
        from skillyard.registry import dirsig

        by_shard: dict[int, dict[str, dict[str, int]]] = {}
        for skill, folders in stamps.items():
            by_shard.setdefault(dirsig.shard(skill), {})[skill] = folders
        empty = dirsig.Table([], [], [], [])
        tables = {}
        for shard, named in by_shard.items():
            try:
                tables[shard] = (empty if replace_all else self.stamp_shards.get(shard, empty)).replaced(named,
                                                                                                        replace_all=False)
            except ValueError:  # a damaged stored stamp: the shard keeps only these skills (the rest are scanned again)
                tables[shard] = empty.replaced(named, replace_all=False)
        rows = [(shard, *texts) for shard, table in sorted(tables.items()) if (texts := table.encode_all()) is not None]

        def work(db) -> None:
            db.execute("CREATE TABLE IF NOT EXISTS stamps (shard INTEGER PRIMARY KEY, skills TEXT, counts TEXT, "
                       "dirs TEXT, stamps TEXT)")
            if replace_all:
                db.execute("DELETE FROM stamps")
            db.executemany("DELETE FROM stamps WHERE shard = ?", [(shard,) for shard in sorted(tables)])
            db.executemany("INSERT INTO stamps VALUES (?, ?, ?, ?, ?)", rows)

        try:
            self._keyed_write(work)
        except sqlite3.Error:
            self._discard()


def _to_row(skill: CheckedSkill, sig: str | None) -> tuple:
    return (skill.path, sig, skill.name, skill.version, skill.line, skill.lines["index"], skill.lines["plugin"],
            skill.lines["agents"], json.dumps([f.to_dict() for f in skill.findings], ensure_ascii=False))


def _from_row(path: str, row: tuple) -> CheckedSkill:
    _sig, name, version, line, index, plugin, agents, findings = row
    found = [] if findings == "[]" else [  # most skills have none: skip the decoder
        Finding.from_dict(d) for d in json.loads(findings)]
    return CheckedSkill(path, name, version, line, found, {"index": index, "plugin": plugin, "agents": agents})
