"""Each skill's search text (`search_index.entry_text`: the description as shown and the body's keywords), kept
between builds so that a one-skill rebuild works out one skill's, not every skill's.

The text depends on the skill's name, description and tags and on its SKILL.md body only, so it is kept under a
hash of exactly those; the file carries a fingerprint of the code that makes the text (other code, every text
worked out again). Only this build's skills are kept. A text found here is the one `entry_text` would give, so the
search data never depends on the file.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from skillyard.fsutil import write_atomic
from skillyard.site import search_index

FORMAT = "skillyard-site-search-text-1"


@cache
def fingerprint() -> str:
    return hashlib.sha256(FORMAT.encode() + b"\0" + Path(search_index.__file__).read_bytes()).hexdigest()


def text_key(skill: dict, body: str) -> str:
    """A hash of what `entry_text` reads: the name, description and tags (as JSON: no two differ in one string)
    and the body."""
    head = json.dumps([skill["name"], skill.get("description", ""), skill.get("tags", [])], ensure_ascii=False)
    return hashlib.sha256(f"{head}\0{body}".encode("utf-8", "surrogatepass")).hexdigest()


def _pair(found: object) -> bool:
    return isinstance(found, list) and len(found) == 2 and all(isinstance(item, str) for item in found)


def entry_texts(skills: list[dict], bodies: dict[str, str], path: Path | None) -> dict[str, tuple[str, str]]:
    """{name: `search_index.entry_text(skill, body)`} of every skill, answered from the file at `path` where it
    knows the text (None: no file, everything worked out)."""
    known: dict = {}
    if path is not None:
        try:
            data = json.loads(path.read_bytes())
            if isinstance(data, dict) and data.get("fingerprint") == fingerprint() and isinstance(data.get("texts"), dict):
                known = data["texts"]
        except (OSError, ValueError):
            known = {}
    out, kept = {}, {}
    for skill in skills:
        body = bodies.get(skill["name"], "")
        key = text_key(skill, body)
        found = known.get(key)
        if not _pair(found):
            found = list(search_index.entry_text(skill, body))
        out[skill["name"]] = (found[0], found[1])
        kept[key] = found
    if path is not None and kept != known:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"fingerprint": fingerprint(), "texts": kept}, ensure_ascii=False,
                                      separators=(",", ":")), mode=0o600)
    return out
