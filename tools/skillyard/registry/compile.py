"""Compile checked skills into registry.json and index.json. Pure: the same inputs give the same bytes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from skillyard.format.schemas import SCHEMA_FILES, load_schema
from skillyard.format.timeversion import from_iso

if TYPE_CHECKING:
    from skillyard.format.package import SkillPackage

SCHEMA_VERSION = "1.0"
RUNTIME_FIELDS = ("argument-hint", "user-invocable", "disable-model-invocation", "model", "context", "agent",
                  "triggers", "type", "category", "keywords", "domain", "when_to_use")
REGISTRY_FINDING_PREFIXES = ("security-",)


def _author(value: object) -> str | None:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        return str(value.get("github") or value.get("name") or "").strip() or None
    return None


def _allowed_tools(value: object) -> list[str] | None:
    if isinstance(value, str):
        parts = value.replace(",", " ").split()
        return parts or None
    if isinstance(value, list):
        return [str(v) for v in value]
    return None


def normalise_mcp_deps(deps: object) -> list[dict]:
    """`required` defaults to true: an undeclared dependency must not silently become optional."""
    out = []
    for dep in deps if isinstance(deps, list) else []:
        if isinstance(dep, dict) and isinstance(dep.get("tool"), str):
            item = {"tool": dep["tool"], "required": dep.get("required", True) is not False}
            if isinstance(dep.get("description"), str):
                item["description"] = dep["description"].strip()
            out.append(item)
    return out


def normalise_inputs(inputs: object) -> list[dict]:
    out = []
    for decl in inputs if isinstance(inputs, list) else []:
        if isinstance(decl, dict) and isinstance(decl.get("name"), str):
            item = {"name": decl["name"], "type": decl.get("type", "string"), "required": decl.get("required") is True}
            for key in ("description", "default", "enum"):
                if key in decl:
                    item[key] = decl[key].strip() if key == "description" and isinstance(decl[key], str) else decl[key]
            out.append(item)
    return out


def compile_skill(pkg: SkillPackage) -> dict:
    """One skill's registry entry, without the git fields (`commit`, `updated_at`) that `assemble` adds."""
    data = pkg.data
    entry: dict = {
        "name": pkg.name,
        "description": str(data.get("description") or "").strip(),
        "version": str(data.get("version") or VERSION_SLOT),  # versionless: time-based, from `updated_at`
        "tags": [t for t in data.get("tags") or [] if isinstance(t, str)] if isinstance(data.get("tags"), list) else [],
        "path": pkg.rel_path,
        "files": [f.to_dict() for f in pkg.files],
        "integrity": pkg.integrity(),
        "inventory": pkg.inventory,
        "capabilities": [c for c in data.get("capabilities") or [] if isinstance(c, str)],
        "mcp_deps": normalise_mcp_deps(data.get("mcp_deps")),
        "inputs": normalise_inputs(data.get("inputs")),
        "findings": [f.to_dict() for f in pkg.findings if f.rule.startswith(REGISTRY_FINDING_PREFIXES)],
    }
    display = data.get("display-name") or data.get("displayName")
    optional = {
        "display_name": display if isinstance(display, str) else None,
        "author": _author(data.get("author")),
        "maintainers": [m.lstrip("@") for m in data.get("maintainers") or [] if isinstance(m, str)] or None,
        "license": data.get("license") if isinstance(data.get("license"), str) else None,
        "homepage": data.get("homepage") if isinstance(data.get("homepage"), str) else None,
        "compatibility": data.get("compatibility") if isinstance(data.get("compatibility"), str) else None,
        "allowed_tools": _allowed_tools(data.get("allowed-tools")),
        "metadata": data.get("metadata") if isinstance(data.get("metadata"), dict)
        and all(isinstance(v, str) for v in data["metadata"].values()) else None,
        "runtime": {k: data[k] for k in RUNTIME_FIELDS if k in data} or None,
        # The reviewed exceptions (format/exceptions.py): the client honours them only from a registry entry.
        "security_exceptions": [dict(e) for e in pkg.security_exceptions] or None,
    }
    entry.update({k: v for k, v in optional.items() if v is not None})
    return entry


# Git fields are filled in after the (cached, parallel) per-skill encoding: these stand in for them.
COMMIT_SLOT = "\u0000commit\u0000"
UPDATED_SLOT = "\u0000updated_at\u0000"
VERSION_SLOT = "\u0000version\u0000"  # a versionless skill's version: `timeversion.from_iso(updated_at)`
_COMMIT_SLOT_JSON = json.dumps(COMMIT_SLOT)
_VERSION_SLOT_JSON = json.dumps(VERSION_SLOT)
_UPDATED_SLOT_JSON = json.dumps(UPDATED_SLOT)
SUMMARY_KEYS = ("name", "description", "version", "path", "integrity", "author", "license", "homepage", "tags",
                "source_url", "source", "commit")  # (the last three: a pointer entry's, see `entry_line`)
_COMPACT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))  # one encoder, reused


def compact(value: object) -> str:
    return _COMPACT.encode(value)


def entry_line(entry: dict) -> str:
    """A skill's registry.json line, with slots for `commit` and `updated_at` (see `fill_line`). A pointer entry
    (`source_url`) keeps its own `commit`, the pinned upstream one: only `updated_at` comes from this repository."""
    commit = entry["commit"] if "source_url" in entry else COMMIT_SLOT
    return compact({**entry, "commit": commit, "updated_at": UPDATED_SLOT})


def entry_summary(entry: dict) -> dict:
    """What index.json and the compatibility files need of an entry."""
    return {k: entry[k] for k in SUMMARY_KEYS if k in entry}


