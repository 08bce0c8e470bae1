"""Find the skills an agent can use: scan labelled roots, resolve name clashes, and report every decision.

Priority (highest first): project roots (nearest directory first, found by walking up from the working directory),
then roots named in `SKILL_PATH` (os.pathsep-separated, in order), then the user's roots, then built-in roots. A
skill is a folder holding SKILL.md; folders without one are grouping folders and are searched (up to MAX_DEPTH).
When two skills share a name, the one from the higher-priority root wins; inside one root the newer SKILL.md
(modification time) wins, and equal times fall back to path order so the outcome never depends on scan order.
Links are followed, but every folder is visited at most once per root (by real path), so link cycles end.
A broken skill is reported and skipped, never fatal.

What reaches a model's index passes the validator's own checks (`format`) in lenient mode: a frontmatter with errors
(controls, invisible characters, bad YAML, the size bounds) is refused in every mode, as is a skill folder whose name
the shared path rule refuses. Every skill the standard's reference validator accepts is listed unless
site/pages/security.md names the security reason it is not: a one-line description up to 1,024 characters is listed,
and `<`/`>` in its text is escaped by every output format (runtime/prompt.py), not hidden. Strict mode (the
default, design 002 §4.3) also refuses a `name` or `description` the schema rejects. Lenient mode lists a skill with
an empty description (warning) and turns a `name` that is not a slug into one (warning); every warning is in the
report and on the skill (`diagnostics`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
import time
from pathlib import Path

from skillyard.format import paths, safety
from skillyard.format.record import FrozenRecord, Record
from skillyard.format.slug import slugify  # design 001 §4.2, shared with install and init-registry

TYPE_CHECKING = False  # datetime loads where a scan runs: a cached discovery needs none
if TYPE_CHECKING:
    import datetime as _dt

# The frontmatter, manifest and schema checks (YAML and the schemas) are imported where a SKILL.md is parsed: a
# cached discovery (each warm `skill prompt`) never parses one, and those imports were most of its start-up.

ENV_VAR = "SKILL_PATH"
MAX_DEPTH = 4
SKIP_NAMES = frozenset({"node_modules", "__pycache__", "venv"})
# Design 002 §2.1's `.agent/skills` comes right after `.agents/skills` (the standard's folder, where `skill install`
# writes) at the same scope: a name in both is one override in the report, won by `.agents/skills`.
PROJECT_DIRS = (".agents/skills", ".agent/skills", ".agents/skill", ".claude/skills", ".claude/skill", "skills",
                "skill")
USER_DIRS = (".agents/skills", ".agent/skills", ".claude/skills")
PRIORITY = {"project": 400, "env": 300, "user": 200, "builtin": 100, "explicit": 500}
MAX_SKILL_MD = 1024 * 1024
MAX_SKILL_YAML = 512 * 1024
MAX_META_CHARS = 200
SOURCES = ("explicit", "project", "env", "user", "builtin")


class Root(FrozenRecord):
    """A folder skills are discovered in: `source` is project | env | user | builtin | explicit."""

    FIELDS = ("path", "source", "priority")

    def __init__(self, path: str, source: str, priority: int):
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "priority", priority)

    def to_dict(self) -> dict:
        return {"path": self.path, "source": self.source, "priority": self.priority}


class Skill(Record):
    """One discovered skill; `location` is the absolute path of its SKILL.md, `controls` design 002 §2.2's hints the
    host enforces, `meta` version and author (skill.yaml beside SKILL.md, or `metadata:`), `diagnostics` lenient
    mode's warnings."""

    FIELDS = ("name", "description", "location", "folder", "source", "root", "priority", "mtime_ns",
              "model_invocable", "controls", "meta", "diagnostics")

    def __init__(self, name: str, description: str, location: str, folder: str, source: str, root: str,
                 priority: int, mtime_ns: int, model_invocable: bool = True, controls: dict | None = None,
                 meta: dict | None = None, diagnostics: list | None = None):
        self.name, self.description, self.location, self.folder = name, description, location, folder
        self.source, self.root, self.priority, self.mtime_ns = source, root, priority, mtime_ns
        self.model_invocable = model_invocable
        self.controls = {} if controls is None else controls
        self.meta = {} if meta is None else meta
        self.diagnostics = [] if diagnostics is None else diagnostics


class Discovery(Record):
    """The skills found, the report of every decision, and `watched` (path -> mtime_ns: the cache key)."""

    FIELDS = ("skills", "report", "watched")

    def __init__(self, skills: list[Skill], report: dict, watched: dict[str, int] | None = None):
        self.skills, self.report = skills, report
        self.watched = {} if watched is None else watched

    def by_name(self) -> dict[str, Skill]:
        return {s.name: s for s in self.skills}

    def get(self, name: str) -> Skill | None:
        return self.by_name().get(name)


