"""Why each skill's files are not served (`publish.skill_problems`), kept between builds by registry entry.

The answer depends on the entry alone (its paths, names, sizes) and on the rules' code, yet checking every path
of every skill was about a tenth of a one-skill rebuild at 5,000 skills. The file holds each entry's answer under
its `page_cache.entry_digest` (and whether its upstream content was shown), with a fingerprint of the modules the
rules live in: other code, other file, every answer worked out again. Only this build's entries are kept.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from skillyard.fsutil import write_atomic

FORMAT = "skillyard-site-problems-1"


@cache
def fingerprint() -> str:
    from skillyard.format import paths, skill_archive
    from skillyard.site import publish

    digest = hashlib.sha256(FORMAT.encode())
    for module in (paths, skill_archive, publish):
        digest.update(Path(module.__file__).read_bytes() + b"\0")
    return digest.hexdigest()


def _strings(found: object) -> bool:
    return isinstance(found, list) and all(isinstance(item, str) for item in found)


def all_problems(skills: list[dict], digests: dict[str, str], shown: set[str], problems_of: Callable[[dict], list[str]],
                 path: Path | None) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """({name: problems_of(skill)}, {name: `publish.archive_problems`}) of every skill, answered from the file at
    `path` where it knows the entry (`digests`: each entry's digest; `shown`: the pointer skills whose upstream
    content this build shows)."""
    from skillyard.site.publish import archive_problems

    known: dict = {}
    if path is not None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict) and data.get("fingerprint") == fingerprint():
                known = data.get("problems") or {}
        except (OSError, ValueError):
            known = {}
    out, unpackable, kept = {}, {}, {}
    for skill in skills:
        name = skill["name"]
        key = f"{digests[name]}:{int(name in shown)}" if name in digests else None
        found = known.get(key) if key is not None else None
        if not (isinstance(found, list) and len(found) == 2 and all(map(_strings, found))):
            found = [problems_of(skill), archive_problems(skill)]
        out[name], unpackable[name] = found
        if key is not None:
            kept[key] = found
    if path is not None and kept != known:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"fingerprint": fingerprint(), "problems": kept}, ensure_ascii=False),
                     mode=0o600)
    return out, unpackable
