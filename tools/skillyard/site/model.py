"""Turn registry.json into what the page templates show. Pure: no file access, no clock.

Every value a stranger wrote (description, author, tags, input defaults, …) stays plain text here; the jinja2
templates escape it. URLs a stranger wrote pass `safe_external_url` first.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from urllib.parse import quote

from skillyard.format import licences
from skillyard.format.paths import MAX_DEPTH
from skillyard.site.sanitize import safe_external_url

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
TARGETS = ("claude-code", "codex", "gemini", "cursor", "agents")  # names from skillyard.client.targets
WELL_KNOWN = ".well-known/agent-skills"
TAG_PAGE_SIZE = 100


def tag_slug(tag: str) -> str:
    """A URL-safe, collision-free folder name for a tag (`pdf` stays `pdf`; `c++` becomes `c-<hash>`)."""
    if re.fullmatch(r"[a-z0-9][a-z0-9-]{0,59}", tag):
        return tag
    ascii_part = re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-")[:40] or "tag"
    return f"{ascii_part}-{hashlib.sha256(tag.encode('utf-8')).hexdigest()[:8]}"


def short_text(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word boundary when one is near, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.6:
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


def raw_url(registry: dict, skill: dict, file_path: str) -> str | None:
    """The file's bytes at the pinned commit, or None outside git (no commit to pin)."""
    commit = skill.get("commit") or ""
    template = registry.get("repository", {}).get("raw_url_template", "")
    if "source_url" in skill:  # a pointer entry: the upstream repository's files
        template = (skill.get("source") or {}).get("raw_url_template", "")
    if not re.fullmatch(r"[0-9a-f]{40}", commit) or not template:
        return None
    url = template.replace("{commit}", commit).replace("{path}", quote(f"{skill['path']}/{file_path}"))
    return safe_external_url(url)


def source_url(registry: dict, skill: dict) -> str | None:
    """The skill's folder on the code host at the pinned commit (GitHub layout), when known."""
    repo = registry.get("repository", {})
    if "source_url" in skill:  # a pointer entry: the upstream repository
        repo = {"slug": (skill.get("source") or {}).get("repository"), "url": skill["source_url"]}
    commit = skill.get("commit") or ""
    if not repo.get("slug") or not re.fullmatch(r"[0-9a-f]{40}", commit):
        return None
    return safe_external_url(f"{repo['url'].rstrip('/')}/tree/{commit}/{quote(skill['path'])}")


STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def offline_content(skill: dict) -> dict:
    """What a page rendered without the builder's `upstream_content` shows: the licence decision (no network
    needed) and, when it allows, that the content was not fetched (as `site.upstream.collect` offline)."""
    decision = licences.decide(skill.get("license"))
    if not decision.allowed:
        return {"state": "licence", "reason": decision.reason, "licence_allowed": False,
                "licence_reason": decision.reason}
    return {"state": "not-fetched", "reason": "upstream content not fetched in this build", "licence_allowed": True,
            "licence_reason": decision.reason}


def pointer_facts(skill: dict) -> dict:
    """A pointer skill's upstream facts: the repository, commit and folder as links (built from registry.json's
    `source_url`, so a GitHub Enterprise registry links its own host), the ref it tracks, and whether a maintainer
    of this registry approved the pin (`verified`, `verification`; read defensively: registries built before those
    fields have neither). From registry.json alone, so the per-skill JSON (`skill_api`) reads the same."""
    source = skill.get("source") if isinstance(skill.get("source"), dict) else {}
    base = safe_external_url(skill.get("source_url"))
    commit = str(skill.get("commit") or "")
    pinned = re.fullmatch(r"[0-9a-f]{40}", commit) is not None
    check = skill.get("verification") if isinstance(skill.get("verification"), dict) else {}

    def stamp(key: str) -> str:
        value = check.get(key)
        return value if isinstance(value, str) and STAMP.fullmatch(value) else ""

    approved_by = check.get("approved_by")
    return {
        "repository": str(source.get("repository") or ""),
        "repository_url": base,
        "commit": commit,
        "commit_url": safe_external_url(f"{base.rstrip('/')}/commit/{commit}") if base and pinned else None,
        "folder": str(skill.get("path") or ""),
        "folder_url": source_url({}, skill),
        "tracks": str(source.get("tracks") or ""),
        "verified": skill.get("verified") is True,
        "approved_by": approved_by if isinstance(approved_by, str) and re.fullmatch(r"[A-Za-z0-9-]{1,39}",
                                                                                     approved_by) else "",
        "approved_in": safe_external_url(check.get("approved_in")) if isinstance(check.get("approved_in"), str)
        else None,
        "approved_at": stamp("approved_at"),
        "checked_at": stamp("checked_at"),
    }