# --------------------------------------------------------------------------------------------------- roots


def project_roots(cwd: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None) -> list[Path]:
    """Skill folders of the project: walk up from `cwd`, nearest first, stopping at the repository top (`.git`).

    The home directory is the user scope, so the walk never treats it (or anything above it) as a project.
    """
    here = Path(os.path.abspath(cwd or os.getcwd()))
    home_path = Path(os.path.abspath(home or Path.home()))
    found: list[Path] = []
    for directory in (here, *here.parents):
        if directory == home_path or (home_path.is_relative_to(directory) and directory != here):
            break
        for name in PROJECT_DIRS:
            candidate = directory / name
            if candidate.is_dir():
                found.append(candidate)
        if (directory / ".git").exists():
            break
    return found


def default_roots(cwd: str | os.PathLike | None = None, *, home: str | os.PathLike | None = None,
                  env: dict | None = None, builtin: list[str | os.PathLike] | None = None,
                  include_project: bool = True, include_user: bool = True) -> list[Root]:
    env = os.environ if env is None else env
    home_path = Path(home or Path.home())
    roots: list[Root] = []
    if include_project:
        roots += [Root(str(p), "project", PRIORITY["project"]) for p in project_roots(cwd, home=home_path)]
    for part in (env.get(ENV_VAR) or "").split(os.pathsep):
        if part.strip():
            roots.append(Root(os.path.abspath(os.path.expanduser(part.strip())), "env", PRIORITY["env"]))
    if include_user:
        roots += [Root(str(home_path / d), "user", PRIORITY["user"]) for d in USER_DIRS]
    for item in builtin or []:
        roots.append(Root(os.path.abspath(item), "builtin", PRIORITY["builtin"]))
    return _dedupe_roots(roots)


def explicit_roots(paths, source: str = "explicit") -> list[Root]:
    """Roots given by the caller (e.g. `--root`): earlier ones outrank later ones."""
    count = len(paths)
    return _dedupe_roots([Root(os.path.abspath(p), source, PRIORITY.get(source, 500) + (count - i))
                          for i, p in enumerate(paths)])


def _dedupe_roots(roots: list[Root]) -> list[Root]:
    seen: set[str] = set()
    out = []
    for root in roots:
        key = os.path.realpath(root.path)
        if key not in seen:
            seen.add(key)
            out.append(root)
    return out


# --------------------------------------------------------------------------------------------------- scanning


def scan(roots: list[Root], *, now: _dt.datetime | None = None, lenient: bool = False) -> Discovery:
    """Scan every root and resolve clashes. Reads only SKILL.md (and skill.yaml) files; never executes anything."""
    import datetime as _dt

    started = time.monotonic()
    candidates: list[Skill] = []
    ignored: list[dict] = []
    broken: list[dict] = []
    watched: dict[str, int] = {}
    scanned = 0
    for order, root in enumerate(roots):
        try:
            watched[root.path] = os.stat(root.path).st_mtime_ns
        except OSError:
            watched[root.path] = -1
            continue
        found = _scan_root(root, ignored, broken, watched, lenient)
        scanned += len(found)
        candidates += [(order, s) for s in found]  # type: ignore[misc]
    skills, overrides = _resolve(candidates)
    index_hash = index_digest(skills)
    report = {
        "scanned_at": (now or _dt.datetime.now(_dt.UTC)).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "roots": [dict(r.to_dict(), exists=watched.get(r.path, -1) != -1) for r in roots],
        "counts": {"roots": len(roots), "found": scanned, "skills": len(skills), "overrides": len(overrides),
                   "broken": len(broken), "ignored": len(ignored)},
        "overrides": overrides,
        "broken": sorted(broken, key=lambda b: b["path"]),
        "ignored": sorted(ignored, key=lambda b: b["path"]),
        "warnings": sorted(({"path": s.location, "warning": w} for s in skills for w in s.diagnostics),
                           key=lambda w: (w["path"], w["warning"])),
        "mode": "lenient" if lenient else "strict",
        "index_hash": index_hash,
        "duration_ms": round((time.monotonic() - started) * 1000, 3),
        "cached": False,
    }
    return Discovery(skills, report, watched)


