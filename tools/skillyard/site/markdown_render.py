"""Render a SKILL.md body to sanitised HTML once, in our process, so mkdocs only wraps it in the theme.

Doing it here (rather than letting mkdocs parse every body) keeps one place that decides what untrusted Markdown
may produce, and it is faster: one reused Markdown instance, plain `<pre><code>` blocks, no syntax highlighting.
"""

from __future__ import annotations

from collections.abc import Collection

from skillyard.site.gfm_lists import github_lists
from skillyard.site.sanitize import clean_html

# superfences finds fenced code inside list items (numbered steps with commands are common in SKILL.md); plain
# `<pre><code class="language-x">` without Pygments keeps pages small and the build fast.
EXTENSIONS = ["tables", "pymdownx.highlight", "pymdownx.superfences", "sane_lists", "def_list", "abbr"]
EXTENSION_CONFIGS = {"pymdownx.highlight": {"use_pygments": False}}
MAX_BODY_CHARS = 200_000  # a page, not a book: longer bodies are cut with a note


class BodyRenderer:
    """Markdown -> sanitised HTML; keep one per process (building the Markdown instance is the slow part)."""

    def __init__(self) -> None:
        import markdown

        self._md = markdown.Markdown(extensions=EXTENSIONS, extension_configs=EXTENSION_CONFIGS,
                                     output_format="html")

    def render(self, body: str, *, files: Collection[str] = (), file_base: str = "") -> str:
        truncated = len(body) > MAX_BODY_CHARS
        if truncated:
            body = body[:MAX_BODY_CHARS]
        self._md.reset()
        html = self._md.convert(github_lists(body))
        if truncated:
            html += "\n<p><em>The rest of SKILL.md is not shown here; open the raw file.</em></p>"
        return clean_html(html, files=files, file_base=file_base)
