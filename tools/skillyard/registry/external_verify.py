"""`skillyard external verify`: prove that each pointer's recorded facts still hold at its pinned commit.

A pointer (`format/pointer.py`) records every file's path, size, sha256 and executable bit and the metadata read
from upstream. Upstream can rewrite history, or a host can serve other bytes for the same commit; verify re-fetches
the tarball at the pin through `registry/external.py` (the same bounded reader and checks as `add`), re-derives
the pointer exactly as `add` would write it, and names every difference. `compare` is pure; the fetch is at the
edge (the caller's `get`, as for `add`). `--record` writes `verification.checked_at` and nothing else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError, UsageError
from skillyard.format.findings import finding_identity
from skillyard.format.githubref import GitHubRef
from skillyard.format.paths import is_hidden
from skillyard.format.pointer import POINTER_FILE, dump_pointer, parse_pointer, read_pointer_file
from skillyard.registry.config import RegistryConfig
from skillyard.registry.external import (
    Get,
    Hosts,
    check_folder,
    download_folder,
    pointer_data,
    pointer_policy,
    repository_facts,
)

FILE_FACTS = ("size", "sha256", "executable")
SHOWN = 200  # characters of a recorded or found value kept in a difference
CHECKED_AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
SHARD = re.compile(r"(?:[a-z0-9](?:-[a-z0-9])?,?)+")


FINDING_KINDS = ("new-finding", "resolved-finding")
FILE_KINDS = ("missing", "extra", "changed")
EXIT_FAILED, EXIT_BLOCKED = 1, 3  # bytes or metadata differ (or unreachable); same bytes, today's rules block them


@dataclass
class Result:
    """One pointer's outcome. `reason` says why it failed; `differences` name what no longer holds (files, folder,
    metadata). `findings_changed` are findings today's rules give the unchanged bytes that the pointer did not
    record, or no longer give: a warning with the command that refreshes them, never a failure by itself.
    `blocking` are findings that block the unchanged bytes under today's rules: the pointer is `blocked`, not
    verified (a new blocking finding never passes silently), and the exit status tells it from a changed pin."""

    name: str
    commit: str | None = None
    reason: str | None = None
    differences: list[dict] = field(default_factory=list)
    checked_at: str | None = None  # when the check passed (UTC)
    recorded: bool = False  # --record wrote checked_at into the pointer
    findings_changed: list[dict] = field(default_factory=list)
    blocking: list[dict] = field(default_factory=list)
    found_findings: list[dict] | None = field(default=None, repr=False)  # today's, as `add` would record them

    @property
    def ok(self) -> bool:
        return self.reason is None and not self.differences and not self.blocking

    @property
    def status(self) -> str:
        return "verified" if self.ok else "blocked" if self.reason is None and not self.differences else "failed"

    @property
    def refresh(self) -> str | None:
        """The command that rewrites the recorded findings, when they differ from today's."""
        return f"skillyard external refresh-findings {self.name}" if self.findings_changed else None

    def to_dict(self) -> dict:
        out = {"name": self.name, "ok": self.ok, "status": self.status, "commit": self.commit,
               "differences": self.differences, "findings_changed": self.findings_changed}
        if self.blocking:
            out["blocking"] = self.blocking
        if self.refresh:
            out["refresh"] = self.refresh
        if self.reason:
            out["reason"] = self.reason
        if self.ok and self.checked_at:
            out["checked_at"] = self.checked_at
            out["recorded"] = self.recorded
        return out


def _shown(value: object) -> object:
    if isinstance(value, str | list | dict) and len(str(value)) > SHOWN:
        return str(value)[:SHOWN] + "…"
    return value


