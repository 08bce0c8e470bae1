"""Render a SKILL.md body to sanitised HTML once, in our process, so mkdocs only wraps it in the theme.

Doing it here (rather than letting mkdocs parse every body) keeps one place that decides what untrusted Markdown
may produce, and it is faster: one reused Markdown instance, plain `<pre><code>` blocks, no syntax highlighting.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Collection, Iterator

from skillyard.site.gfm_lists import github_lists
from skillyard.site.sanitize import clean_html

# superfences finds fenced code inside list items (numbered steps with commands are common in SKILL.md); plain
# `<pre><code class="language-x">` without Pygments keeps pages small and the build fast.
EXTENSIONS = ["tables", "pymdownx.highlight", "pymdownx.superfences", "sane_lists", "def_list", "abbr"]
EXTENSION_CONFIGS = {"pymdownx.highlight": {"use_pygments": False}}
MAX_BODY_CHARS = 200_000  # a page, not a book: longer bodies are cut with a note
# Python-Markdown's inline patterns are quadratic on some inputs (8,000 `[` take 18 s, 200,000 would take hours);
# a real SKILL.md renders in milliseconds, so a body still rendering after this long is shown as text instead.
RENDER_SECONDS = 10.0


class RenderTimeout(Exception):
    """A body took longer than RENDER_SECONDS to render."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise RenderTimeout in this thread after `seconds` (SIGALRM; only in the main thread of a process, which is
    where the builder and its worker processes render; elsewhere no limit)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise RenderTimeout(f"rendering took longer than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class BodyRenderer:
    """Markdown -> sanitised HTML; keep one per process (building the Markdown instance is the slow part)."""

    def __init__(self) -> None:
        import markdown

        self._md = markdown.Markdown(extensions=EXTENSIONS, extension_configs=EXTENSION_CONFIGS,
                                     output_format="html")

    def render(self, body: str, *, files: Collection[str] = (), file_base: str = "",
               seconds: float | None = None) -> str:
        """Sanitised HTML for `body`; raises RenderTimeout after `seconds` (default RENDER_SECONDS) and
        RecursionError on absurd nesting."""
        truncated = len(body) > MAX_BODY_CHARS
        if truncated:
            body = body[:MAX_BODY_CHARS]
        self._md.reset()
        with time_limit(seconds or RENDER_SECONDS):
            html = self._md.convert(github_lists(body))
        if truncated:
            html += "\n<p><em>The rest of SKILL.md is not shown here; open the raw file.</em></p>"
        return clean_html(html, files=files, file_base=file_base)