def pointer_view(skill: dict) -> dict:
    """`pointer_facts` for the page, with what this build could show of the content (`upstream_content`, added by
    the builder)."""
    content = skill.get("upstream_content") if isinstance(skill.get("upstream_content"), dict) else {}
    return {**pointer_facts(skill), "content": {**offline_content(skill), **content}}


TIME_VERSION = re.compile(r"0\.0\.(\d{4})(\d{2})(\d{2})(\d{6})\Z")  # format/timeversion.py's `0.0.<yyyymmddhhmmss>`


def readable_version(skill: dict) -> dict:
    """The version as a person reads it. A skill that declares none has a time-based machine version
    (`0.0.20260819184126`, format/timeversion.py): shown as its pinned commit and that date instead; the machine
    version itself (install pins, registry.json) is unchanged. {label, date, commit, machine, declared}."""
    version = str(skill.get("version") or "")
    commit = str(skill.get("commit") or "")
    match = TIME_VERSION.match(version)
    if not match:
        return {"label": version, "date": "", "commit": "", "machine": version, "declared": True}
    date = f"{match[1]}-{match[2]}-{match[3]}"
    short = commit[:12] if re.fullmatch(r"[0-9a-f]{40}", commit) else ""
    return {"label": f"{short} · {date}" if short else date, "date": date, "commit": short, "machine": version,
            "declared": False}


def file_tree(files: list[dict]) -> list[dict]:
    """Nested folders-first tree: [{name, path?, size?, executable?, children?}] for the template. A path deeper
    than the path rule allows is listed whole at the top, so a hostile depth never nests the page that deep."""
    root: dict = {}
    for entry in files:
        parts = entry["path"].split("/")
        if len(parts) > MAX_DEPTH:
            parts = [entry["path"]]
        node = root
        for part in parts[:-1]:
            node = node.setdefault(part + "/", {})
        node[parts[-1]] = entry

    def build(node: dict) -> list[dict]:
        folders = sorted(key for key in node if key.endswith("/"))
        leaves = sorted(key for key in node if not key.endswith("/"))
        out = [{"name": key, "children": build(node[key])} for key in folders]
        out += [{"name": key, "path": node[key]["path"], "size": node[key]["size"],
                 "executable": bool(node[key].get("executable"))} for key in leaves]
        return out

    return build(root)


