"""Each skill's story on its page (issue 37 item 3): its display title (`titles`), its publisher page
(`publishers`) and its version history (`history`), added to the entries the skill pages are rendered from as
`story` (pages.render_skill joins it to the view)."""

from __future__ import annotations

import hashlib
import json

from skillyard.site import history as site_history
from skillyard.site import publishers


def history_view(part: dict) -> dict:
    """`history.skill_history` with what the page shows of each entry: its date and short commits."""
    entries = [{**e, "date": e["listed_at"][:10], "short_commit": e["commit"][:12],
                "short_registry_commit": e["registry_commit"][:12]} for e in part["entries"]]
    return {**part, "entries": entries}


def story(skill: dict, title: str, table: dict, history: dict) -> dict:
    """What a skill page shows beyond `model.skill_view`: {title, publisher, history}."""
    return {"title": title, "publisher": publishers.publisher_link(skill, table),
            "history": history_view(site_history.skill_history(history, skill["name"]))}


def with_story(registry: dict, digests: dict[str, str], titles: dict[str, str],
               history: dict) -> tuple[dict, dict[str, str]]:
    """The registry the skill pages are rendered from, each entry with its `story`, and the page-cache digests to
    match (each entry's digest with its story's, so a page renders again when its story changes)."""
    table = publishers.slugs(registry["skills"])
    skills, out = [], dict(digests)
    for skill in registry["skills"]:
        told = story(skill, titles.get(skill["name"], skill["name"]), table, history)
        skill = {**skill, "story": told}
        extra = json.dumps(told, ensure_ascii=False, sort_keys=True).encode("utf-8")
        base = digests.get(skill["name"])
        out[skill["name"]] = hashlib.sha256((base or "").encode() + b"\0" + extra).hexdigest() if base else None
        skills.append(skill)
    return {**registry, "skills": skills}, {k: v for k, v in out.items() if v}
