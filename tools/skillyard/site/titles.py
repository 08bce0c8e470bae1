"""A skill's display title (issue 37 item 3): the name a person reads, not the slug. Pure, no imports beyond re.

In order: the `display_name` registry.json holds (the skill's own `display-name`, or for a pointer skill the one
this registry set in its pin only when upstream declares none — `format/pointer.py` never lets the registry's
override upstream's), else the first level-1 heading of the SKILL.md body this build has (an own skill's from its
folder; a pointer skill's only when the build fetched and checked it), else the name. Pure.
"""

from __future__ import annotations

import re

MAX_TITLE = 100  # as the frontmatter's `display-name` (skill-frontmatter.schema.json)
SCAN_CHARS = 20_000  # the heading is near the top; a body is never searched further
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*\Z")
_SETEXT_1 = re.compile(r"^ {0,3}=+[ \t]*\Z")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_MARKS = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`+)")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
# Headings that name a section, not the skill: a page titled "Overview" tells a visitor nothing.
GENERIC = frozenset(["overview", "instructions", "usage", "introduction", "about", "summary", "description",
                     "purpose", "skill", "readme", "notes", "skill.md", "when to use", "when to use this skill", "contents",
                     "table of contents"])


def _plain(text: str) -> str:
    """A heading's text without its Markdown: links keep their text, emphasis and code marks go, closing `#`s
    go, whitespace is one space; at most MAX_TITLE characters."""
    text = re.sub(r"[ \t]+#+$", "", text.strip())
    if set(text) <= {"#"}:
        return ""
    text = _LINK.sub(r"\1", text)
    text = _MARKS.sub("", text)
    text = " ".join(_CONTROL.sub(" ", text.replace("\\", "")).split())
    return text[:MAX_TITLE].rstrip()


def first_heading(body: str) -> str:
    """The text of the body's first heading when it is level 1 (`# Title` or `Title` over `===`), outside code
    fences; "" when the first heading is deeper, generic (GENERIC) or there is none."""
    fence = ""
    previous = ""
    for line in body[:SCAN_CHARS].splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence, previous = opened.group(1), ""
            continue
        atx = _ATX.match(line)
        if atx:
            return _usable(atx.group(2) or "") if len(atx.group(1)) == 1 else ""
        if previous.strip() and _SETEXT_1.match(line) and not previous.startswith(("    ", "\t")):
            return _usable(previous)
        previous = line
    return ""


def _usable(text: str) -> str:
    title = _plain(text)
    return "" if title.lower().rstrip(":") in GENERIC else title


def display_title(skill: dict, body: str = "") -> str:
    """The title a page, a list and the per-skill JSON show for `skill` (see the module docstring)."""
    declared = skill.get("display_name")
    if isinstance(declared, str) and declared.strip():
        return " ".join(_CONTROL.sub(" ", declared).split())[:MAX_TITLE]
    return first_heading(body) or skill["name"]


def all_titles(registry: dict, bodies: dict[str, str]) -> dict[str, str]:
    """{name: display title} of every skill."""
    return {skill["name"]: display_title(skill, bodies.get(skill["name"], "")) for skill in registry["skills"]}

