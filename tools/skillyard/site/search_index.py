"""The compact search data every visitor downloads: about 250 bytes per skill, not the 2 KB of a full-text index.

Shape (version 3, columns rather than one array per skill, so the browser parses a handful of long strings
instead of a hundred thousand short ones and searches each column with one native `indexOf` scan):
`{"v": 3, "count": N, "tags": [tag, …], "publishers": [[name, page slug or ""], …], "licenses": [id, …],
"names": "a\nb\n…", "titles": …, "descriptions": …, "keywords": …, "skill_tags": [[tag index, …], …],
"facts": [publisher index or -1, licence index or -1, flags, …]}`. The four text columns hold one line per skill
in registry order (a title is "" when it is the name); `facts` holds three integers per skill; flags:
POINTER | VERIFIED | SCRIPTS. A result shows what a visitor acts on (publisher, badges, the install line) without
opening the page; the shared tables keep that to a few bytes a skill. Descriptions are cut to DESCRIPTION_BYTES of
UTF-8 at a word boundary with an ellipsis, and the body contributes only a few keywords from its headings, so size
grows with the number of skills, not with how much they wrote. schemas/search.schema.json describes the shape.
Matching (substring for CJK, ranking name > tags > description > keywords) happens in `theme/assets/search.js`.
"""

from __future__ import annotations

import json
import re

from skillyard.site.model import publisher_key, publisher_slugs
from skillyard.site.titles import display_title

DESCRIPTION_BYTES = 160
POINTER, VERIFIED, SCRIPTS = 1, 2, 4  # the flags of an entry: badges in the results
ELLIPSIS = "…"
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


def clip_words(text: str, limit: int) -> str:
    """`text` in at most `limit` UTF-8 bytes: whole when it fits, else cut at the last space (when one is in the
    second half; text without spaces, such as Chinese, is cut between characters) and ended with an ellipsis."""
    if len(text.encode("utf-8")) <= limit:
        return text
    cut = clip_utf8(text, limit - len(ELLIPSIS.encode("utf-8")))
    space = cut.rfind(" ")
    if space > len(cut) // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:-–—") + ELLIPSIS


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


def flags(skill: dict) -> int:
    """POINTER for a pointer entry, VERIFIED when a maintainer of this registry reviewed its pin, SCRIPTS when the
    skill ships scripts (registry.json's inventory)."""
    pointer = "source_url" in skill
    inventory = skill.get("inventory") if isinstance(skill.get("inventory"), dict) else {}
    return (POINTER if pointer else 0) | (VERIFIED if pointer and skill.get("verified") is True else 0) | \
        (SCRIPTS if inventory.get("has_scripts") is True else 0)


def one_line(text: str) -> str:
    """`text` with every run of whitespace (line breaks included) made one space: a column holds a line a skill."""
    return " ".join(text.split())


def entry_text(skill: dict, body: str) -> tuple[str, str]:
    """(description as shown, keywords from the body): the part of a search entry that reads the body."""
    description = clip_words(one_line(skill.get("description", "")), DESCRIPTION_BYTES)
    known = " ".join([skill["name"], *skill.get("tags", []), description.lower()])
    return description, body_keywords(body, known)


def search_entry(skill: dict, body: str, tag_index: dict[str, int],
                 publisher_index: dict[tuple[str, str] | None, int] | None = None,
                 licence_index: dict[str, int] | None = None, title: str | None = None,
                 text: tuple[str, str] | None = None) -> list:
    """One skill's fields: name, tag indexes, description, keywords, title or "", publisher, licence, flags.
    `title`: `display_title(skill, body)` when the caller has it; `text`: `entry_text(skill, body)`, likewise."""
    name = skill["name"]
    description, keywords = text or entry_text(skill, body)
    # display_name, else the SKILL.md's first heading
    display = one_line((display_title(skill, body) if title is None else title) or "")
    return [name, [tag_index[t] for t in dict.fromkeys(skill.get("tags", []))], description,
            keywords, clip_utf8(display, 60) if display and display != name else "",
            (publisher_index or {}).get(publisher_key(skill), -1),
            (licence_index or {}).get(str(skill.get("license") or ""), -1), flags(skill)]


def build_search_data(skills: list[dict], bodies: dict[str, str], publisher_pages: set[str] | None = None,
                      titles: dict[str, str] | None = None, texts: dict[str, tuple[str, str]] | None = None) -> dict:
    """The search document for `skills` (sorted by name in registry.json) with their SKILL.md bodies.
    `publisher_pages`: the slugs of the publisher pages this site has (a result links its publisher to one; the
    others keep an empty slug). None: every publisher's slug, for `link_publisher_pages` to settle later.
    `titles`: `titles.all_titles` of the same skills and bodies; `texts`: {name: `entry_text`} (`search_cache`)."""
    tags = sorted({tag for skill in skills for tag in skill.get("tags", [])})
    tag_index = {tag: i for i, tag in enumerate(tags)}
    slugs = publisher_slugs(skills)
    keys = sorted(slugs)
    licences = sorted({str(s.get("license")) for s in skills if s.get("license")})
    publisher_index: dict[tuple[str, str] | None, int] = {key: i for i, key in enumerate(keys)}
    licence_index = {name: i for i, name in enumerate(licences)}
    titles, texts = titles or {}, texts or {}
    entries = [search_entry(s, bodies.get(s["name"], ""), tag_index, publisher_index, licence_index,
                            titles.get(s["name"]), texts.get(s["name"])) for s in skills]
    data = {"v": 3, "count": len(entries), "tags": tags,
            "publishers": [[name, slugs[(kind, name)]] for kind, name in keys], "licenses": licences,
            "names": "\n".join(e[0] for e in entries), "titles": "\n".join(e[4] for e in entries),
            "descriptions": "\n".join(e[2] for e in entries), "keywords": "\n".join(e[3] for e in entries),
            "skill_tags": [e[1] for e in entries], "facts": [n for e in entries for n in e[5:8]]}
    return data if publisher_pages is None else link_publisher_pages(data, publisher_pages)


def search_rows(data: dict) -> list[list]:
    """The columns of `data` read back as one row per skill (the shape `search_entry` returns): for tests and
    tools that look at one skill."""
    count = data["count"]
    columns = [data[key].split("\n") if count else [] for key in ("names", "descriptions", "keywords", "titles")]
    facts = data["facts"]
    return [[columns[0][i], data["skill_tags"][i], columns[1][i], columns[2][i], columns[3][i], *facts[3 * i:3 * i + 3]]
            for i in range(count)]


def link_publisher_pages(data: dict, pages: set[str]) -> dict:
    """`data` with a publisher's slug kept only when the site has its page (the builder knows once pages are made)."""
    return {**data, "publishers": [[name, slug if slug in pages else ""] for name, slug in data["publishers"]]}


def dump_search_data(data: dict) -> bytes:
    """Minified, stable bytes (UTF-8 kept: CJK costs 3 bytes a character instead of 6 as \\u escapes)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False).encode("utf-8") + b"\n"
