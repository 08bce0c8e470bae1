"""Each skill's version history (issue 37 item 3): every version or pin the registry has listed, with its date, its
commit and what changed in its files, read from the git history of registry.json at build time.

registry.json holds one compact line per skill, so `git log -p` of that one file tells, commit by commit, which
entries were added, changed or dropped. One git invocation serves every skill. Bounded: at most MAX_COMMITS
commits and MAX_LOG_BYTES of log are read, at most MAX_ENTRIES kept per skill and MAX_PATHS paths per kind of file
change. An entry whose files, declared version and (for a pointer) pinned commit stayed as they were is not a new listing
(findings, tags or a time version changed). The result is cached by HEAD, so an unchanged repository costs one `git rev-parse`. No git, no
repository, a shallow clone or a registry.json git has never seen give a note saying so, never a failure.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from skillyard.fsutil import write_atomic
from skillyard.site.model import TIME_VERSION, readable_version

FORMAT = "skillyard-site-history-1"
MAX_COMMITS = 1000
MAX_LOG_BYTES = 64 * 1024 * 1024
MAX_ENTRIES = 50
MAX_PATHS = 20
_ENTRY = re.compile(r"^[+-] *\{\"")
_NAME = re.compile(r'"name":"((?:[^"\\]|\\.)*)","path":"')
_STATE = re.compile(r'"(?:integrity|commit)":"(?:[^"\\]|\\.)*"|"version":"(?:[^"\\]|\\.)*"\}\s*,?\s*\Z')


def unavailable(reason: str) -> dict:
    return {"available": False, "note": f"History unavailable: {reason}.", "truncated": False, "skills": {}}


def _git(folder: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, timeout=timeout, check=False)


def read_history(registry_path: Path, cache_dir: Path | None = None) -> dict:
    """{available, note, truncated, skills: {name: [entry, …] newest first}} for the registry.json at
    `registry_path`, from the history of the git repository holding it (see `history_entries` for an entry)."""
    folder, name = registry_path.resolve().parent, registry_path.name
    try:
        head = _git(folder, "rev-parse", "--is-shallow-repository", "--show-prefix", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return unavailable("git is not installed here")
    lines = head.stdout.decode("utf-8", "replace").splitlines()
    if head.returncode != 0 or len(lines) != 3:
        return unavailable("the registry is not in a git repository with commits")
    shallow, prefix, commit = lines
    if shallow.strip() == "true":
        return unavailable("the site was built from a shallow clone (fetch the full history to list past versions)")
    key = hashlib.sha256(json.dumps([FORMAT, commit, prefix, name, MAX_COMMITS, MAX_LOG_BYTES, MAX_ENTRIES,
                                     MAX_PATHS]).encode()).hexdigest()
    cached = _cached(cache_dir, key)
    if cached is not None:
        return cached
    result = _log(folder, name)
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(cache_dir / "history.json", json.dumps({"key": key, "history": result}, ensure_ascii=False))
    return result


def _cached(cache_dir: Path | None, key: str) -> dict | None:
    if cache_dir is None:
        return None
    try:
        found = json.loads((cache_dir / "history.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found["history"] if isinstance(found, dict) and found.get("key") == key else None


def _log(folder: Path, name: str) -> dict:
    """Run the one `git log -p` and read at most MAX_LOG_BYTES of it."""
    command = ["git", "-C", str(folder), "log", "-p", "-U0", "--no-color", "--no-ext-diff", "--no-textconv",
               "--no-renames", f"-n{MAX_COMMITS}", "--format=%x00%H %ct", "--", name]
    try:
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
            data = proc.stdout.read(MAX_LOG_BYTES + 1)
            truncated = len(data) > MAX_LOG_BYTES
            if truncated:
                proc.kill()
                data = data[:data.rfind(b"\n\x00")] if b"\n\x00" in data else b""
            proc.stdout.close()
            code = proc.wait()
    except OSError:
        return unavailable("git is not installed here")
    if code != 0 and not truncated:
        return unavailable("git could not read the history of registry.json")
    if not data.strip():
        return unavailable(f"{name} has no commits in this repository's git history yet")
    skills = history_entries(data.decode("utf-8", "replace"))
    commits = data.count(b"\x00")
    note = "Every version or pin this registry has listed, newest first, from the git history of registry.json."
    if truncated or commits >= MAX_COMMITS:
        truncated = True
        note += f" Only the newest {commits} changes of registry.json were read."
    return {"available": True, "note": note, "truncated": truncated, "skills": skills}


def _state(entry: dict) -> tuple:
    """What makes a listing new: a declared version, the files (integrity) and, for a pointer skill, the pinned
    upstream commit. A versionless skill's time version and an own skill's commit move with every change to its
    folder, even one that leaves its files as they were: neither makes a new listing alone."""
    version = str(entry.get("version") or "")
    declared = "" if TIME_VERSION.match(version) else version
    return declared, entry.get("integrity"), entry.get("commit") if "source_url" in entry else None


def _files(entry: dict | None) -> dict[str, str]:
    files = entry.get("files") if isinstance(entry, dict) else None
    return {str(f.get("path")): str(f.get("sha256", "")) for f in files or [] if isinstance(f, dict)}


def file_changes(old: dict | None, new: dict | None) -> dict:
    """What changed in the files between two entries (by path and sha256): up to MAX_PATHS paths of each kind, in
    path order, and how many there are in all."""
    before, after = _files(old), _files(new)
    kinds = {"added": sorted(set(after) - set(before)), "removed": sorted(set(before) - set(after)),
             "changed": sorted(p for p in set(before) & set(after) if before[p] != after[p])}
    out: dict = {}
    for kind, paths in kinds.items():
        out[kind] = paths[:MAX_PATHS]
        out[f"{kind}_count"] = len(paths)
    return out


def _parse(line: str) -> dict | None:
    try:
        entry = json.loads(line[1:].strip().rstrip(","))
    except ValueError:
        return None
    return entry if isinstance(entry, dict) and isinstance(entry.get("name"), str) else None


def _commits(text: str):
    """(registry commit, its date, {name: old line}, {name: new line}) for each commit in the log."""
    for chunk in text.split("\x00")[1:]:
        header, _, diff = chunk.partition("\n")
        sha, _, stamp = header.partition(" ")
        try:
            date = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            continue
        old: dict[str, str] = {}
        new: dict[str, str] = {}
        for line in diff.splitlines():
            if not _ENTRY.match(line):
                continue
            found = _NAME.search(line)
            key = found.group(1) if found else (_parse(line) or {}).get("name")
            if isinstance(key, str):
                (old if line[0] == "-" else new)[key] = line
        yield sha, date, old, new


def _event(sha: str, date: str, kind: str, old: dict | None, new: dict | None) -> dict:
    listed = new if new is not None else old
    return {"event": kind, "listed_at": date, "registry_commit": sha,
            "version": str(listed.get("version") or ""), "version_shown": readable_version(listed)["label"],
            "commit": str(listed.get("commit") or ""), "integrity": str(listed.get("integrity") or ""),
            "files": file_changes(old, new)}


def history_entries(log: str) -> dict[str, list[dict]]:
    """{skill name: [entry, …]} from the text of `git log -p --format=%x00%H %ct -- registry.json`, newest first;
    an entry: {event: added|changed|removed, listed_at, registry_commit, version, version_shown, commit, integrity,
    files: file_changes}. The same listing reached twice (a change made again after a merge) counts once, at
    its earliest date."""
    found: dict[str, dict[tuple, tuple[int, dict]]] = {}
    for position, (sha, date, old_lines, new_lines) in enumerate(_commits(log)):
        for name in sorted(set(old_lines) | set(new_lines)):
            before, after = old_lines.get(name), new_lines.get(name)
            if before is not None and after is not None \
                    and _STATE.findall(before) == _STATE.findall(after) and _STATE.findall(after):
                continue  # metadata only: version, commit and integrity as they were
            old = _parse(before) if before is not None else None
            new = _parse(after) if after is not None else None
            if new is not None and old is not None and _state(old) == _state(new):
                continue
            if new is None and old is None:
                continue
            kind = "removed" if new is None else "added" if old is None else "changed"
            event = _event(sha, date, kind, old, new)
            listed = new if new is not None else old
            found.setdefault(name, {})[(kind, *_state(listed))] = (position, event)  # later = older: kept
    out = {}
    for name, events in sorted(found.items()):
        ordered = sorted(events.values(), key=lambda item: item[0])
        out[name] = [event for _, event in ordered[:MAX_ENTRIES]]
    return out


def skill_history(history: dict, name: str) -> dict:
    """One skill's part: {available, note, truncated, entries}."""
    entries = history.get("skills", {}).get(name, [])
    note = history.get("note", "")
    if history.get("available") and not entries:
        note = "No listing of this skill in the git history of registry.json yet (it is listed as of this build)."
    return {"available": bool(history.get("available")), "note": note, "truncated": bool(history.get("truncated")),
            "entries": entries}
