"""Per-skill JSON: `/api/skills/NAME.json` and `/api/skills/index.json` (issue 37 item 5).

A tool that wants one skill reads one small file instead of the whole registry.json, as formulae.brew.sh serves
`/api/formula/NAME.json`. Each document holds what the skill page shows (schemas/skill-api.schema.json; the index:
schemas/skill-api-index.schema.json). Pure and built from registry.json alone (never from what the network gave
this build), written with sorted keys and fixed indenting, so two builds of one registry.json give the same bytes.
"""

from __future__ import annotations

import json

from skillyard.site.model import SEVERITY_ORDER, pointer_view, skill_view
from skillyard.site.sanitize import safe_external_url

SCHEMA_VERSION = "1.0"
API_DIR = "api/skills"


def _dump(data: object) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


def publisher(registry: dict, skill: dict) -> dict:
    """Who publishes the skill: a pointer's upstream repository, else the own skill's author, else the registry."""
    if "source_url" in skill:
        return {"kind": "repository", "name": str((skill.get("source") or {}).get("repository") or ""),
                "url": safe_external_url(skill.get("source_url"))}
    if skill.get("author"):
        return {"kind": "author", "name": str(skill["author"]), "url": None}
    return {"kind": "registry", "name": str(registry.get("name") or ""),
            "url": safe_external_url((registry.get("repository") or {}).get("url"))}


def _licence(skill: dict) -> dict:
    """The licence and who stated it: the skill itself (own), its upstream, or this registry (upstream named none)."""
    source = "skill"
    if "source_url" in skill:
        source = "registry" if (skill.get("source") or {}).get("license_source") == "registry" else "upstream"
    return {"id": str(skill.get("license") or ""), "source": source}


def _verification(skill: dict) -> dict | None:
    """A pointer's pin as facts (None for an own skill, whose page has no such section): pinned at `commit` and
    hash-checked; `reviewed` says whether a maintainer of this registry approved the pin, `checked_at` when
    `skillyard external verify --record` last fetched the files again."""
    if "source_url" not in skill:
        return None
    view = pointer_view(skill)
    return {"reviewed": view["verified"], "commit": view["commit"],
            "approved_by": view["approved_by"], "approved_in": view["approved_in"],
            "approved_at": view["approved_at"], "checked_at": view["checked_at"]}


def skill_document(registry: dict, skill: dict) -> dict:
    """One skill's JSON document: everything its page shows, as data."""
    view = skill_view(registry, skill)
    pointer = "source_url" in skill
    upstream = None
    if pointer:
        facts = pointer_view(skill)
        upstream = {key: facts[key] for key in ("repository", "repository_url", "commit", "commit_url", "folder",
                                                 "folder_url", "tracks")}
    findings = sorted(skill.get("findings", []), key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9),
                                                                f.get("file", ""), f.get("line", 0), f["rule"]))
    return {
        "schema_version": SCHEMA_VERSION,
        "name": view["name"],
        "title": view["title"],
        "description": view["description"],
        "version": view["version"],
        "kind": "pointer" if pointer else "own",
        "path": str(skill.get("path") or ""),
        "page": f"skills/{view['name']}/",
        "publisher": publisher(registry, skill),
        "upstream": upstream,
        "author": view["author"],
        "maintainers": list(view["maintainers"]),
        "homepage": view["homepage"],
        "compatibility": view["compatibility"],
        "allowed_tools": list(view["allowed_tools"]),
        "tags": [t["tag"] for t in view["tags"]],
        "license": _licence(skill),
        "updated_at": view["updated_at"],
        "commit": view["commit"],
        "integrity": view["integrity"],
        "install": {"command": view["install"], "pinned": view["install_pinned"],
                    "targets": view["install_targets"]},
        "files": [{"path": f["path"], "size": f["size"], "sha256": f.get("sha256", ""),
                   "executable": bool(f.get("executable")), "raw_url": f["raw_url"]} for f in view["files"]],
        "inventory": view["inventory"],
        "verification": _verification(skill),
        "findings": findings,
        "security_exceptions": view["security_exceptions"],
        "capabilities": list(view["capabilities"]),
        "inputs": list(skill.get("inputs", [])),
        "mcp_deps": list(skill.get("mcp_deps", [])),
    }


def index_entry(document: dict) -> dict:
    return {"name": document["name"], "title": document["title"], "version": document["version"],
            "description": document["description"], "kind": document["kind"],
            "publisher": document["publisher"]["name"], "updated_at": document["updated_at"],
            "url": f"{document['name']}.json"}


def api_files(registry: dict) -> dict[str, bytes]:
    """{site path: bytes} of every skill's document and the index listing them (sorted by name)."""
    out: dict[str, bytes] = {}
    entries = []
    for skill in sorted(registry["skills"], key=lambda s: s["name"]):
        document = skill_document(registry, skill)
        out[f"{API_DIR}/{skill['name']}.json"] = _dump(document)
        entries.append(index_entry(document))
    out[f"{API_DIR}/index.json"] = _dump({"schema_version": SCHEMA_VERSION, "registry": str(registry.get("name") or ""),
                                          "skills": entries})
    return out
