"""Render a SKILL.md body to sanitised HTML once, in our process, so mkdocs only wraps it in the theme.

Doing it here (rather than letting mkdocs parse every body) keeps one place that decides what untrusted Markdown
may produce. The Markdown is GitHub's own (cmark-gfm, skillyard.site.cmark): authors write SKILL.md for GitHub, so
the page reads as it does there, and the C parser is about 30x faster than any pure-Python one.

cmark takes time linear in the text, but the sanitiser's HTML parser (html5ever, in nh3) does not: its time grows
with the square of the nesting depth (100,000 `>` would keep it busy for minutes) and with raw formatting tags
times the tags after them, which it re-opens (`<b title=1><p>x` repeated 5,000 times: 30 s). A body with many tags
is therefore rendered again without raw HTML, so that every tag is cmark's own, balanced and never re-opened, and
its depth can be counted exactly; one nested deeper than MAX_NESTING is refused like one that exhausted Python's
recursion limit.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from skillyard.site import cmark
from skillyard.site.cmark import gfm_to_html
from skillyard.site.sanitize import clean_html

MAX_BODY_CHARS = 200_000  # a page, not a book: longer bodies are cut with a note
# Raw HTML is kept when the rendered body has at most MAX_TAGS_AS_WRITTEN `<` (nested that deep: under a second)
# and that count times the body's own `<` (which bounds its raw tags) is at most MAX_TAG_WORK (about a second of
# re-opened tags at worst). In the 600 SKILL.md of the shared corpus: at most 1,994 and 265,202.
MAX_TAGS_AS_WRITTEN = 10_000
MAX_TAG_WORK = 1_000_000
# Elements inside each other: about as deep as a body whose raw HTML is kept can get (10,000 `<` open and close
# 5,000 elements), so the limit reads the same on both paths; the sanitiser parses that depth in a tenth of a second.
MAX_NESTING = 5_000
# cmark-gfm's task list items start with a disabled checkbox; an <input> is not allowed in a page, so the box is
# shown as a character instead.
TASK_BOXES = (('<input type="checkbox" checked="" disabled="" /> ', "\u2611 "),
              ('<input type="checkbox" disabled="" /> ', "\u2610 "))
_TAG = re.compile(r"<(/?)[a-z][^>]*?(/?)>")


def task_boxes(html: str) -> str:
    """`html` with cmark-gfm's task list checkboxes replaced by ☑/☐."""
    if "<input" not in html:
        return html
    for box, character in TASK_BOXES:
        html = html.replace(box, character)
    return html


def nesting_depth(html: str) -> int:
    """How deep the elements of cmark's own balanced HTML nest (every `<` in it starts a tag or a comment)."""
    depth = deepest = 0
    for match in _TAG.finditer(html):
        if match.group(1):
            depth -= 1
        elif not match.group(2):
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def bounded_html(body: str) -> str:
    """cmark's HTML for `body`, small enough in tags or nesting for the sanitiser to parse quickly; raises
    RecursionError when it nests deeper than MAX_NESTING."""
    html = gfm_to_html(body)
    tags = html.count("<")
    if tags <= MAX_TAGS_AS_WRITTEN and tags * body.count("<") <= MAX_TAG_WORK:
        return html
    html = gfm_to_html(body, raw_html=False)
    depth = nesting_depth(html)
    if depth > MAX_NESTING:
        raise RecursionError(f"SKILL.md nests {depth} levels deep; the limit is {MAX_NESTING}")
    return html


class BodyRenderer:
    """Markdown -> sanitised HTML. Holds no state; making one loads cmark-gfm, so a broken install fails early."""

    def __init__(self) -> None:
        cmark.load()

    def render(self, body: str, *, files: Collection[str] = (), file_base: str = "") -> str:
        """Sanitised HTML for `body` (cut at MAX_BODY_CHARS, with a note); raises RecursionError on absurd nesting.
        No clock: cmark renders in time linear in the text."""
        truncated = len(body) > MAX_BODY_CHARS
        if truncated:
            body = body[:MAX_BODY_CHARS]
        html = task_boxes(bounded_html(body))
        if truncated:
            html += "\n<p><em>The rest of SKILL.md is not shown here; open the raw file.</em></p>"
        return clean_html(html, files=files, file_base=file_base)