def compare(recorded: dict, found: dict) -> list[dict]:
    """Every difference between a pointer's recorded document and the one re-derived from upstream: files
    (missing, extra, changed size/sha256/executable), the upstream folder, the skill metadata, the findings.
    Registry-side fields (`registry`, `verification`, `upstream.tracks`) are this registry's, not upstream's, and
    are not compared; `license` is upstream's fact, checked by `licence_difference`."""
    out: list[dict] = []
    if recorded["upstream"]["path"] != found["upstream"]["path"]:
        out.append({"kind": "metadata", "field": "upstream.path", "recorded": recorded["upstream"]["path"],
                    "found": found["upstream"]["path"]})
    old = {f["path"]: f for f in recorded["files"]}
    new = {f["path"]: f for f in found["files"]}
    for path in sorted(old.keys() | new.keys()):
        if path not in new:
            out.append({"kind": "missing", "file": path})
        elif path not in old:
            out.append({"kind": "extra", "file": path, "size": new[path]["size"]})
        else:
            for fact in FILE_FACTS:
                before, after = old[path].get(fact, False), new[path].get(fact, False)
                if before != after:
                    out.append({"kind": "changed", "file": path, "field": fact, "recorded": before, "found": after})
    skill_old, skill_new = recorded["skill"], found["skill"]
    for key in sorted(skill_old.keys() | skill_new.keys()):
        if skill_old.get(key) != skill_new.get(key):
            out.append({"kind": "metadata", "field": f"skill.{key}", "recorded": _shown(skill_old.get(key)),
                        "found": _shown(skill_new.get(key))})
    # A pointer recorded before findings carried digests is compared by message until it is written again.
    legacy = not any(f.get("digest") for f in recorded.get("findings") or [])
    findings_old = {_finding_key(f, legacy): f for f in recorded.get("findings") or []}
    findings_new = {_finding_key(f, legacy): f for f in found.get("findings") or []}
    for kind, side, other in (("new-finding", findings_new, findings_old),
                              ("resolved-finding", findings_old, findings_new)):
        for key in sorted(side.keys() - other.keys()):
            rule, file, severity = key[0], key[1], side[key].get("severity")
            out.append({"kind": kind, "rule": rule, "file": file, "message": _shown(side[key].get("message", "")),
                        **({"severity": str(severity)} if severity else {})})
    return out


def _finding_key(finding: dict, legacy: bool) -> tuple[str, str, str]:
    """`findings.finding_identity`: rule, file and the digest of what was matched (the message when `legacy`)."""
    return finding_identity({k: v for k, v in finding.items() if k != "digest"} if legacy else finding)


def _raw_files(files: dict[str, tuple[bytes, bool]]) -> list[dict]:
    """The file facts of a folder that does not pass the checks (the build's list needs a valid skill)."""
    import hashlib

    return [{"path": rel, "size": len(content), "sha256": hashlib.sha256(content).hexdigest(),
             **({"executable": True} if executable else {})}
            for rel, (content, executable) in sorted(files.items()) if not is_hidden(rel)]


def remembering(get: Get, *, max_bytes: int = 256 * 1024 * 1024) -> Get:
    """`get` that fetches each URL once per run: pointers into one repository at one commit (a collection of
    hundreds of skills) share one tarball download, and an upstream that failed fails them all without waiting out
    each timeout again. Answers are kept up to `max_bytes` in all, the oldest dropped first."""
    from collections import OrderedDict

    kept: OrderedDict[str, bytes | SkillyardError] = OrderedDict()

    def cached(url: str, **kwargs) -> bytes:
        answer = kept.get(url)
        if answer is None:
            try:
                answer = get(url, **kwargs)
            except SkillyardError as exc:
                answer = exc
            kept[url] = answer
            while len(kept) > 1 and sum(len(v) for v in kept.values() if isinstance(v, bytes)) > max_bytes:
                kept.popitem(last=False)
        if isinstance(answer, SkillyardError):
            raise answer
        return answer

    return cached