def _scan_root(root: Root, ignored: list, broken: list, watched: dict, lenient: bool = False) -> list[Skill]:
    found: list[Skill] = []
    visited: set[str] = set()
    stack: list[tuple[str, int]] = [(root.path, 0)]
    while stack:
        directory, depth = stack.pop()
        real = os.path.realpath(directory)
        if real in visited:
            ignored.append({"path": directory, "reason": "link cycle or folder already scanned via another link"})
            continue
        visited.add(real)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            broken.append({"path": directory, "reason": f"cannot read folder: {exc.strerror}"})
            continue
        for entry in entries:
            if not _is_dir(entry):
                continue
            if entry.name.startswith("."):
                ignored.append({"path": entry.path, "reason": "hidden folder"})
                continue
            skill_md = _skill_md(entry.path)
            if skill_md is None and entry.name in SKIP_NAMES:  # a skill may be named `venv`; a tool folder is not
                ignored.append({"path": entry.path, "reason": "tool or build folder"})
                continue
            if skill_md is not None:
                if os.path.realpath(entry.path) in visited:
                    ignored.append({"path": entry.path, "reason": "same skill folder reached through a link"})
                    continue
                visited.add(os.path.realpath(entry.path))
                rel = os.path.relpath(entry.path, root.path).replace(os.sep, "/")
                problem = paths.path_problem(rel)
                if problem:  # the shared path rule: a folder no stage may publish or install is not indexed
                    broken.append({"path": entry.path, "reason": f"the folder `{paths.shown(rel)}` {problem}"})
                    continue
                skill = _read_skill(entry.path, skill_md, root, broken, watched, lenient)
                if skill is not None:
                    found.append(skill)
            elif depth + 1 < MAX_DEPTH:
                stack.append((entry.path, depth + 1))
                with contextlib.suppress(OSError):
                    watched[entry.path] = os.stat(entry.path).st_mtime_ns
            else:
                ignored.append({"path": entry.path, "reason": f"deeper than {MAX_DEPTH} grouping folders"})
    return found


