"""Publisher pages (issue 37 item 4): one page per upstream repository (pointer skills) and per author (own
skills) listing its skills, and `publishers/` listing every publisher with its count.

URLs: `publishers/<owner>-<repo>/` for a repository (lowercased, every run of other characters one hyphen) and
`publishers/author-<name>/` for an author (the same rule); a name with nothing left after that gets a hash, and
two publishers reaching one slug are told apart by a hash of the later one (sorted by kind and name). An own skill
with no author has no publisher page: the registry itself publishes it. Pages hold PAGE_SIZE skills each
(`publishers/<slug>/2/` …), sit at the depth of the tag pages and share their meta, so the builder stamps them from
the tag pages' shells (`shell`) rather than running mkdocs over each.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from skillyard.site import model, pages
from skillyard.site.sanitize import safe_external_url

PAGE_SIZE = 100
INDEX = "publishers/index.md"


# One rule for keys and slugs, shared with the home page and the search results (model).
publisher_key = model.publisher_key
slugs = model.publisher_slugs


def publisher_link(skill: dict, table: dict[tuple[str, str], str]) -> dict:
    """The skill page's "Publisher" fact: {kind, name, slug, url} (slug "" for the registry itself)."""
    key = publisher_key(skill)
    if key is None:
        return {"kind": "registry", "name": "", "slug": "", "url": None}
    url = safe_external_url(skill.get("source_url")) if key[0] == "repository" else None
    return {"kind": key[0], "name": key[1], "slug": table[key], "url": url}


def badges(skill: dict) -> list[dict]:
    """The facts a list shows beside a skill: own or pointer, reviewed, licence, ships scripts. {key, label}."""
    out = [{"key": "pointer", "label": "pointer"} if "source_url" in skill else {"key": "own", "label": "own"}]
    if "source_url" in skill and skill.get("verified") is True:
        out.append({"key": "reviewed", "label": "reviewed"})
    if skill.get("license"):
        out.append({"key": "licence", "label": str(skill["license"])})
    if (skill.get("inventory") or {}).get("has_scripts"):
        out.append({"key": "scripts", "label": "ships scripts"})
    return out


def _item(skill: dict, title: str) -> dict:
    """What a publisher page lists of a skill (`model.list_item` without the tags, which these pages leave out)."""
    return {"name": skill["name"], "title": title, "description": model.short_text(skill.get("description", ""), 160),
            "version": model.readable_version(skill)["label"], "updated": (skill.get("updated_at") or "")[:10],
            "badges": badges(skill)}


def groups(skills: list[dict], titles: dict[str, str]) -> list[dict]:
    """Every publisher: {kind, name, slug, url, count, pages: [[list item, …], …]}, repositories first, then
    authors, each by name; a publisher's skills by title, then name."""
    table = slugs(skills)
    members: dict[tuple[str, str], list[dict]] = {key: [] for key in table}
    for skill in skills:
        key = publisher_key(skill)
        if key is not None:
            members[key].append(skill)
    out = []
    for (kind, name), found in members.items():
        found.sort(key=lambda s: (titles.get(s["name"], s["name"]).lower(), s["name"]))
        items = [_item(s, titles.get(s["name"], s["name"])) for s in found]
        url = next((safe_external_url(s.get("source_url")) for s in found if s.get("source_url")), None)
        out.append({"kind": kind, "name": name, "slug": table[(kind, name)], "url": url, "count": len(found),
                    "pages": [items[i:i + PAGE_SIZE] for i in range(0, len(items), PAGE_SIZE)]})
    return out


def page_paths(group: dict) -> list[str]:
    return [f"publishers/{group['slug']}/index.md" if number == 1 else f"publishers/{group['slug']}/{number}.md"
            for number in range(1, len(group["pages"]) + 1)]


def render_pages(group: dict) -> dict[str, str]:
    """{docs path: Markdown} of one publisher's pages."""
    template = pages.environment().get_template("publisher.md.j2")
    out = {}
    for (number, items), path in zip(enumerate(group["pages"], start=1), page_paths(group), strict=True):
        out[path] = template.render(p=group, items=items, page=number, root="../../" if number == 1 else "../../../")
    return out


def _key(group: dict) -> str:
    from skillyard.site.page_cache import code_fingerprint

    payload = json.dumps([code_fingerprint(), "publisher-pages", group], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def cached_pages(group: dict, cache) -> dict[str, str]:
    """`render_pages` through `cache` (a `page_cache.PageCache`), keyed by everything the pages
    are made of: a rebuild renders again only the publishers whose pages change."""
    if cache is None:
        return render_pages(group)
    key = _key(group)
    text = cache.get(key)
    found = None
    if text is not None:
        try:
            found = json.loads(text)
        except ValueError:
            found = None
    if not (isinstance(found, dict) and list(found) == page_paths(group)
            and all(isinstance(v, str) for v in found.values())):
        found = render_pages(group)
        cache.put(key, json.dumps(found, ensure_ascii=False))
    cache.used.add(key)
    return found


def render_index(all_groups: list[dict]) -> str:
    repositories = [g for g in all_groups if g["kind"] == "repository"]
    authors = [g for g in all_groups if g["kind"] == "author"]
    return pages.environment().get_template("publishers.md.j2").render(repositories=repositories, authors=authors,
                                                                       root="../")


def publisher_docs(registry: dict, titles: dict[str, str],
                   cache_folder: Path | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """({docs path: Markdown} of the publishers' index, {docs path: Markdown} of every publisher's pages).
    `cache_folder`: where the pages of the build before are kept (None: render all)."""
    from skillyard.site.page_cache import PageCache

    cache = PageCache(cache_folder) if cache_folder is not None else None
    all_groups = groups(registry["skills"], titles)
    listed: dict[str, str] = {}
    for group in all_groups:
        listed.update(cached_pages(group, cache))
    if cache is not None:
        cache.prune(cache.used)
    return {INDEX: render_index(all_groups)}, listed


def publisher_pages(docs: Path, made: dict[str, str] | list[str]) -> set[str]:
    """The slugs of the publisher pages (`publishers/<slug>/index.md`) among `made` and the files in `docs`."""
    paths = [*made, *(str(p.relative_to(docs)) for p in docs.glob("publishers/*/index.md"))]
    return {parts[1] for parts in (path.split("/") for path in paths)
            if len(parts) == 3 and parts[0] == "publishers" and parts[2] == "index.md"}