def verify_pointer(folder: Path, config: RegistryConfig, get: Get, hosts: Hosts) -> Result:
    """Re-fetch one pointer's pinned commit and compare; every refusal becomes a failed Result, never a raise."""
    result = Result(folder.name)
    text, problem = read_pointer_file(str(folder / POINTER_FILE))
    pointer, problems = parse_pointer(text, folder_name=folder.name) if text is not None else (None, [problem])
    if pointer is None:
        result.reason = "; ".join(p.message for p in problems[:3])
        return result
    upstream = pointer.upstream
    result.commit = upstream["commit"]
    owner, repo = upstream["repository"].split("/", 1)
    ref = GitHubRef(owner, repo, upstream["path"], upstream["commit"])
    try:
        policy = pointer_policy(config)
        root_licences: dict[str, bytes] = {}
        got_folder, files = download_folder(get, hosts, ref, upstream["commit"], root_licences=root_licences)
        pkg = check_folder(files, pointer.name, policy, (pointer.data.get("registry") or {}).get(
            "security_exceptions") or ())
        errors = [f for f in pkg.findings if f.is_error]
        if errors:  # the findings a pointer records never block: compare the files and folder alone
            found = {"upstream": {"path": got_folder}, "skill": pointer.skill, "files": _raw_files(files),
                     "findings": pointer.data.get("findings")}
        else:
            found = pointer_data(pkg, name=pointer.name, ref=ref, folder=got_folder, commit=upstream["commit"],
                                 tracks=upstream["tracks"], licence=pointer.data["license"])
        licence = licence_difference(pointer.data, pkg.data.get("license"), files, root_licences,
                                     lambda: repository_facts(get, hosts, ref)[1], _pointer_file(folder, config))
    except SkillyardError as exc:
        result.reason = exc.message.replace("; nothing was written", "")
        if getattr(exc, "status", None) in (404, 422):
            result.reason = (f"the pinned commit {upstream['commit'][:12]} is not served by "
                             f"{upstream['repository']} (history rewritten, or the repository moved, was deleted or "
                             f"made private): {result.reason}")
        return result
    result.found_findings = None if errors else found.get("findings") or []
    differences = compare(pointer.data, found)
    result.differences = [d for d in differences if d["kind"] not in FINDING_KINDS] + ([licence] if licence else [])
    result.findings_changed = [d for d in differences if d["kind"] in FINDING_KINDS]
    if errors:
        if result.differences:
            shown = "; ".join(f"{f.file or '.'}: {f.message}" for f in errors[:5])
            result.reason = f"does not pass the checks ({policy.mode} mode): {shown}"
        else:  # the bytes are the ones recorded and reviewed; the rules changed and now block them
            result.blocking = [f.to_dict() for f in errors]
            result.findings_changed = [{"kind": "new-finding", "rule": f.rule, "file": f.file,
                                        "message": _shown(f.message), "severity": "error"} for f in errors]
    elif licence and not any(d["kind"] in FILE_KINDS for d in result.differences):
        result.reason = licence["message"]  # the difference line gives the fix
    elif result.differences and not any(d["kind"] in FILE_KINDS for d in result.differences):
        result.reason = ("the files are the ones recorded, but this Skillyard derives other metadata from them (a "
                         "newer parser): write the pointer again at the same commit")
    return result


def licence_difference(recorded: dict, frontmatter: object, files: dict[str, tuple[bytes, bool]],
                       root_licences: dict[str, bytes], repo_licence, file: str) -> dict | None:
    """The recorded `license` against the licence `external add` would record at the pin (the same lookup: the
    skill's frontmatter, its folder's licence files, then the repository's), by `format.licence_facts.mismatch`: a
    hand-edited licence (GPL-3.0 made MIT in a PR) or a registry-side one upstream has since replaced fails.
    `repo_licence` is asked only when the skill itself states nothing (one API request per repository)."""
    from skillyard.format.licence_facts import mismatch
    from skillyard.format.licence_text import find

    found = find(frontmatter, {p: b for p, (b, _) in files.items()}, repo_licence, root_licences)
    return mismatch(recorded, found, file)


def _pointer_file(folder: Path, config: RegistryConfig) -> str:
    """`skills/<name>/source.yaml`, relative to the registry root when it is inside it."""
    try:
        return (folder / POINTER_FILE).relative_to(config.root).as_posix()
    except ValueError:
        return str(folder / POINTER_FILE)


