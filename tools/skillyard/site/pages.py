"""Render the generated Markdown pages (YAML meta + one raw HTML block) from jinja2 templates.

Each page is a plain `.md` file that any Markdown site builder can read. Its content is a single raw HTML block,
so Markdown syntax hidden in a stranger's description (`[x](javascript:…)`) is never interpreted; jinja2
autoescapes every value, and the page title meta is HTML-escaped because Material prints it unescaped.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache

from markupsafe import Markup

from skillyard.site import model
from skillyard.units import human_size

_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")


def meta_title(value: str) -> Markup:
    """A YAML double-quoted scalar holding HTML-escaped, single-line text (safe in <title> and the header)."""
    text = _CONTROL.sub(" ", str(value)).strip()[:120] or "untitled"
    return Markup(json.dumps(html.escape(text, quote=True), ensure_ascii=False))  # noqa: S704 (escaped just here)


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
    env.filters["human_size"] = human_size
    env.filters["show_value"] = model.show_value
    return env


def render_skill(registry: dict, skill: dict, body_html: str, *, served: bool = True) -> str:
    """`served`: the site serves the skill's files under the well-known path (else it links only raw URLs)."""
    view = model.skill_view(registry, skill)
    raw = {f["path"]: f["raw_url"] for f in view["files"] if f["raw_url"]}
    return environment().get_template("skill.md.j2").render(v=view, raw=raw, root="../../", served=served,
                                                            body_html=Markup(body_html))  # noqa: S704 (nh3-sanitised)


def render_home(registry: dict, groups: list[dict]) -> str:
    return environment().get_template("home.md.j2").render(h=model.home_view(registry, groups), root="")


def render_tags_index(groups: list[dict]) -> str:
    return environment().get_template("tags.md.j2").render(groups=groups, root="../")


def render_tag_pages(group: dict) -> dict[str, str]:
    """{relative .md path: text} for one tag: `tags/<slug>/index.md`, then `tags/<slug>/2.md`, …"""
    out = {}
    template = environment().get_template("tag.md.j2")
    for number, items in enumerate(group["pages"], start=1):
        path = f"tags/{group['slug']}/index.md" if number == 1 else f"tags/{group['slug']}/{number}.md"
        root = "../../" if number == 1 else "../../../"
        out[path] = template.render(g=group, items=[model.list_item(s) for s in items], page=number, root=root)
    return out
