"""Render the skill index for a model: the Agent Skills `<available_skills>` XML, a plain list, or JSON.

The XML follows the reference `to-prompt` output exactly: one tag or value per line, lines joined by "\\n", name and
description HTML-escaped (quotes included), the location (absolute path of SKILL.md) as is but for `<` and `>`. The
plain list aims at about 50 tokens per skill by shortening long descriptions, and names each skill's source. No
format ever holds a raw `<` or `>` (design 002 §4.2): discovery refuses them in frontmatter, and the one thing it
cannot refuse, a root folder's own path, is escaped here.

Every format carries one usage line (`USAGE`) with a non-empty index: before the XML block (which stays in its
reference form) and the text list, and as `usage` in JSON.
"""

from __future__ import annotations

import html
import json

from skillyard.runtime import files
from skillyard.runtime.discovery import Skill

USAGE = ("To use a skill, first read its SKILL.md with the `read_skill_file` tool (skill_name, file_path), then "
         "follow it; run the scripts in its `scripts/` folder with your shell tool.")
TEXT_DESCRIPTION_CHARS = 180  # ~45 tokens, plus the name: about 50 tokens a skill
JSON_FILES = 50  # files named per skill in the JSON index; `files_truncated` says when there are more


def _no_markup(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def to_xml(skills: list[Skill]) -> str:
    lines = ["<available_skills>"]
    for skill in skills:
        lines += ["<skill>", "<name>", html.escape(skill.name, quote=True), "</name>",
                  "<description>", html.escape(skill.description, quote=True), "</description>",
                  "<location>", _no_markup(skill.location), "</location>", "</skill>"]
    lines.append("</available_skills>")
    return "\n".join(lines)


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] if " " in text[: limit - 1] else text[: limit - 1]
    return cut.rstrip(" ,;:.") + "…"


def to_text(skills: list[Skill], *, limit: int = TEXT_DESCRIPTION_CHARS, asks: dict[str, str] | None = None) -> str:
    """`- name [source]: description (location)` lines; `[ask]` marks skills the user must approve before loading."""
    asks = asks or {}
    lines = []
    for skill in skills:
        mark = " [ask]" if asks.get(skill.name) == "ask" else ""
        lines.append(f"- {skill.name} [{skill.source}]{mark}: {_no_markup(shorten(skill.description, limit))} "
                     f"({_no_markup(skill.location)})")
    return "\n".join(lines)


def to_json(skills: list[Skill], *, asks: dict[str, str] | None = None, report: dict | None = None) -> dict:
    """Design 002 §2.2's entries: name, description, source, path, `controls` and `meta`, plus the files a
    `read_skill_file` call can open (bookkeeping and hidden files left out)."""
    asks = asks or {}
    entries = []
    for s in skills:
        listed, truncated = files.list_files(s.folder, limit=JSON_FILES)
        entries.append({"name": s.name, "description": s.description, "location": s.location, "path": s.folder,
                        "source": s.source, "permission": asks.get(s.name, "allow"), "controls": s.controls,
                        "meta": s.meta, "files": listed, "files_truncated": truncated,
                        "diagnostics": s.diagnostics})
    out = {"skills": entries}
    if entries:
        out["usage"] = USAGE
    if report is not None:
        out["report"] = report
    return out


def render(skills: list[Skill], fmt: str = "xml", *, asks: dict[str, str] | None = None,
           report: dict | None = None) -> str:
    usage = USAGE + "\n" if skills else ""
    if fmt == "xml":
        return usage + to_xml(skills)
    if fmt == "text":
        return usage + to_text(skills, asks=asks)
    if fmt == "json":
        text = json.dumps(to_json(skills, asks=asks, report=report), ensure_ascii=False, indent=2, sort_keys=True)
        return text.replace("<", "\\u003c").replace(">", "\\u003e")  # the same JSON, without raw markup
    raise ValueError(f"unknown format {fmt!r}; use xml, text or json")


def estimate_tokens(text: str) -> int:
    """A rough count (4 characters a token) for budgeting, not a tokenizer."""
    return (len(text) + 3) // 4
