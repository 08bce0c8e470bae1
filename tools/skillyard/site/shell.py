"""Skill pages stamped from one page mkdocs rendered, instead of mkdocs rendering thousands of them.

Measured (issue 14): with Markdown already rendered by us, mkdocs still spent most of a 5,000-skill build on the
skill pages — reading each `.md`, parsing its YAML meta, running Material's templates and the hooks — and it
rebuilds every page on every run, so a one-skill change cost a whole build. Every skill page sits at the same
depth (`skills/<name>/`), is out of the navigation and uses the same template and meta except its title, so the
theme's output differs between two skill pages only in the title, the page URL and the content. mkdocs therefore
renders ONE shell page (`skills/_shell.md`, a name no skill can have) holding markers, and each skill page is that
HTML with the markers replaced: same theme, same Content-Security-Policy (its hashes cover the theme's inline
scripts, which are the same on every skill page), same bytes as mkdocs would write (tests/site check it). The
hand-written pages, home, tag pages, theme and search stay mkdocs-material's.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.site.page_cache import CachedPage, page_text

SHELL = "_shell"  # skill names are lowercase letters, digits and hyphens: never this
TITLE = "SkillyardShellTitleq7Zr"
CONTENT = "SkillyardShellContentq7Zr"
DESCRIPTION = "SkillyardShellDescriptionq7Zr"
_URL_PARTS = (f"skills/{SHELL}/", f"skills/{SHELL}.md")
# The same split mkdocs makes (mkdocs.utils.meta.YAML_RE), then `lstrip('\n')`; the hook strips the rest.
_META = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
_DAMAGED = "Delete the page cache (.site-build/cache/pages, or build with --no-cache) and build again."
_TITLE_LINE = re.compile(r"^title: (\".*\")$", re.MULTILINE)
_DESCRIPTION_LINE = re.compile(r"^description: (\".*\")$", re.MULTILINE)  # skill pages' own (pages.meta_description)


def shell_markdown(page_md: str) -> str:
    """The shell page: a rendered skill page's meta with the title replaced by a marker, content by a marker."""
    meta = _META.match(page_md)
    if meta is None:
        raise SkillyardError("a generated skill page has no meta block", _DAMAGED)
    head = _TITLE_LINE.sub(lambda _: f'title: "{TITLE}"', meta.group(0), count=1)
    head = _DESCRIPTION_LINE.sub(lambda _: f'description: "{DESCRIPTION}"', head, count=1)
    return head + "\n" + CONTENT + "\n"


def split_page(page_md: str) -> tuple[str, str, str]:
    """(title as the theme prints it, content, description or "") of a generated skill page, as mkdocs and our
    hook would take them: the meta title and description are JSON strings of HTML-escaped text
    (pages.meta_title, pages.meta_description), printed as is."""
    meta = _META.match(page_md)
    title = _TITLE_LINE.search(meta.group(1)) if meta else None
    if title is None:
        raise SkillyardError("a generated skill page has no title in its meta block", _DAMAGED)
    description = _DESCRIPTION_LINE.search(meta.group(1))
    return json.loads(title.group(1)), page_md[meta.end():].strip() + "\n", \
        json.loads(description.group(1)) if description else ""


class Stamp:
    """The shell's HTML cut at its markers, so each page is one join (a skill's text is never searched).
    `parts`: the shell's own URLs (longest first), replaced by the page's in `page`."""

    def __init__(self, shell_html: str, parts: tuple[str, ...] = _URL_PARTS) -> None:
        if shell_html.count(CONTENT + "\n") != 1:
            raise SkillyardError(f"skills/{SHELL}/index.html: the page the skill pages are stamped from lost its "
                                 "content (a plugin, hook or template override changed the page content)",
                                 "Let skill pages' content through unchanged: change their look in a template "
                                 "override of generated.html, not in a page hook.")
        self.parts = parts
        pattern = "|".join(re.escape(part) for part in (TITLE, DESCRIPTION, CONTENT + "\n", *parts))
        self.chunks = re.split(f"({pattern})", shell_html)

    def page(self, name: str, title: str, content: str, description: str = "",
             urls: tuple[str, ...] | None = None) -> str:
        """`urls`: the page's own URLs in the order of `parts` (default: skill `name`'s page). `description`: the
        page's meta description (where the shell had one)."""
        urls = urls or (f"skills/{name}/", f"skills/{name}.md")
        slots = {TITLE: title, DESCRIPTION: description, CONTENT + "\n": content,
                 **dict(zip(self.parts, urls, strict=True))}
        return "".join(slots.get(chunk, chunk) if i % 2 else chunk for i, chunk in enumerate(self.chunks))


def stamp_pages(site: Path, pages: list[tuple[str, str | CachedPage]], tag_pages: dict[str, str] | None = None
                ) -> list[tuple[str, str, Callable[[], bytes]]]:
    """Take the shells out of mkdocs' output `site` (the sitemap gets one entry per page instead) and return each
    skill page, then each tag page (`tag_pages`: {docs path: Markdown}), as (path in the site, content key,
    function giving its bytes): a page is stamped only when the output needs it written. The key covers the
    shell's HTML and the page Markdown (or a `CachedPage`'s key, which covers what the Markdown is made of)."""
    out = []
    if pages:
        folder = site / "skills" / SHELL
        shell_html = (folder / "index.html").read_text(encoding="utf-8")
        stamp = Stamp(shell_html)
        shell_key = hashlib.sha256(shell_html.encode("utf-8")).digest()
        for name, page in pages:
            made_of = page.encode("utf-8") if isinstance(page, str) else b"\0page-key\0" + page.key.encode()
            key = hashlib.sha256(shell_key + name.encode() + b"\0" + made_of).hexdigest()[:40]
            out.append((f"skills/{name}/index.html", key, partial(_stamp_one, stamp, name, page)))
        (folder / "index.html").unlink()
        folder.rmdir()
    if tag_pages:
        out += _stamp_tag_pages(site, tag_pages)
    _fix_sitemap(site, [name for name, _ in pages], list(tag_pages or ()))
    return out


