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
from collections.abc import Callable
from functools import partial
from pathlib import Path

from skillyard.errors import SkillyardError

SHELL = "_shell"  # skill names are lowercase letters, digits and hyphens: never this
TITLE = "SkillyardShellTitleq7Zr"
CONTENT = "SkillyardShellContentq7Zr"
_URL_PARTS = (f"skills/{SHELL}/", f"skills/{SHELL}.md")
# The same split mkdocs makes (mkdocs.utils.meta.YAML_RE), then `lstrip('\n')`; the hook strips the rest.
_META = re.compile(r"^-{3}[ \t]*\n(.*?\n)(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
_DAMAGED = "Delete the page cache (.site-build/cache/pages, or build with --no-cache) and build again."
_TITLE_LINE = re.compile(r"^title: (\".*\")$", re.MULTILINE)


def shell_markdown(page_md: str) -> str:
    """The shell page: a rendered skill page's meta with the title replaced by a marker, content by a marker."""
    meta = _META.match(page_md)
    if meta is None:
        raise SkillyardError("a generated skill page has no meta block", _DAMAGED)
    head = _TITLE_LINE.sub(lambda _: f'title: "{TITLE}"', meta.group(0), count=1)
    return head + "\n" + CONTENT + "\n"


def split_page(page_md: str) -> tuple[str, str]:
    """(title as the theme prints it, content) of a generated skill page, as mkdocs and our hook would take them:
    the meta title is a JSON string of HTML-escaped text (pages.meta_title), printed as is."""
    meta = _META.match(page_md)
    title = _TITLE_LINE.search(meta.group(1)) if meta else None
    if title is None:
        raise SkillyardError("a generated skill page has no title in its meta block", _DAMAGED)
    return json.loads(title.group(1)), page_md[meta.end():].strip() + "\n"


class Stamp:
    """The shell's HTML cut at its markers, so each page is one join (a skill's text is never searched)."""

    def __init__(self, shell_html: str) -> None:
        if shell_html.count(CONTENT + "\n") != 1:
            raise SkillyardError(f"skills/{SHELL}/index.html: the page the skill pages are stamped from lost its "
                                 "content (a plugin, hook or template override changed the page content)",
                                 "Let skill pages' content through unchanged: change their look in a template "
                                 "override of generated.html, not in a page hook.")
        pattern = "|".join(re.escape(part) for part in (TITLE, CONTENT + "\n", *_URL_PARTS))
        self.chunks = re.split(f"({pattern})", shell_html)

    def page(self, name: str, title: str, content: str) -> str:
        slots = {TITLE: title, CONTENT + "\n": content, _URL_PARTS[0]: f"skills/{name}/",
                 _URL_PARTS[1]: f"skills/{name}.md"}
        return "".join(slots.get(chunk, chunk) if i % 2 else chunk for i, chunk in enumerate(self.chunks))


def stamp_pages(site: Path, pages: list[tuple[str, str]]) -> list[tuple[str, str, Callable[[], bytes]]]:
    """Take the shell out of mkdocs' output `site` (its sitemap entry becomes one per skill page) and return each
    skill page as (path in the site, content key, function giving its bytes): a page is stamped only when the
    output needs it written. The key covers the shell's HTML and the page Markdown, all a page is made of."""
    folder = site / "skills" / SHELL
    shell_html = (folder / "index.html").read_text(encoding="utf-8")
    stamp = Stamp(shell_html)
    shell_key = hashlib.sha256(shell_html.encode("utf-8")).digest()
    out = []
    for name, page_md in pages:
        key = hashlib.sha256(shell_key + name.encode() + b"\0" + page_md.encode("utf-8")).hexdigest()[:40]
        out.append((f"skills/{name}/index.html", key, partial(_stamp_one, stamp, name, page_md)))
    (folder / "index.html").unlink()
    folder.rmdir()
    _fix_sitemap(site, [name for name, _ in pages])
    return out


def _stamp_one(stamp: Stamp, name: str, page_md: str) -> bytes:
    return stamp.page(name, *split_page(page_md)).encode("utf-8")


def _fix_sitemap(site: Path, names: list[str]) -> None:
    """The shell's <url> entry becomes one entry per skill; sitemap.xml.gz is written again as mkdocs writes it
    (same name and mtime in the gzip header, so the bytes stay deterministic)."""
    path = site / "sitemap.xml"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    entry = re.search(r"[ \t]*<url>(?:(?!</url>).)*?skills/_shell/.*?</url>\n?", text, re.DOTALL)
    if entry is None:
        return
    block = entry.group(0)
    text = text[:entry.start()] + "".join(block.replace(_URL_PARTS[0], f"skills/{n}/") for n in names) \
        + text[entry.end():]
    path.write_text(text, encoding="utf-8")
    packed = site / "sitemap.xml.gz"
    if packed.is_file():
        mtime = int.from_bytes(packed.read_bytes()[4:8], "little")
        with packed.open("wb") as raw, gzip.GzipFile(fileobj=raw, filename=str(packed), mode="wb",
                                                     mtime=mtime) as out:
            out.write(text.encode("utf-8"))