def refresh_findings(folder: Path, config: RegistryConfig, get: Get, hosts: Hosts, *, write: bool = True) -> dict:
    """Rewrite one pointer's recorded `findings` as today's rules find them in its pinned bytes, and nothing else.
    Refused (nothing written) when the bytes or metadata differ (that is a bump or a broken pin, not a rules
    change) or when today's rules block the bytes (a maintainer decides: a reviewed exception, or removing the
    pointer). The file is rewritten only as `dump_pointer` writes it, and only when it was in that form."""
    from skillyard.fsutil import write_atomic

    result = verify_pointer(folder, config, get, hosts)
    out = {"name": result.name, "commit": result.commit, "status": "unchanged",
           "added": [d for d in result.findings_changed if d["kind"] == "new-finding"],
           "removed": [d for d in result.findings_changed if d["kind"] == "resolved-finding"]}
    if result.status != "verified":
        out["status"] = result.status
        out["reason"] = result.reason or ("today's rules block the files: " + "; ".join(
            f"{f.get('file') or '.'}: {f['message']}" for f in result.blocking[:5]))
        out["differences"] = result.differences
        return out
    path = folder / POINTER_FILE
    text, _ = read_pointer_file(str(path))
    pointer = parse_pointer(text, folder_name=folder.name)[0] if text is not None else None
    # findings that compare the same but are recorded otherwise (before they carried digests) are written again
    restated = pointer is not None and (pointer.data.get("findings") or []) != (result.found_findings or [])
    if not result.findings_changed and not restated:
        return out
    if pointer is None or dump_pointer(pointer.data) != text:
        out["status"] = "failed"
        out["reason"] = (f"{path}: not in the form `skillyard external add` writes, so rewriting it would change more "
                         "than its findings; write it again with `skillyard external add`")
        return out
    data = dict(pointer.data)
    data.pop("findings", None)
    if result.found_findings:
        data["findings"] = result.found_findings  # (dump_pointer puts every key in its place)
    if write:
        write_atomic(path, dump_pointer(data), mode=path.stat().st_mode & 0o777)
    out["status"] = "refreshed" if write else "would-refresh"
    return out


def record_checked(folder: Path, commit: str, checked_at: str) -> None:
    """Set `verification.checked_at` in the folder's source.yaml, atomically, when it still pins `commit`. Every
    other byte stays: the file is rewritten only as `dump_pointer` writes it, and only when it was in that form."""
    from skillyard.fsutil import write_atomic

    if not CHECKED_AT.fullmatch(checked_at):
        raise SkillyardError(f"checked_at {checked_at[:40]!r} is not YYYY-MM-DDTHH:MM:SSZ", "Pass a UTC time.")
    path = folder / POINTER_FILE
    text, problem = read_pointer_file(str(path))
    pointer = parse_pointer(text, folder_name=folder.name)[0] if text is not None else None
    if pointer is None or pointer.upstream["commit"] != commit:
        why = f"no longer pins {commit[:12]}" if pointer is not None else "cannot be read"
        raise SkillyardError(f"{path}: not recorded (the pointer {why})", "Run `skillyard external verify` again.")
    if dump_pointer(pointer.data) != text:
        raise SkillyardError(f"{path}: not recorded: the file is not in the form `skillyard external add` writes, "
                             "so rewriting it would change more than checked_at",
                             "Rewrite it with `skillyard external add` (hand edits go in the `registry` block).")
    data = dict(pointer.data)
    data["verification"] = {**(data.get("verification") or {}), "checked_at": checked_at}
    new_text = dump_pointer(data)
    if parse_pointer(new_text, folder_name=folder.name)[0] is None:
        raise SkillyardError(f"{path}: not recorded: the pointer would not be valid", "Check its verification block.")
    write_atomic(path, new_text, mode=path.stat().st_mode & 0o777)


def parse_shard(spec: str) -> frozenset[str]:
    """The first characters a shard takes: `a-f`, `0-9a-c`, `0-9,x,y-z` (names start with [a-z0-9])."""
    if not SHARD.fullmatch(spec or ""):
        raise UsageError(f"--prefix {spec[:40]!r} is not a range of first characters",
                         "Write ranges and letters of [a-z0-9], e.g. --prefix a-f or --prefix 0-9a-c.")
    chars: set[str] = set()
    for first, last in re.findall(r"([a-z0-9])(?:-([a-z0-9]))?", spec):
        last = last or first
        if last < first or first.isdigit() != last.isdigit():
            raise UsageError(f"--prefix {spec!r}: the range {first}-{last} is empty or mixes digits and letters",
                             "Write ranges low to high, e.g. a-f or 0-9.")
        chars.update(chr(c) for c in range(ord(first), ord(last) + 1))
    return frozenset(chars)