def _skill_md(folder: str) -> str | None:
    """SKILL.md, or `skill.md` as the standard's reference also accepts (on a case-sensitive disk), or None."""
    for name in ("SKILL.md", "skill.md"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()  # follows links; a broken link is simply not a folder
    except OSError:
        return False


def _read_skill(folder: str, skill_md: str, root: Root, broken: list, watched: dict,
                lenient: bool = False) -> Skill | None:
    try:
        st = os.stat(skill_md)
        watched[folder] = os.stat(folder).st_mtime_ns
        watched[skill_md] = st.st_mtime_ns
        if st.st_size > MAX_SKILL_MD:
            broken.append({"path": skill_md, "reason": f"SKILL.md is larger than {MAX_SKILL_MD} bytes"})
            return None
        with open(skill_md, encoding="utf-8") as handle:
            text = handle.read()
    except UnicodeDecodeError:
        broken.append({"path": skill_md, "reason": "SKILL.md is not UTF-8 text"})
        return None
    except OSError as exc:
        broken.append({"path": skill_md, "reason": f"cannot read SKILL.md: {exc.strerror}"})
        return None
    from skillyard.format.frontmatter import parse_skill_md

    fm = parse_skill_md(text, strict=False, file=skill_md)
    refused = [f for f in fm.findings if f.is_error]
    if refused:  # the validator's injection limits and size bounds hold for every index, in every mode
        broken.append({"path": skill_md, "reason": f"{refused[0].rule}: {refused[0].message}"})
        return None
    data = dict(fm.data) if isinstance(fm.data, dict) else {}
    for key in ("name", "description"):  # `description: 2024` is the text "2024" to the standard
        if data.get(key) is None or isinstance(data.get(key), bool | int | float):
            data[key] = fm.scalar_text(key) or data.get(key)
    name, description, diagnostics, problem = _identity(data, lenient)
    if problem:
        broken.append({"path": skill_md, "reason": problem})
        return None
    manifest = _manifest(folder, watched)
    runtime, conflicts = _runtime_fields(data, manifest)
    meta = _meta(data, manifest)
    return Skill(name=name, description=description, location=os.path.abspath(skill_md),
                 folder=os.path.abspath(folder), source=root.source, root=root.path, priority=root.priority,
                 mtime_ns=st.st_mtime_ns, model_invocable=runtime.get("disable-model-invocation") is not True,
                 controls=_controls(runtime), meta=meta, diagnostics=diagnostics + conflicts)


RUNTIME_FIELDS = ("disable-model-invocation", "user-invocable", "allowed-tools")


def _runtime_fields(data: dict, manifest: dict) -> tuple[dict, list[str]]:
    """The host-enforced fields, from SKILL.md's frontmatter or skill.yaml (where strict mode puts the non-standard
    ones). The frontmatter wins when both set a field, as every client reads it; two different values are a
    warning (the validator's `manifest-conflict` error)."""
    out: dict = {}
    warnings: list[str] = []
    for key in RUNTIME_FIELDS:
        if key in data:
            out[key] = data[key]
            if key in manifest and manifest[key] != data[key]:
                warnings.append(f"`{key}` is {data[key]!r} in SKILL.md but {manifest[key]!r} in skill.yaml; "
                                "SKILL.md's value is used")
        elif key in manifest:
            out[key] = manifest[key]
    return out, warnings


def _schema_problem(field_name: str, value: object) -> str | None:
    """The validator's own verdict on `name` or `description` (its schema), as a reason, or None."""
    from skillyard.format.rules import schema_findings

    found = [f for f in schema_findings({"name": "x", "description": "x", field_name: value}, strict=True,
                                        file="SKILL.md", key_lines={}) if f.field == field_name]
    return f"{found[0].rule}: {found[0].message}" if found else None


def _identity(data: dict, lenient: bool) -> tuple[str, str, list[str], str | None]:
    """(name, description, warnings, refusal) under the mode's rules."""
    name, description = data.get("name"), data.get("description")
    warnings: list[str] = []
    if not isinstance(name, str) or not name.strip():
        return "", "", [], "frontmatter has no `name`"
    name = name.strip()
    problem = _schema_problem("name", name)
    if problem and lenient:
        slug = slugify(name)
        if slug and _schema_problem("name", slug) is None:
            warnings.append(f"`name` {name!r} is not a slug; listed as {slug!r}")
            name, problem = slug, None
    if problem:
        return "", "", [], problem + ("" if lenient else " (lenient mode turns it into a slug)")
    if description is None or (isinstance(description, str) and not description.strip()):
        if not lenient:
            return "", "", [], "frontmatter has no `description` (lenient mode lists it with a warning)"
        return name, "", [*warnings, "`description` is empty"], None
    problem = _schema_problem("description", description)
    if problem:
        return "", "", [], problem
    return name, " ".join(description.split()), warnings, None


def _controls(data: dict) -> dict:
    tools = data.get("allowed-tools")
    if isinstance(tools, str):  # the standard's space-separated list; commas too (design 002 §4.3)
        tools = re.findall(r"[^\s,()]+(?:\([^)]*\))?", tools)
    return {"disable_model_invocation": data.get("disable-model-invocation") is True,
            "user_invocable": data.get("user-invocable") is not False,
            "allowed_tools": [t for t in tools if isinstance(t, str)] if isinstance(tools, list) else []}


def _manifest(folder: str, watched: dict) -> dict:
    """skill.yaml beside SKILL.md (registry data lives there), bounded and parsed by the validator's loader."""
    path = os.path.join(folder, "skill.yaml")
    try:
        st = os.stat(path)
    except OSError:
        watched[path] = -1
        return {}
    watched[path] = st.st_mtime_ns
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SKILL_YAML:  # a FIFO named skill.yaml would block a read
        return {}
    from skillyard.format.manifest import parse_manifest

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_SKILL_YAML + 1)
        data = parse_manifest(text)[0] if len(text) <= MAX_SKILL_YAML else None
    except (OSError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _meta_text(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("name") or value.get("github")
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_META_CHARS:
        return None
    if safety.ANGLE.search(value) or safety.CONTROL.search(value) or safety.find_invisible(value):
        return None
    return " ".join(value.split())


def _meta(data: dict, manifest: dict) -> dict:
    """version and author: skill.yaml first, then SKILL.md's `metadata:` map, then the frontmatter itself."""
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    out = {}
    for key in ("version", "author"):
        for source in (manifest, metadata, data):
            text = _meta_text(source.get(key))
            if text:
                out[key] = text
                break
    return out


def _resolve(candidates: list[tuple[int, Skill]]) -> tuple[list[Skill], list[dict]]:
    """Pick one skill per name: higher priority, then earlier root, then newer SKILL.md, then path order."""
    groups: dict[str, list[tuple[int, Skill]]] = {}
    for order, skill in candidates:
        groups.setdefault(skill.name, []).append((order, skill))
    winners: list[Skill] = []
    overrides: list[dict] = []
    for name in sorted(groups):
        ranked = sorted(groups[name], key=lambda p: (-p[1].priority, p[0], -p[1].mtime_ns, p[1].location))
        winner_order, winner = ranked[0]
        winners.append(winner)
        for order, loser in ranked[1:]:
            if loser.priority != winner.priority or order != winner_order:
                reason = f"{winner.source} root outranks {loser.source} root"
                if loser.priority == winner.priority:
                    reason = "earlier root in the search order"
            elif loser.mtime_ns != winner.mtime_ns:
                reason = "newer SKILL.md in the same root"
            else:
                reason = "same modification time in the same root: first path in sort order"
            overrides.append({"name": name, "winner": winner.location, "loser": loser.location,
                              "winner_source": winner.source, "loser_source": loser.source, "reason": reason})
    return winners, overrides


def index_digest(skills: list[Skill]) -> str:
    """sha256 of the resolved index (name, description, location, source): equal inputs give equal hashes."""
    rows = [[s.name, s.description, s.location, s.source] for s in sorted(skills, key=lambda s: s.name)]
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return "sha256-" + hashlib.sha256(blob).hexdigest()
