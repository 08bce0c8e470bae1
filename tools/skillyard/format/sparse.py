"""The sparse index: registry.json cut into small files, so a client refreshing a large registry downloads only what
changed, and an install of one skill fetches only that skill's entry (the idea of crates.io's sparse index).

    sparse/index.json                   the root: registry header + the hash of each of 256 shards
    sparse/shards/<xx>.json             the skills whose name hashes to shard xx: {name: hash of its entry}
    sparse/skills/<prefix>/<name>.json  one skill's entry, byte for byte the object registry.json lists

A skill's shard is the first byte of sha256(name), in hex; its prefix folder is the crates.io layout (`1/`, `2/`,
`3/a/`, `ab/cd/`). Hashes are sha256 of a file's bytes, cut to 16 hex digits: enough to tell versions of one file
apart, small enough that the root stays a few kilobytes at any size. A refresh after one skill changed reads the
root, one shard and one entry (measured: benchmarks/bench_sparse.py). registry.json stays for every other client.
Pure: registry dict in, {relative path: bytes} out.
"""

from __future__ import annotations

import hashlib
import json

SCHEMA_VERSION = "1.0"
SHARDS = 256
HASH_DIGITS = 16
HEADER_KEYS = ("name", "description", "homepage", "repository")


def _bytes(document: object) -> bytes:
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def short_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_DIGITS]


def shard_of(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:2]


def entry_path(name: str) -> str:
    """Where a skill's entry lives, relative to the folder that holds the root `index.json`."""
    if len(name) <= 2:
        prefix = str(len(name))
    elif len(name) == 3:
        prefix = f"3/{name[0]}"
    else:
        prefix = f"{name[:2]}/{name[2:4]}"
    return f"skills/{prefix}/{name}.json"


def sparse_files(registry: dict) -> dict[str, bytes]:
    """Every file of the sparse index for `registry` (paths relative to the sparse folder). Same registry, same
    bytes. A name listed twice (never in a registry we build) keeps its first entry."""
    files: dict[str, bytes] = {}
    shards: dict[str, dict[str, str]] = {f"{i:02x}": {} for i in range(SHARDS)}
    for skill in registry.get("skills", []):
        name = skill["name"]
        shard = shards[shard_of(name)]
        if name in shard:
            continue
        data = _bytes(skill)
        files[entry_path(name)] = data
        shard[name] = short_hash(data)
    root_shards = {}
    for key, listing in shards.items():
        data = _bytes({"skills": dict(sorted(listing.items()))})
        files[f"shards/{key}.json"] = data
        root_shards[key] = short_hash(data)
    header = {key: registry[key] for key in HEADER_KEYS if key in registry}
    files["index.json"] = _bytes({"schema_version": SCHEMA_VERSION, "kind": "skillyard-sparse-index",
                                  "skills": sum(map(len, shards.values())), **header, "shards": root_shards})
    return dict(sorted(files.items()))