def show_value(value: object) -> str:
    """An input default as its author would write it (JSON for anything but a plain string)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def skill_view(registry: dict, skill: dict) -> dict:
    """Everything the skill page shows, in display order."""
    name = skill["name"]
    files = sorted(skill.get("files", []), key=lambda f: f["path"])
    findings = sorted(skill.get("findings", []), key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9),
                                                                f.get("file", ""), f.get("line", 0), f["rule"]))
    findings = [{"fix": "", "file": "", "line": None, "allowed": "", **f} for f in findings]
    inputs = [{"description": "", "enum": None, **item, "has_default": "default" in item,
               "default_text": show_value(item["default"]) if "default" in item else ""}
              for item in skill.get("inputs", [])]
    mcp_deps = [{"description": "", **dep} for dep in skill.get("mcp_deps", [])]
    return {
        "name": name,
        "title": skill.get("display_name") or name,
        "description": skill.get("description", ""),
        "version": skill.get("version", ""),
        "version_shown": readable_version(skill),
        "author": skill.get("author", ""),
        "maintainers": skill.get("maintainers", []),
        "license": skill.get("license", ""),
        # set by this registry because upstream names none (`source.license_source`): shown as such, never as upstream's
        "license_by_registry": (skill.get("source") or {}).get("license_source") == "registry",
        "homepage": safe_external_url(skill.get("homepage")),
        "compatibility": skill.get("compatibility", ""),
        "allowed_tools": skill.get("allowed_tools", []),
        "tags": [{"tag": tag, "slug": tag_slug(tag)} for tag in skill.get("tags", [])],
        "updated": (skill.get("updated_at") or "")[:10],
        "updated_at": skill.get("updated_at", ""),
        "commit": skill.get("commit", ""),
        "short_commit": (skill.get("commit") or "")[:12],
        "integrity": skill.get("integrity", ""),
        "findings": findings,
        "finding_counts": Counter("allowed" if f["allowed"] else f["severity"] for f in findings),
        # The reviewed security exceptions (skill.yaml `security_exceptions`, format/exceptions.py).
        "security_exceptions": [e for e in skill.get("security_exceptions", []) if isinstance(e, dict)],
        "capabilities": skill.get("capabilities", []),
        "inputs": inputs,
        "mcp_deps": mcp_deps,
        "inventory": {"has_scripts": False, "script_files": [], "total_files": len(files),
                      "total_size": sum(f["size"] for f in files), **skill.get("inventory", {})},
        "tree": file_tree(files),
        "files": [dict(f, raw_url=raw_url(registry, skill, f["path"])) for f in files],
        "skill_md_raw": raw_url(registry, skill, "SKILL.md"),
        "source_url": source_url(registry, skill),
        "upstream": (skill.get("source") or {}).get("repository") if "source_url" in skill else None,
        "pointer": pointer_view(skill) if "source_url" in skill else None,
        "install": f"skill install {name}",
        "install_pinned": f"skill install {name}@{skill['version']}" if skill.get("version") else "",
        "install_targets": [f"skill install {name} --target {t}" for t in TARGETS],
        "well_known": f"{WELL_KNOWN}/{name}/",
    }


def list_item(skill: dict) -> dict:
    """The short form used in lists (home, tag pages)."""
    return {
        "name": skill["name"],
        "title": skill.get("display_name") or skill["name"],
        "description": short_text(skill.get("description", ""), 160),
        "version": readable_version(skill)["label"],
        "updated": (skill.get("updated_at") or "")[:10],
        "tags": [{"tag": tag, "slug": tag_slug(tag)} for tag in skill.get("tags", [])[:5]],
    }


def tag_groups(skills: list[dict]) -> list[dict]:
    """Every tag with its skills (by name), most used first, split into pages of TAG_PAGE_SIZE."""
    by_tag: dict[str, list[dict]] = {}
    for skill in skills:
        for tag in dict.fromkeys(skill.get("tags", [])):
            by_tag.setdefault(tag, []).append(skill)
    groups = []
    for tag, members in by_tag.items():
        members = sorted(members, key=lambda s: s["name"])
        pages = [members[i:i + TAG_PAGE_SIZE] for i in range(0, len(members), TAG_PAGE_SIZE)]
        groups.append({"tag": tag, "slug": tag_slug(tag), "count": len(members), "pages": pages})
    return sorted(groups, key=lambda g: (-g["count"], g["tag"]))


CLIENT_INSTALL = 'pipx install "git+https://github.com/skillyard/registry"'  # README "Install": pipx, from the repository


def publisher_name(skill: dict) -> str:
    """Who publishes a skill: a pointer's upstream repository (`owner/name`), else an own skill's author."""
    if "source_url" in skill:
        return str((skill.get("source") or {}).get("repository") or "")
    return str(skill.get("author") or "")


def publisher_key(skill: dict) -> tuple[str, str] | None:
    """("repository", "owner/repo") for a pointer skill, ("author", NAME) for an own skill with an author, else None
    (the registry itself publishes it, and it has no publisher page)."""
    if "source_url" in skill:
        repository = str((skill.get("source") or {}).get("repository") or "")
        return ("repository", repository) if repository else None
    author = skill.get("author")
    return ("author", author) if isinstance(author, str) and author.strip() else None


def publisher_slugs(skills: list[dict]) -> dict[tuple[str, str], str]:
    """{publisher_key: slug} of the publisher pages, `publishers/<slug>/`: `owner-repo` for a repository,
    `author-<name>` for an author (lowercased, every run of other characters one hyphen; nothing left: a hash), two
    publishers reaching one slug told apart by a hash of the later (sorted by kind and name). The same rule as the
    publisher pages' (`site.publishers.slugs`), so the home page and search link where those pages are."""
    out: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for kind, name in sorted({key for key in map(publisher_key, skills) if key is not None}):
        safe = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60].strip("-") or \
            hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        slug = safe if kind == "repository" else f"author-{safe}"
        if slug in taken:
            slug = f"{slug}-{hashlib.sha256(f'{kind}:{name}'.encode()).hexdigest()[:8]}"
        taken.add(slug)
        out[(kind, name)] = slug
    return out


