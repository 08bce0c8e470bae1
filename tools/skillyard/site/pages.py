"""Render the generated Markdown pages (YAML meta + one raw HTML block) from jinja2 templates.

Each page is a plain `.md` file that any Markdown site builder can read. Its content is a single raw HTML block,
so Markdown syntax hidden in a stranger's description (`[x](javascript:…)`) is never interpreted; jinja2
autoescapes every value, and the page title meta is HTML-escaped because Material prints it unescaped.
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from markupsafe import Markup

from skillyard.site import model
from skillyard.units import human_size

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def meta_title(value: str) -> Markup:
    """A YAML double-quoted scalar holding HTML-escaped, single-line text (safe in <title> and the header)."""
    text = _CONTROL.sub(" ", str(value)).strip()[:120] or "untitled"
    return Markup(json.dumps(html.escape(text, quote=True), ensure_ascii=False))  # noqa: S704 (escaped just here)


META_DESCRIPTION_CHARS = 200  # search engines show about 160; longer descriptions are cut at a space before this


def meta_description(value: str) -> Markup:
    """The page's `<meta name="description">` and og:description: the skill's own description, escaped like
    `meta_title`, cut to META_DESCRIPTION_CHARS (at a space when there is one in the second half) with an ellipsis."""
    text = " ".join(_CONTROL.sub(" ", str(value)).split())
    if len(text) > META_DESCRIPTION_CHARS:
        cut = text[:META_DESCRIPTION_CHARS - 1]
        space = cut.rfind(" ")
        text = (cut[:space] if space > META_DESCRIPTION_CHARS // 2 else cut).rstrip() + "…"
    return Markup(json.dumps(html.escape(text or "A skill.", quote=True), ensure_ascii=False))  # noqa: S704


@cache
def environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("skillyard.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["meta_title"] = meta_title
    env.filters["meta_description"] = meta_description
    env.filters["human_size"] = human_size
    env.filters["show_value"] = model.show_value
    return env


@contextlib.contextmanager
def compiled_templates(folder: Path | None) -> Iterator[None]:
    """Our templates' compiled code kept in `folder` while the block runs (`page_cache.template_cache`): a one-skill
    rebuild renders a few pages, and compiling the templates for them took longer than rendering them. Compiled
    code is checked against each template's source, so the pages are the same bytes with or without it."""
    env = environment()
    if folder is None or env.bytecode_cache is not None:
        yield
        return
    from skillyard.site.page_cache import template_cache

    env.bytecode_cache = template_cache(env, folder)
    try:
        yield
    finally:
        env.bytecode_cache = None


def render_skill(registry: dict, skill: dict, body_html: str, *, served: bool = True) -> str:
    """`served`: the site serves the skill's files under the well-known path (else it links only raw URLs). The
    entry's `story` (`site.story`: display title, publisher, history), when the builder added one, joins the view."""
    view = {**model.skill_view(registry, skill), "publisher": None, "history": None, **(skill.get("story") or {})}
    raw = {f["path"]: f["raw_url"] for f in view["files"] if f["raw_url"]}
    return environment().get_template("skill.md.j2").render(v=view, raw=raw, root="../../", served=served,
                                                            body_html=Markup(body_html))  # noqa: S704 (nh3-sanitised)


def render_home(registry: dict, groups: list[dict], settings: dict | None = None,
                publisher_pages: set[str] | None = None) -> str:
    """`settings`: the registry's home page settings (`RegistryConfig.home_page`); `publisher_pages`: the slugs of
    the publisher pages the site has."""
    return environment().get_template("home.md.j2").render(
        h=model.home_view(registry, groups, settings, publisher_pages), root="")


def render_tags_index(groups: list[dict]) -> str:
    return environment().get_template("tags.md.j2").render(groups=groups, root="../")


def tag_pages_key(group: dict) -> str:
    """Everything one tag's pages are made of (the fields `model.list_item` reads, the group, the code): a rebuild
    renders again only the tags whose pages change (rendering them all was 2 s of a one-skill rebuild at 5,000)."""
    from skillyard.site.page_cache import code_fingerprint

    fields = [[[s["name"], s.get("display_name"), s.get("description"), s.get("version"), s.get("updated_at"),
                s.get("tags"), s.get("commit")] for s in page] for page in group["pages"]]
    payload = json.dumps([code_fingerprint(), "tag-pages", group["tag"], group["slug"], group["count"], fields],
                         ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def cached_tag_pages(group: dict, cache) -> dict[str, str]:
    """`render_tag_pages`, through `cache` (a `page_cache.PageCache`) keyed by `tag_pages_key`."""
    key = tag_pages_key(group)
    text = cache.get(key)
    if text is not None:
        try:
            found = json.loads(text)
        except ValueError:
            found = None
        if isinstance(found, dict) and list(found) == tag_page_paths(group) \
                and all(isinstance(v, str) for v in found.values()):
            cache.used.add(key)
            return found
    out = render_tag_pages(group)
    cache.put(key, json.dumps(out, ensure_ascii=False))
    cache.used.add(key)
    return out


def tag_page_paths(group: dict) -> list[str]:
    return [f"tags/{group['slug']}/index.md" if number == 1 else f"tags/{group['slug']}/{number}.md"
            for number in range(1, len(group["pages"]) + 1)]


def render_tag_pages(group: dict) -> dict[str, str]:
    """{relative .md path: text} for one tag: `tags/<slug>/index.md`, then `tags/<slug>/2.md`, …"""
    out = {}
    template = environment().get_template("tag.md.j2")
    for (number, items), path in zip(enumerate(group["pages"], start=1), tag_page_paths(group), strict=True):
        root = "../../" if number == 1 else "../../../"
        out[path] = template.render(g=group, items=[model.list_item(s) for s in items], page=number, root=root)
    return out