TAG_SHELLS = (f"tags/{SHELL}/index.md", f"tags/{SHELL}/2.md")  # a tag's first page and a later one (one level deeper)


def tag_shells(tag_page_md: str) -> dict[str, str]:
    """The tag pages' shells, from one generated tag page (all share their meta but the title)."""
    text = shell_markdown(tag_page_md)
    return dict.fromkeys(TAG_SHELLS, text)


def _tag_urls(rel: str) -> tuple[str, ...]:
    """A tag page's own URLs, in the order of its shell's `parts`: `tags/<slug>/index.md` or `tags/<slug>/<n>.md`."""
    folder, name = rel.rsplit("/", 1)
    if name == "index.md":
        return rel, folder + "/"
    return rel, f"{folder}/{name[:-3]}/", folder + "/"


def _stamp_tag_pages(site: Path, tag_pages: dict[str, str]) -> list[tuple[str, str, Callable[[], bytes]]]:
    folder = site / "tags" / SHELL
    first, later = (folder / "index.html").read_text(encoding="utf-8"), \
        (folder / "2" / "index.html").read_text(encoding="utf-8")
    stamps = {True: Stamp(first, _tag_urls(TAG_SHELLS[0])), False: Stamp(later, _tag_urls(TAG_SHELLS[1]))}
    shell_key = hashlib.sha256(first.encode("utf-8") + b"\0" + later.encode("utf-8")).digest()
    out = []
    for rel, page_md in tag_pages.items():
        stamp = stamps[rel.endswith("/index.md")]
        key = hashlib.sha256(shell_key + rel.encode() + b"\0" + page_md.encode("utf-8")).hexdigest()[:40]
        html_rel = rel[:-len("index.md")] + "index.html" if rel.endswith("/index.md") else rel[:-3] + "/index.html"
        out.append((html_rel, key, partial(_stamp_tag, stamp, _tag_urls(rel), page_md)))
    shutil.rmtree(folder)
    return out


def _stamp_tag(stamp: Stamp, urls: tuple[str, ...], page_md: str) -> bytes:
    return stamp.page("", *split_page(page_md), urls=urls).encode("utf-8")


def _stamp_one(stamp: Stamp, name: str, page: str | CachedPage) -> bytes:
    return stamp.page(name, *split_page(page_text(page))).encode("utf-8")


def _fix_sitemap(site: Path, names: list[str], tag_rels: list[str] | None = None) -> None:
    """The shells' <url> entries become one entry per skill page and per tag page, where mkdocs would list them;
    sitemap.xml.gz is written again as mkdocs writes it (same name and mtime in the gzip header, so the bytes
    stay deterministic)."""
    path = site / "sitemap.xml"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    entry = _entry(text, _URL_PARTS[0])
    if entry is not None:
        start, end = entry
        block = text[start:end]
        text = text[:start] + "".join(block.replace(_URL_PARTS[0], f"skills/{n}/") for n in names) + text[end:]
    if tag_rels:
        text = _tag_entries(text, tag_rels)
    path.write_text(text, encoding="utf-8")
    packed = site / "sitemap.xml.gz"
    if packed.is_file():
        mtime = int.from_bytes(packed.read_bytes()[4:8], "little")
        with packed.open("wb") as raw, gzip.GzipFile(fileobj=raw, filename=str(packed), mode="wb",
                                                     mtime=mtime) as out:
            out.write(text.encode("utf-8"))


def _entry(text: str, url: str) -> tuple[int, int] | None:
    """Where the sitemap's `<url>` entry whose location ends with `url` starts (with its line's indent) and ends
    (with its line feed): found with `str.find`, not a regex that steps through a megabyte of entries."""
    at = text.find(url + "</loc>")
    start = text.rfind("<url>", 0, at) if at >= 0 else -1
    end = text.find("</url>", at) if start >= 0 else -1
    if end < 0 or text.find("</url>", start, at) >= 0:
        return None
    while start and text[start - 1] in " \t":
        start -= 1
    end += len("</url>")
    return start, end + (text[end:end + 1] == "\n")


def _tag_entries(text: str, tag_rels: list[str]) -> str:
    """The two tag shells' entries replaced by every tag page's, in mkdocs' order: folders (slugs) sorted, in each
    `index.md` first, then the other names as sorted strings (`10.md` before `2.md`)."""
    later = _entry(text, _tag_urls(TAG_SHELLS[1])[1])
    if later is not None:
        text = text[:later[0]] + text[later[1]:]
    first = _entry(text, _tag_urls(TAG_SHELLS[0])[1])
    if first is None:
        return text
    shell_url = _tag_urls(TAG_SHELLS[0])[1]

    def order(rel: str) -> tuple:
        folder, name = rel.rsplit("/", 1)
        return folder, name != "index.md", name

    urls = [_tag_urls(rel)[1] for rel in sorted(tag_rels, key=order)]
    block = text[first[0]:first[1]]
    return text[:first[0]] + "".join(block.replace(shell_url, url) for url in urls) + text[first[1]:]
