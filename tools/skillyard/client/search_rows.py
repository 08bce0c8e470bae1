"""What the search index needs of a cached registry, kept beside its registry.json as `search-rows.json`.

Rebuilding the index (after a registry refresh, another source's change, a new analyzer, a deleted index) needs
only each skill's name, description, version, tags and kind (own, or a pointer entry verified or not), as the index
stores them. Parsing a 50,000-skill
registry.json for them is about half a second; this extract parses in about a sixth of that, and holds each skill
already as the index's text (row()), so a rebuild does no per-skill work for it. It is written where a registry is
parsed anyway (a refresh, or an index build that had to parse it).

The file is a header line, {"format", "registry_sha256", "body_sha256"}, then the body: a JSON list with one
[name, description, version, tags, kind] list of strings per skill (row()). It is used only for the registry.json
whose sha256 it names, and only when its body hashes as recorded and holds such rows; anything else (an extract of
format 1 or 2, written by earlier clients, say) reads as "no extract" (the registry is parsed, and the extract written again).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

FORMAT = 3
FILE_NAME = "search-rows.json"
TAG_SEPARATOR = "\x1f"  # between a skill's tags in the stored list


def tag_text(tags) -> str:
    """A skill's tags as stored: joined by TAG_SEPARATOR, which a tag itself never contains (it becomes a space).
    One C-level join when the tags are plain strings, as they almost always are."""
    if not tags:
        return ""
    if type(tags) is list:  # a JSON list (anything else, a one-pass iterator say, takes the general path)
        try:
            text = TAG_SEPARATOR.join(tags)
            if text.count(TAG_SEPARATOR) == len(tags) - 1:
                return text
        except TypeError:  # not all strings
            pass
    return TAG_SEPARATOR.join(str(t).replace(TAG_SEPARATOR, " ") for t in tags)


KIND_OWN, KIND_POINTER, KIND_VERIFIED = "", "pointer", "verified"


def kind(skill: dict) -> str:
    """Own entry (""), pointer entry (`pointer`), or pointer entry whose pin a maintainer approved (`verified`)."""
    if "source_url" not in skill:
        return KIND_OWN
    return KIND_VERIFIED if skill.get("verified") is True else KIND_POINTER


def row(skill: dict) -> tuple:
    """(name, description, version, tags, kind) of a registry's skill, as the index stores and shows them; KeyError
    without a name."""
    return (skill["name"], str(skill.get("description", "")), str(skill.get("version", "")),
            tag_text(skill.get("tags")), kind(skill))


def rows_of(registry: dict) -> list[tuple]:
    """row() of each skill of `registry`, in the registry's order."""
    return [row(skill) for skill in registry.get("skills", [])]


def write(directory: Path, registry_sha256: str, registry: dict) -> bool:
    """Store the extract of `registry` (whose registry.json hashes to `registry_sha256`); False if it cannot be."""
    try:
        rows = rows_of(registry)
    except (KeyError, TypeError, ValueError, RecursionError):  # a skill without a name, say: no extract
        return False
    return write_rows(directory, registry_sha256, rows)


def write_rows(directory: Path, registry_sha256: str, rows: list[tuple]) -> bool:
    """Store `rows` (rows_of() the registry whose registry.json hashes to `registry_sha256`); False if they
    cannot be."""
    if not all(type(item[0]) is str for item in rows):
        return False  # an index build fails on such a name: let it, from the registry
    try:
        body = json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (TypeError, ValueError, RecursionError, UnicodeError):  # not JSON data (a lone surrogate, say)
        return False
    header = {"format": FORMAT, "registry_sha256": registry_sha256, "body_sha256": hashlib.sha256(body).hexdigest()}
    from skillyard.fsutil import write_atomic

    try:
        write_atomic(directory / FILE_NAME, json.dumps(header).encode("ascii") + b"\n" + body, mode=0o600)
    except OSError:
        return False
    return True


def read(directory: Path, registry_sha256: str, max_bytes: int) -> list[list[str]] | None:
    """The stored rows (see row()) for the registry.json hashing to `registry_sha256`, or None (missing, another
    registry, another format, damaged, larger than `max_bytes`)."""
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
    if type(rows) is not list or not all(_is_row(item) for item in rows):
        return None
    return rows


def _is_row(item) -> bool:
    return (type(item) is list and len(item) == 5 and all(type(value) is str for value in item)
            and item[4] in (KIND_OWN, KIND_POINTER, KIND_VERIFIED))
