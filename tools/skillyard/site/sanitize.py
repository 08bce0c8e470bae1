"""Make HTML from an untrusted SKILL.md safe to embed in the site.

A skill's Markdown comes from a stranger's pull request, so its rendered HTML passes through nh3 (ammonia) with an
allow-list: no scripts, styles, frames, forms or event handlers, only http/https/mailto links, and every link gets
`rel="nofollow noopener"`. Relative links and images may only point at files the skill actually ships; they are
rewritten to the copies the site serves under `/.well-known/agent-skills/<name>/`, or, for a skill the site does
not serve there, to the URL the caller maps each file to (links only; no images from off the site). Remote images
are dropped so a page view never pings a stranger's server. The only ids kept are the `fn-`/`fnref-` ones of
footnotes, so that their links work and no content can take an id the theme or the page uses.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Collection, Mapping
from urllib.parse import quote, unquote, urlsplit

import nh3

ALLOWED_TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp",
    "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u",
    "ul", "var",
})
# Removed together with their content (the rest of the unknown tags are unwrapped and their text kept).
DROP_WITH_CONTENT = frozenset({"script", "style", "iframe", "form", "object", "embed", "template", "noscript",
                               "textarea", "select", "svg", "math", "frame", "frameset", "noembed", "xmp"})
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "id"},
    "li": {"id"},
    "img": {"src", "alt", "title", "width", "height"},
    "abbr": {"title"},
    "ol": {"start"},
    "td": {"align", "colspan", "rowspan"},
    "th": {"align", "colspan", "rowspan"},
    "code": {"class"},
    "details": {"open"},
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "nofollow noopener"
_LANGUAGE_CLASS = re.compile(r"^language-[A-Za-z0-9_+#.-]{1,30}\Z")
_SIZE = re.compile(r"^\d{1,4}%?\Z", re.ASCII)  # ASCII: Python's \d also takes other scripts' digits
_FOOTNOTE_ID = re.compile(r"fn(?:ref)?-[A-Za-z0-9%_.-]{1,100}")  # cmark-gfm's footnote ids (label URL-escaped)


def resolve_relative(url: str, files: Collection[str]) -> str | None:
    """The skill file a relative URL points at (`./a/../b.md#x` -> `b.md`), or None when it leaves the folder
    or names a file the skill does not ship."""
    if not url or url.startswith(("/", "\\")) or "\\" in url:
        return None
    path = unquote(urlsplit(url).path)
    if not path:
        return None
    normal = posixpath.normpath(path)
    if normal.startswith("../") or normal in {".", ".."}:
        return None
    return normal if normal in files else None


def make_url_filter(files: Collection[str], file_base: str) -> Callable[[str, str, str], str | None]:
    """An nh3 attribute filter that rewrites or drops URLs, and keeps only harmless values elsewhere.

    `files` is the skill's file list (links become `file_base` + path), or a mapping {path: URL or None} for a
    skill whose files are not served by the site."""
    links = files if isinstance(files, Mapping) else None

    def keep(element: str, attribute: str, value: str) -> str | None:
        if attribute in {"href", "src"}:
            url = value.strip()
            lowered = url.lower()
            if lowered.startswith("#"):
                return url if attribute == "href" else None
            scheme = urlsplit(lowered).scheme if ":" in lowered.split("/", 1)[0] else ""
            if scheme or lowered.startswith("//"):
                if element == "img":
                    return None  # remote images: no tracking pixels, no requests off the site
                return url if scheme in URL_SCHEMES else None
            target = resolve_relative(url, files)
            if target is None:
                return None
            if links is not None:
                return links[target] if element == "a" else None
            return file_base + quote(target)
        if attribute == "id":
            return value if _FOOTNOTE_ID.fullmatch(value) else None
        if attribute == "class":
            kept = [name for name in value.split() if _LANGUAGE_CLASS.match(name)]
            return " ".join(kept) or None
        if attribute in {"width", "height"}:
            return value if _SIZE.match(value.strip()) else None
        if attribute in {"start", "colspan", "rowspan"}:
            number = value.strip()
            return value if number.isascii() and number.isdigit() and len(number) <= 4 else None
        if attribute == "align":
            return value if value.lower() in {"left", "right", "center"} else None
        return value

    return keep


def clean_html(html: str, *, files: Collection[str] | Mapping[str, str | None] = (), file_base: str = "") -> str:
    """Sanitise an HTML fragment; `file_base` is the URL prefix under which the skill's `files` are served (or
    `files` maps each path to its URL)."""
    return nh3.clean(
        html,
        tags=set(ALLOWED_TAGS),
        clean_content_tags=set(DROP_WITH_CONTENT),
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        attribute_filter=make_url_filter(files if isinstance(files, Mapping) else frozenset(files), file_base),
        strip_comments=True,
        link_rel=LINK_REL,
        url_schemes=set(URL_SCHEMES),
    )


def safe_external_url(url: object) -> str | None:
    """`url` when it is an absolute http(s) URL without surprises, else None (for homepage-style fields)."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc or any(c in url for c in "\"'<>\\ \t\n\r"):
        return None
    return url