def pointer_folders(root: Path) -> list[Path]:
    """Every pointer entry's folder under the skills folder `root`, grouped (`skills/group/name/`) or not: the skill
    folders the build lists (`registry.scan`) that hold source.yaml, so verify and bump see every pin it publishes."""
    from skillyard.registry.scan import find_skill_folders

    if not root.is_dir():
        return []
    found = [Path(p) for p in find_skill_folders(root)]
    return sorted((p for p in found if p != root and (p / POINTER_FILE).is_file()),
                  key=lambda p: p.relative_to(root).as_posix())


def pointer_by_name(root: Path, folders: list[Path]) -> dict[str, Path]:
    """Each pointer folder under its name and under its path below `root` (`alpha`, `group/alpha`); a name two
    groups share is left out, so only its path names it."""
    by_name: dict[str, Path] = {}
    shared = set()
    for folder in folders:
        if folder.name in by_name:
            shared.add(folder.name)
        by_name[folder.name] = folder
    for name in shared:
        del by_name[name]
    by_name.update({folder.relative_to(root).as_posix(): folder for folder in folders})
    return by_name


def select(config: RegistryConfig, names: list[str], shard: frozenset[str] | None) -> list[Path]:
    """The pointer folders to verify: the named ones (by name or path below the skills folder; each must hold a
    pointer), else all at any depth (`pointer_folders`), within the shard."""
    root = config.skills_dir
    every = pointer_folders(root)
    if names:
        by_name = pointer_by_name(root, every)
        folders = []
        for name in dict.fromkeys(names):
            if name not in by_name:
                raise UsageError(f"{name!r} is not a pointer entry: no folder of that name or path under {root} "
                                 f"holds {POINTER_FILE}",
                                 "Name a skill folder that holds source.yaml, as `alpha` or `group/alpha` (see "
                                 "`skillyard external verify --json` with no names for the full list).")
            folders.append(by_name[name])
        folders = list(dict.fromkeys(folders))
    else:
        folders = every
    return [f for f in folders if shard is None or f.name[:1] in shard]


MAX_REPORTS = 256  # one per CI shard
MAX_REPORT_BYTES = 16 * 1024 * 1024


def apply_reports(config: RegistryConfig, folder: Path) -> tuple[list[str], list[str]]:
    """(names recorded, problems): write `checked_at` from the `verify --json` reports under `folder` (one per CI
    shard) into the pointers that passed and still pin the commit that was checked. The reports are read as
    untrusted data (bounded; names and values checked); only `verification.checked_at` is ever written."""
    import json

    from skillyard.registry.external import NAME, SHA

    written, problems = [], []
    reports = sorted(folder.rglob("*.json"))
    if len(reports) > MAX_REPORTS:
        return [], [f"{folder}: {len(reports)} reports (at most {MAX_REPORTS})"]
    for path in reports:
        try:
            if path.is_symlink() or path.stat().st_size > MAX_REPORT_BYTES:
                raise ValueError("a link, or over 16 MiB")
            pointers = json.loads(path.read_bytes())["pointers"]
            if not isinstance(pointers, list):
                raise ValueError("`pointers` is not a list")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"{path.name}: not a verify report ({str(exc)[:200]})")
            continue
        for item in pointers:
            name, commit, at = (item.get(k) if isinstance(item, dict) else None for k in ("name", "commit", "checked_at"))
            if not (isinstance(item, dict) and item.get("ok") is True and all(isinstance(v, str) for v in
                    (name, commit, at)) and NAME.fullmatch(name) and SHA.fullmatch(commit) and CHECKED_AT.fullmatch(at)):
                continue
            try:
                record_checked(config.skills_dir / name, commit, at)
                written.append(name)
            except SkillyardError as exc:
                problems.append(exc.message)
    return sorted(written), problems
