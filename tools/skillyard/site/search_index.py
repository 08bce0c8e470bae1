"""The compact search data every visitor downloads: about 250 bytes per skill, not the 2 KB of a full-text index.

Shape (version 1): `{"v": 1, "tags": [tag, …], "skills": [[name, [tag index, …], description, keywords,
display title?], …]}` (`titles.display_title`, when it is not the name). Descriptions are cut to DESCRIPTION_BYTES of UTF-8 and the body contributes only a few
keywords from its headings, so size grows with the number of skills, not with how much they wrote. Matching
(substring for CJK, ranking name > tags > description > keywords) happens in `site/assets/search.js`.
"""

from __future__ import annotations

import json
import re

from skillyard.site.titles import display_title

DESCRIPTION_BYTES = 160
KEYWORD_BYTES = 48
# A heading line's text; its closing `#`s are stripped in Python (a regex doing both is quadratic on `# a # # # …x`).
_HEADING = re.compile(r"^#{1,3}[ \t]+([^\n]+)", re.MULTILINE)
_WORD = re.compile(r"[0-9a-z][0-9a-z+#.-]{2,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
STOPWORDS = frozenset([
    "a", "about", "all", "also", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does",
    "for", "from", "has", "have", "how", "if", "in", "into", "is", "it", "its", "more", "not", "of",
    "on", "or", "our", "over", "that", "the", "their", "then", "this", "to", "use", "used", "uses",
    "using", "was", "what", "when", "where", "which", "while", "who", "will", "with", "you", "your",
    "overview", "usage", "example", "examples", "introduction", "notes", "note", "step", "steps",
    "instructions", "reference", "references", "skill",
])


def clip_utf8(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes without splitting a character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", errors="ignore").rstrip()


def body_keywords(body: str, known: str, limit: int = KEYWORD_BYTES) -> str:
    """Distinct words from the body's headings that the name, tags and description do not already contain."""
    words: list[str] = []
    used = 0
    for heading in _HEADING.findall(body):
        for word in _WORD.findall(heading.rstrip(" \t#").lower()):
            if word in STOPWORDS or word in known or word in words:
                continue
            cost = len(word.encode("utf-8")) + (1 if words else 0)
            if used + cost > limit:
                return " ".join(words)
            words.append(word)
            used += cost
    return " ".join(words)


def search_entry(skill: dict, body: str, tag_index: dict[str, int]) -> list:
    name = skill["name"]
    description = clip_utf8(" ".join(skill.get("description", "").split()), DESCRIPTION_BYTES)
    known = " ".join([name, *skill.get("tags", []), description.lower()])
    entry: list = [name, [tag_index[t] for t in dict.fromkeys(skill.get("tags", []))], description,
                   body_keywords(body, known)]
    display = display_title(skill, body)  # registry.json's display_name, else the SKILL.md's first heading
    if display and display != name:
        entry.append(clip_utf8(display, 60))
    return entry


def build_search_data(skills: list[dict], bodies: dict[str, str]) -> dict:
    """The search document for `skills` (sorted by name in registry.json) with their SKILL.md bodies."""
    tags = sorted({tag for skill in skills for tag in skill.get("tags", [])})
    tag_index = {tag: i for i, tag in enumerate(tags)}
    return {"v": 1, "tags": tags, "skills": [search_entry(s, bodies.get(s["name"], ""), tag_index) for s in skills]}


def dump_search_data(data: dict) -> bytes:
    """Minified, stable bytes (UTF-8 kept: CJK costs 3 bytes a character instead of 6 as \\u escapes)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8") + b"\n"
