"""GitHub Flavored Markdown -> HTML with cmark-gfm, GitHub's own C renderer (from the cmarkgfm wheel), freeing what
it allocates.

cmarkgfm's Python helpers never free the parsed tree nor the HTML string (about 170 KB lost per 12 KB page: GBs in
one build worker at 20,000 skills), so this module calls the same library's exported C functions through ctypes and
frees both. cmark parses in linear time (no backtracking inline patterns), which is why no time limit is needed.
"""

from __future__ import annotations

import ctypes
from functools import cache

# GitHub's extensions, minus `tagfilter`: raw HTML goes to our sanitiser, which drops <script> and the like with
# their content (tagfilter would turn them into visible text instead).
EXTENSIONS = (b"table", b"strikethrough", b"autolink", b"tasklist")
# cmark.h's CMARK_OPT_VALIDATE_UTF8 (invalid bytes become U+FFFD) and CMARK_OPT_FOOTNOTES. Without
# CMARK_OPT_GITHUB_PRE_LANG code blocks are <pre><code class="language-x">, the shape the sanitiser and theme expect.
OPTIONS = (1 << 9) | (1 << 13)
UNSAFE = 1 << 17  # CMARK_OPT_UNSAFE: raw HTML and every URL kept as written (the sanitiser decides)


class _Mem(ctypes.Structure):
    """cmark_mem: the allocator cmark used, so its `free` releases the HTML string."""
    _fields_ = [("calloc", ctypes.c_void_p), ("realloc", ctypes.c_void_p),
                ("free", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]


class _Library:
    """The C functions of cmarkgfm's extension module, typed (a wrong signature would crash, not raise)."""

    def __init__(self) -> None:
        from cmarkgfm import _cmark

        lib = ctypes.CDLL(_cmark.__file__)
        pointer, size, integer = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        signatures = {
            "cmark_gfm_core_extensions_ensure_registered": (None, []),
            "cmark_find_syntax_extension": (pointer, [ctypes.c_char_p]),
            "cmark_parser_new": (pointer, [integer]),
            "cmark_parser_attach_syntax_extension": (integer, [pointer, pointer]),
            "cmark_parser_feed": (None, [pointer, ctypes.c_char_p, size]),
            "cmark_parser_finish": (pointer, [pointer]),
            "cmark_parser_get_syntax_extensions": (pointer, [pointer]),
            "cmark_parser_free": (None, [pointer]),
            "cmark_render_html": (pointer, [pointer, integer, pointer]),
            "cmark_node_free": (None, [pointer]),
            "cmark_get_default_mem_allocator": (ctypes.POINTER(_Mem), []),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
            setattr(self, name.removeprefix("cmark_"), function)
        self.gfm_core_extensions_ensure_registered()
        self.extensions = []
        for name in EXTENSIONS:
            extension = self.find_syntax_extension(name)
            if not extension:
                raise RuntimeError(f"cmark-gfm has no {name.decode()} extension")
            self.extensions.append(extension)
        self.free = self.get_default_mem_allocator().contents.free


@cache
def _library() -> _Library | None:
    """The typed functions, or None where the extension module does not export them (then cmarkgfm's own,
    leaking, helper renders: same HTML, more memory)."""
    from cmarkgfm import _cmark  # noqa: F401 (not installed: the ImportError says so)

    try:
        return _Library()
    except (AttributeError, OSError):
        return None


def _with_cmarkgfm_helper(text: str, options: int) -> str:
    import cmarkgfm

    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # its helper encodes strictly
    return cmarkgfm.markdown_to_html_with_extensions(text, options, [name.decode() for name in EXTENSIONS])


def load() -> None:
    """Load cmark-gfm now, so that a broken install stops the build at once rather than failing every page."""
    _library()


def gfm_to_html(text: str, *, raw_html: bool = True) -> str:
    """HTML for GitHub Flavored Markdown `text`, raw HTML included as written (sanitise it after). Without
    `raw_html`, cmark leaves out raw HTML and unsafe URLs, so every tag in the result is its own and balanced."""
    lib = _library()
    options = (OPTIONS | UNSAFE) if raw_html else OPTIONS
    if lib is None:
        return _with_cmarkgfm_helper(text, options)
    data = text.encode("utf-8", "surrogatepass")  # lone surrogates: invalid UTF-8 that cmark replaces
    parser = lib.parser_new(options)
    if not parser:
        raise MemoryError("cmark could not allocate a parser")
    try:
        for extension in lib.extensions:
            lib.parser_attach_syntax_extension(parser, extension)
        lib.parser_feed(parser, data, len(data))
        root = lib.parser_finish(parser)
        if not root:
            raise MemoryError("cmark could not parse the text")
        try:
            output = lib.render_html(root, options, lib.parser_get_syntax_extensions(parser))
        finally:
            lib.node_free(root)
    finally:
        lib.parser_free(parser)
    if not output:
        raise MemoryError("cmark could not render the text")
    try:
        return ctypes.string_at(output).decode("utf-8", "replace")
    finally:
        lib.free(output)
