"""Rendering `{{inputs.<name>}}` placeholders: pure text in, text out.

It lives in `format/` because three stages render the same way: the client at install time, `skill emit`, and the
site when it serves copies to other clients (with each input's default, since a third-party client shows a
placeholder raw). The site may not import the client, so the one rule is here.
"""

from __future__ import annotations

import json
import re

from skillyard.errors import SkillyardError

PLACEHOLDER = re.compile(r"\{\{\s*inputs\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
# Characters a rendered file may have. A value is bounded, but repeated placeholders multiply it: a 1 MB file of
# placeholders and a 64 KB default would be gigabytes. The check runs before the text is built.
MAX_RENDERED = 4 * 1024 * 1024
RENDERED_FILES = ("SKILL.md", "skill.md")  # the files whose `{{inputs.x}}` placeholders are filled; never scripts


class RenderTooLarge(SkillyardError):
    """Rendering would exceed MAX_RENDERED characters."""


def spell(value: object) -> str:
    """A value as it appears in text: strings as they are, everything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def render(text: str, values: dict, *, limit: int = MAX_RENDERED) -> str:
    """Replace `{{inputs.<name>}}` with the value; placeholders for inputs without a value stay as written.

    Raises RenderTooLarge (nothing built) when the result would exceed `limit` characters."""
    spelled = {name: spell(value) for name, value in values.items()}
    size = len(text)
    for match in PLACEHOLDER.finditer(text):
        if match.group(1) in spelled:
            size += len(spelled[match.group(1)]) - len(match.group(0))
    if size > limit:
        raise RenderTooLarge(f"filling the inputs would make the text {size:,} characters; the limit is {limit:,}",
                             "Use fewer placeholders or a shorter value.")
    return PLACEHOLDER.sub(lambda m: spelled.get(m.group(1), m.group(0)), text)


def render_bytes(data: bytes, values: dict) -> bytes:
    """`render` on UTF-8 bytes; unchanged bytes when there is nothing to render (binary files stay untouched)."""
    if not values:
        return data
    return render(data.decode("utf-8"), values).encode("utf-8")


def defaults(declared: object) -> dict:
    """{name: default} of every well-formed input declaration that has a default."""
    out: dict = {}
    for decl in declared if isinstance(declared, list) else []:
        if isinstance(decl, dict) and isinstance(decl.get("name"), str) and "default" in decl:
            out[decl["name"]] = decl["default"]
    return out