def publishers(skills: list[dict], pages: set[str] | None = None) -> list[dict]:
    """Every publisher with its skill count, most skills first. `page`: its publisher page's slug when the site has
    that page (`pages`), else ""; `url`: a repository upstream."""
    counts: Counter = Counter()
    links: dict[tuple[str, str], str | None] = {}
    for skill in skills:
        key = publisher_key(skill)
        if key is not None:
            counts[key] += 1
            if key[0] == "repository":
                links.setdefault(key, safe_external_url(skill.get("source_url")))
    slugs = publisher_slugs(skills)
    return [{"name": key[1], "kind": key[0], "count": count, "url": links.get(key),
             "repository": key[0] == "repository", "page": slugs[key] if slugs[key] in (pages or set()) else ""}
            for key, count in sorted(counts.items(), key=lambda item: (-item[1], item[0][1], item[0][0]))]


def home_view(registry: dict, groups: list[dict], settings: dict | None = None, publisher_pages: set[str] | None = None,
              *, recent: int = 12, top_tags: int = 40, top_publishers: int = 24) -> dict:
    """The front door: the registry's title and pitch, how to get the client, then what a visitor browses by.
    `settings`: `RegistryConfig.home_page()` (title, pitch, client_install, featured), each optional;
    `publisher_pages`: the slugs of the publisher pages the site has (a publisher links to its page)."""
    settings = settings or {}
    skills = registry["skills"]
    latest = sorted(skills, key=lambda s: (s.get("updated_at") or "", s["name"]), reverse=True)[:recent]
    authors = {s.get("author") for s in skills if s.get("author")}
    by_name = {s["name"]: s for s in skills}
    featured = [list_item(by_name[name]) for name in settings.get("featured", []) if name in by_name]
    homepage = registry.get("homepage")
    site = safe_external_url(homepage) if isinstance(homepage, str) and re.fullmatch(r"https?://[^\s]+", homepage) \
        else None
    makers = publishers(skills, publisher_pages)
    return {
        "registry_name": registry.get("name", ""),
        "title": settings.get("title") or registry.get("name", "") or "Skill registry",
        "pitch": settings.get("pitch") or registry.get("description", ""),
        "registry_description": registry.get("description", ""),
        "client_install": settings.get("client_install") or CLIENT_INSTALL,
        "npx_install": f"npx skills add {site}" if site else "",
        "counts": {"skills": len(skills), "tags": len(groups), "authors": len(authors),
                   "publishers": len(makers), "files": sum(len(s.get("files", [])) for s in skills)},
        "featured": featured,
        "featured_missing": [name for name in settings.get("featured", []) if name not in by_name],
        "recent": [list_item(s) for s in latest],
        "top_tags": groups[:top_tags],
        "more_tags": max(0, len(groups) - top_tags),
        "publishers": makers[:top_publishers],
        "more_publishers": max(0, len(makers) - top_publishers),
        "publisher_index": bool(publisher_pages),
        "repository": safe_external_url(registry.get("repository", {}).get("url")),
    }


def check_names(registry: dict) -> list[str]:
    """Skill names that cannot be a URL path segment; the builder refuses them."""
    return [str(s.get("name")) for s in registry["skills"] if not NAME.match(str(s.get("name", "")))]