def index_item(skill: dict) -> dict:
    """A skill's value in index.json."""
    return {"version": skill["version"], "integrity": skill["integrity"], "path": skill["path"],
            "commit": skill["commit"]}


def index_line(summary: dict) -> str:
    """A skill's index.json line, with a slot for `commit`."""
    commit = summary["commit"] if "source_url" in summary else COMMIT_SLOT
    return f"{compact(summary['name'])}: {compact(index_item({**summary, 'commit': commit}))}"


_quote = json.encoder.encode_basestring  # the C encoder json.dumps uses for a str (ensure_ascii=False)


def fill_line(line: str, commit: str, updated_at: str | None = None) -> str:
    """A line with its git slots filled; a versionless skill's version slot becomes its time-based version."""
    line = line.replace(_COMMIT_SLOT_JSON, _quote(commit), 1)
    if updated_at is None:
        return line
    if _VERSION_SLOT_JSON in line:
        line = line.replace(_VERSION_SLOT_JSON, _quote(from_iso(updated_at)), 1)
    return line.replace(_UPDATED_SLOT_JSON, _quote(updated_at), 1)


def filled_version(version: str, updated_at: str | None) -> str:
    return from_iso(updated_at) if version == VERSION_SLOT else version


def registry_header(*, name: str, description: str, homepage: str | None, repository: dict) -> dict:
    doc = {"$schema": load_schema(SCHEMA_FILES["registry"])["$id"], "schema_version": SCHEMA_VERSION, "name": name,
           "description": description, "repository": repository}
    if homepage:
        doc["homepage"] = homepage
    return doc


def assemble(entries: list[dict], history: dict[str, tuple[str, str]], *, name: str, description: str,
             homepage: str | None, repository: dict) -> dict:
    """The whole registry document: skills sorted by name, git fields from one history pass."""
    skills = []
    for entry in sorted(entries, key=lambda e: (e["name"], e["path"])):
        commit, updated = history.get(entry["path"], ("", ""))
        if "source_url" in entry:  # a pointer: its own pinned commit, the pointer folder's date (its version is
            # the pin's date already, `Pointer.version`, unless an undated pin left the slot to `updated_at`)
            commit, updated = entry["commit"], history.get(entry["source"].get("pointer", "").rpartition("/")[0],
                                                           ("", ""))[1]
        skills.append({**entry, "version": filled_version(entry["version"], updated), "commit": commit,
                       "updated_at": updated})
    doc = {
        "$schema": load_schema(SCHEMA_FILES["registry"])["$id"],
        "schema_version": SCHEMA_VERSION,
        "name": name,
        "description": description,
        "repository": repository,
        "skills": skills,
    }
    if homepage:
        doc["homepage"] = homepage
    return doc


def index_document(registry: dict) -> dict:
    """The slim update index: name → version, integrity, path, commit."""
    return {"schema_version": SCHEMA_VERSION, "name": registry["name"],
            "skills": {s["name"]: index_item(s) for s in registry["skills"]}}


def dumps(document: dict) -> str:
    """Canonical JSON text: sorted keys, two-space indent, UTF-8 kept, final newline.

    Large collections at the top level (`skills`, `plugins`) are written one compact entry per line, like crates.io's
    index: a change to one skill is a one-line diff, and the C encoder (which never indents) does the heavy part.
    """
    collections: dict[str, tuple[str, list[str]]] = {}
    rest = dict(document)
    for key, value in document.items():
        if isinstance(value, list) and value and all(isinstance(i, dict) for i in value):
            collections[key] = ("[", [compact(item) for item in value])
        elif isinstance(value, dict) and value and all(isinstance(i, dict) for i in value.values()):
            collections[key] = ("{", [f"{compact(k)}: {compact(value[k])}" for k in sorted(value)])
        else:
            continue
        del rest[key]
    return dumps_prepared(rest, collections)


def dumps_prepared(document: dict, collections: dict[str, tuple[str, list[str]]]) -> str:
    """`dumps` for a document whose large collections arrive as encoded lines: key → ("[" or "{", lines in order).

    List lines are compact items; dict lines are `"key": value` pairs sorted by key.
    """
    markers = {key: f"\u0000{key}\u0000" for key, (_, lines) in collections.items() if lines}
    doc = {**document, **{key: [] if opener == "[" else {} for key, (opener, lines) in collections.items() if not lines},
           **markers}
    text = json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True)
    if len(markers) == 1:  # the build's documents: split at the marker and join once (20 MB copied once, not twice)
        (key, marker), = markers.items()
        opener, lines = collections[key]
        before, after = _frame(text, marker, opener)
        return "".join([before, ",\n    ".join(lines), after])
    for key, marker in markers.items():
        opener, lines = collections[key]
        closer = "]" if opener == "[" else "}"
        text = text.replace(json.dumps(marker, ensure_ascii=False), f"{opener}\n    " + ",\n    ".join(lines) + f"\n  {closer}", 1)
    return text + "\n"


def prepared_frame(document: dict, key: str, opener: str) -> tuple[str, str]:
    """The text before and after the lines of `dumps_prepared(document, {key: (opener, lines)})` when `lines` is not
    empty: the spliced build writes the lines (joined with ",\n    ") between them as bytes."""
    marker = f"\u0000{key}\u0000"
    return _frame(json.dumps({**document, key: marker}, ensure_ascii=False, indent=2, sort_keys=True), marker, opener)


def _frame(text: str, marker: str, opener: str) -> tuple[str, str]:
    before, _, after = text.partition(json.dumps(marker, ensure_ascii=False))
    return f"{before}{opener}\n    ", f"\n  {']' if opener == '[' else '}'}{after}\n"
