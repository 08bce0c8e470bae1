"""Per-skill JSON: `/api/skills/NAME.json` and `/api/skills/index.json` (issue 37 item 5).

A tool that wants one skill reads one small file instead of the whole registry.json, as formulae.brew.sh serves
`/api/formula/NAME.json`. Each document holds what the skill page shows (schemas/skill-api.schema.json; the index:
schemas/skill-api-index.schema.json). Pure: built from registry.json, the display titles the build found
(`titles`: an own skill's from its SKILL.md; a pointer skill's heading only when the build fetched its checked
content) and the version history read from git (`history`, cached by HEAD); written with sorted keys and no
spaces, so two builds of one registry and one git HEAD give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import partial
from urllib.parse import quote

from skillyard.site import publishers
from skillyard.site.history import skill_history, unavailable
from skillyard.site.model import SEVERITY_ORDER, TARGETS, pointer_facts, raw_url, readable_version
from skillyard.site.sanitize import safe_external_url
from skillyard.site.titles import display_title

SCHEMA_VERSION = "1.0"
API_DIR = "api/skills"


def _dump(data: object) -> bytes:
    """Sorted keys, no spaces, one trailing newline: json's C encoder (the indenting one is pure Python, seconds
    at 5,000 skills)."""
    return (json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def publisher(registry: dict, skill: dict, table: dict | None = None) -> dict:
    """Who publishes the skill: a pointer's upstream repository, else the own skill's author, else the registry;
    `page`: its publisher page on this site (`publishers`; None for the registry itself)."""
    table = table if table is not None else publishers.slugs([skill])
    key = publishers.publisher_key(skill)
    page = f"publishers/{table[key]}/" if key in table else None
    if "source_url" in skill:
        return {"kind": "repository", "name": str((skill.get("source") or {}).get("repository") or ""),
                "url": safe_external_url(skill.get("source_url")), "page": page}
    if skill.get("author"):
        return {"kind": "author", "name": str(skill["author"]), "url": None, "page": page}
    return {"kind": "registry", "name": str(registry.get("name") or ""),
            "url": safe_external_url((registry.get("repository") or {}).get("url")), "page": None}


def _licence(skill: dict) -> dict:
    """The licence and who stated it: the skill itself (own), its upstream, or this registry (upstream named none)."""
    source = "skill"
    if "source_url" in skill:
        source = "registry" if (skill.get("source") or {}).get("license_source") == "registry" else "upstream"
    return {"id": str(skill.get("license") or ""), "source": source}


def _verification(skill: dict, facts: dict | None) -> dict | None:
    """A pointer's pin as facts (None for an own skill, whose page has no such section): pinned at `commit` and
    hash-checked; `reviewed` says whether a maintainer of this registry approved the pin, `checked_at` when
    `skillyard external verify --record` last fetched the files again."""
    if facts is None:
        return None
    return {"reviewed": facts["verified"], "commit": facts["commit"], "approved_by": facts["approved_by"],
            "approved_in": facts["approved_in"], "approved_at": facts["approved_at"], "checked_at": facts["checked_at"]}


def _raw_urls(registry: dict, skill: dict, paths: list[str]) -> list[str | None]:
    """`model.raw_url` of each file, checked once: only the quoted path differs from one file to the next, and
    quoting leaves nothing `safe_external_url` refuses."""
    if not paths or raw_url(registry, skill, paths[0]) is None:
        return [None] * len(paths)
    template = registry.get("repository", {}).get("raw_url_template", "")
    if "source_url" in skill:
        template = (skill.get("source") or {}).get("raw_url_template", "")
    head, sep, tail = template.replace("{commit}", skill["commit"]).partition("{path}")
    if not sep or "{path}" in tail:
        return [raw_url(registry, skill, path) for path in paths]
    return [head + quote(f"{skill['path']}/{path}") + tail for path in paths]


def _sorted_findings(findings: list[dict]) -> list[dict]:
    return sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9), f.get("file", ""),
                                           f.get("line", 0), f["rule"]))


def skill_document(registry: dict, skill: dict, title: str | None = None, history: dict | None = None,
                   table: dict | None = None) -> dict:
    """One skill's JSON document: everything its page shows (`model.skill_view`), as data. `title`: its display
    title (`titles.display_title`; default: from registry.json alone); `history`: `history.read_history`'s result
    (default: none read); `table`: `publishers.slugs` of the whole registry."""
    name = skill["name"]
    version = skill.get("version", "")
    facts = pointer_facts(skill) if "source_url" in skill else None
    files = sorted(skill.get("files", []), key=lambda f: f["path"])
    raws = _raw_urls(registry, skill, [f["path"] for f in files])
    return {
        "schema_version": SCHEMA_VERSION,
        "name": name,
        "title": title or display_title(skill),
        "description": skill.get("description", ""),
        "version": version,
        "version_shown": readable_version(skill),
        "kind": "pointer" if facts else "own",
        "path": str(skill.get("path") or ""),
        "page": f"skills/{name}/",
        "publisher": publisher(registry, skill, table),
        "history": skill_history(history or unavailable("no history was read for this document"), name),
        "upstream": {key: facts[key] for key in ("repository", "repository_url", "commit", "commit_url", "folder",
                                                  "folder_url", "tracks")} if facts else None,
        "author": skill.get("author", ""),
        "maintainers": list(skill.get("maintainers", [])),
        "homepage": safe_external_url(skill.get("homepage")),
        "compatibility": skill.get("compatibility", ""),
        "allowed_tools": list(skill.get("allowed_tools", [])),
        "tags": list(skill.get("tags", [])),
        "license": _licence(skill),
        "updated_at": skill.get("updated_at", ""),
        "commit": skill.get("commit", ""),
        "integrity": skill.get("integrity", ""),
        "install": {"command": f"skill install {name}", "pinned": f"skill install {name}@{version}" if version else "",
                    "targets": [f"skill install {name} --target {t}" for t in TARGETS]},
        "files": [{"path": f["path"], "size": f["size"], "sha256": f.get("sha256", ""),
                   "executable": bool(f.get("executable")), "raw_url": url} for f, url in zip(files, raws, strict=True)],
        "inventory": {"has_scripts": False, "script_files": [], "total_files": len(files),
                      "total_size": sum(f["size"] for f in files), **skill.get("inventory", {})},
        "verification": _verification(skill, facts),
        "findings": _sorted_findings(skill.get("findings", [])),
        "security_exceptions": [e for e in skill.get("security_exceptions", []) if isinstance(e, dict)],
        "capabilities": list(skill.get("capabilities", [])),
        "inputs": list(skill.get("inputs", [])),
        "mcp_deps": list(skill.get("mcp_deps", [])),
    }


def index_entry(document: dict) -> dict:
    return {"name": document["name"], "title": document["title"], "version": document["version"],
            "description": document["description"], "kind": document["kind"],
            "publisher": document["publisher"]["name"], "publisher_page": document["publisher"]["page"],
            "updated_at": document["updated_at"],
            "url": f"{document['name']}.json"}


def _index_entry_of(registry: dict, skill: dict, title: str | None, table: dict) -> dict:
    """`index_entry` of the skill's document, without making the whole document."""
    name = skill["name"]
    found = publisher(registry, skill, table)
    return {"name": name, "title": title or display_title(skill), "version": skill.get("version", ""),
            "description": skill.get("description", ""), "kind": "pointer" if "source_url" in skill else "own",
            "publisher": found["name"], "publisher_page": found["page"], "updated_at": skill.get("updated_at", ""),
            "url": f"{name}.json"}


