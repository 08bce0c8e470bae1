"""Remember a discovery result until a watched folder or SKILL.md changes.

The key is the list of roots; the result stays valid while every watched path (each root, each grouping and
skill folder, each SKILL.md) keeps its modification time, so a check costs one `stat` per path instead of reading
and parsing every SKILL.md. Results live in memory and, when a cache folder is known, on disk as JSON so that a
new process (each `skill prompt` run) can reuse them. `invalidate()` drops both; install and uninstall call it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from skillyard.runtime.discovery import Discovery, Root, Skill, scan
from skillyard.runtime.jsonfile import read_json

_MEMORY: dict[str, Discovery] = {}
CACHE_ENV = "SKILLYARD_RUNTIME_CACHE"
FORMAT = 2
MAX_CACHE_BYTES = 16 * 1024 * 1024


def default_cache_dir() -> Path | None:
    """`$SKILLYARD_RUNTIME_CACHE`, else `$SKILLCLI_HOME/cache/runtime`, else `~/.cache/skillyard/runtime`."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    if os.environ.get("SKILLCLI_HOME"):
        return Path(os.environ["SKILLCLI_HOME"]) / "cache" / "runtime"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "skillyard" / "runtime"


def _key(roots: list[Root], lenient: bool = False) -> str:
    blob = json.dumps([[r.to_dict() for r in roots], lenient], sort_keys=True).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:24]


def _fresh(watched: dict[str, int]) -> bool:
    for path, mtime in watched.items():
        try:
            if os.stat(path).st_mtime_ns != mtime:
                return False
        except OSError:
            if mtime != -1:
                return False
    return True


def discover(roots: list[Root], *, cache_dir: Path | None | bool = None, use_cache: bool = True,
             lenient: bool = False) -> Discovery:
    """`scan(roots)`, reusing an earlier result whose watched paths are unchanged. `cache_dir=False`: memory only."""
    if cache_dir is None:
        cache_dir = default_cache_dir()
    key = _key(roots, lenient)
    if use_cache:
        hit = _MEMORY.get(key)
        if hit is None and cache_dir:
            hit = _load(Path(cache_dir) / f"{key}.json")
        if hit is not None and _fresh(hit.watched):
            _MEMORY[key] = hit
            report = dict(hit.report, cached=True)
            return Discovery(hit.skills, report, hit.watched)
    result = scan(roots, lenient=lenient)
    _MEMORY[key] = result
    if cache_dir:
        _save(Path(cache_dir) / f"{key}.json", result)
    return result


def invalidate(cache_dir: Path | None | bool = None) -> None:
    """Forget every cached discovery (memory and disk). Safe to call when nothing is cached."""
    _MEMORY.clear()
    if cache_dir is None:
        cache_dir = default_cache_dir()
    if not cache_dir:
        return
    folder = Path(cache_dir)
    if folder.is_dir():
        for file in folder.glob("*.json"):
            with contextlib.suppress(OSError):
                file.unlink()


def _load(path: Path) -> Discovery | None:
    try:
        data = read_json(path, MAX_CACHE_BYTES)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return Discovery([Skill(**s) for s in data["skills"]], data["report"],
                         {k: int(v) for k, v in data["watched"].items()})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # a damaged cache is just a miss


def _save(path: Path, result: Discovery) -> None:
    try:
        payload = {"format": FORMAT, "skills": [s.to_dict() for s in result.skills], "report": result.report,
                   "watched": result.watched}
        from skillyard.fsutil import write_atomic  # tempfile & co. only when a result is written

        write_atomic(path, json.dumps(payload, ensure_ascii=False), mode=0o600)
    except OSError:
        pass  # caching is an optimisation; a read-only home must not break discovery
