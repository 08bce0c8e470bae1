"""What the search index needs of a cached registry, kept beside its registry.json as `search-rows.json`.

Rebuilding the index (after a registry refresh, another source's change, a new analyzer, a deleted index) needs
only each skill's name, description, version and tags. Parsing a 50,000-skill registry.json for them is about half
a second; this extract parses in about a fifth of that. It is written where a registry is parsed anyway (a refresh,
or an index build that had to parse it).

The file is a header line, {"format", "registry_sha256", "body_sha256"}, then the body: a JSON list with one object
per skill holding those four keys (as far as the skill has them). It is used only for the registry.json whose
sha256 it names, and only when its body hashes as recorded; anything else reads as "no extract" (the registry is
parsed, and the extract written again).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

FORMAT = 1
FILE_NAME = "search-rows.json"
FIELDS = ("name", "description", "version", "tags")


def rows_of(registry: dict) -> list[dict]:
    """Each skill of `registry` reduced to FIELDS, in the registry's order."""
    return [{key: skill[key] for key in FIELDS if key in skill} for skill in registry.get("skills", [])]


def write(directory: Path, registry_sha256: str, registry: dict) -> bool:
    """Store the extract of `registry` (whose registry.json hashes to `registry_sha256`); False if it cannot be."""
    try:
        body = json.dumps(rows_of(registry), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError, RecursionError):  # not JSON data (a lone surrogate, say): no extract
        return False
    header = {"format": FORMAT, "registry_sha256": registry_sha256, "body_sha256": hashlib.sha256(body).hexdigest()}
    from skillyard.fsutil import write_atomic

    try:
        write_atomic(directory / FILE_NAME, json.dumps(header).encode("ascii") + b"\n" + body, mode=0o600)
    except OSError:
        return False
    return True


def read(directory: Path, registry_sha256: str, max_bytes: int) -> list[dict] | None:
    """The stored rows for the registry.json hashing to `registry_sha256`, or None (missing, another registry,
    damaged, larger than `max_bytes`)."""
    try:
        with open(directory / FILE_NAME, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) > max_bytes:
        return None
    head, _, body = data.partition(b"\n")
    try:
        header = json.loads(head)
        if (not isinstance(header, dict) or header.get("format") != FORMAT or not registry_sha256
                or header.get("registry_sha256") != registry_sha256
                or header.get("body_sha256") != hashlib.sha256(body).hexdigest()):
            return None
        rows = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return None
    return rows