def index_file(registry: dict, titles: dict[str, str] | None = None, table: dict | None = None) -> bytes:
    """`/api/skills/index.json`: every skill's index entry, sorted by name."""
    table = table if table is not None else publishers.slugs(registry["skills"])
    entries = [_index_entry_of(registry, skill, (titles or {}).get(skill["name"]), table)
               for skill in sorted(registry["skills"], key=lambda s: s["name"])]
    return _dump({"schema_version": SCHEMA_VERSION, "registry": str(registry.get("name") or ""), "skills": entries})


def api_files(registry: dict, titles: dict[str, str] | None = None, history: dict | None = None) -> dict[str, bytes]:
    """{site path: bytes} of every skill's document and the index listing them (sorted by name). `titles`,
    `history`: as the skill pages show them (`titles.all_titles`, `history.read_history`)."""
    table = publishers.slugs(registry["skills"])
    out = {f"{API_DIR}/{skill['name']}.json": _dump(skill_document(registry, skill, (titles or {}).get(skill["name"]),
                                                                   history, table))
           for skill in sorted(registry["skills"], key=lambda s: s["name"])}
    out[f"{API_DIR}/index.json"] = index_file(registry, titles, table)
    return out


def document_key(registry: dict, skill: dict, digest: str | None = None, title: str | None = None,
                 history: dict | None = None, slug: str | None = None) -> str:
    """What one document is made of: the code, the registry fields it reads (name, repository), the entry (its
    `page_cache.entry_digest`, when the caller has it), its title, its publisher page and its history. Same key,
    same bytes."""
    from skillyard.site.page_cache import code_fingerprint, entry_digest

    told = skill_history(history or unavailable("no history was read for this document"), skill["name"])
    context = json.dumps([code_fingerprint(), "skill-api", registry.get("name"), registry.get("repository"),
                          digest or entry_digest(skill), title, slug, told], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(context.encode("utf-8")).hexdigest()


def api_plan(registry: dict, digests: dict[str, str] | None = None, titles: dict[str, str] | None = None,
             history: dict | None = None) -> tuple[bytes, list[tuple[str, str, Callable]]]:
    """The index's bytes and, for each skill, (site path, `document_key`, function making its bytes): the output
    makes a document only when its key differs from the file's last build, so a one-skill rebuild dumps one
    document instead of every one (1.3 s at 5,000 skills). The bytes are `api_files`' own."""
    digests, titles = digests or {}, titles or {}
    table = publishers.slugs(registry["skills"])
    plan = []
    for skill in sorted(registry["skills"], key=lambda s: s["name"]):
        name = skill["name"]
        key = document_key(registry, skill, digests.get(name), titles.get(name), history,
                           table.get(publishers.publisher_key(skill)))
        plan.append((f"{API_DIR}/{name}.json", key, partial(_document_bytes, registry, skill, titles.get(name),
                                                             history, table)))
    return index_file(registry, titles, table), plan


def document_maker(registry: dict, titles: dict[str, str] | None = None,
                   history: dict | None = None) -> Callable[[str], Callable[[], bytes]]:
    """make(name) -> a function giving that skill's document bytes (`api_plan`'s third items, for a plan whose
    keys were worked out elsewhere); the publisher table is made once, and only when a document is."""
    by_name = {skill["name"]: skill for skill in registry["skills"]}
    titles, table = titles or {}, []

    def make(name: str) -> Callable[[], bytes]:
        def run() -> bytes:
            if not table:
                table.append(publishers.slugs(registry["skills"]))
            return _document_bytes(registry, by_name[name], titles.get(name), history, table[0])
        return run

    return make


def _document_bytes(registry: dict, skill: dict, title: str | None = None, history: dict | None = None,
                    table: dict | None = None) -> bytes:
    return _dump(skill_document(registry, skill, title, history, table))
