"""The sparse index layout (format/sparse.py): deterministic, complete, and a one-skill change touches one entry,
one shard and the root."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from skillyard.format.sparse import entry_path, shard_of, short_hash, sparse_files


def registry(skills: list[dict]) -> dict:
    return {"schema_version": "1.0", "name": "team", "description": "d", "skills": skills,
            "repository": {"url": "https://example.invalid/r", "raw_url_template": "https://h/{commit}/{path}"}}


def skill(name: str, version: str = "1.0.0") -> dict:
    return {"name": name, "version": version, "description": f"About {name}."}


SKILLS = [skill(n) for n in ("a", "ab", "abc", "pdf-tools", "invoice-processor", "commit-writer")]


def test_layout_follows_the_crates_io_prefixes():
    assert [entry_path(n) for n in ("a", "ab", "abc", "pdf-tools")] == [
        "skills/1/a.json", "skills/2/ab.json", "skills/3/a/abc.json", "skills/pd/f-/pdf-tools.json"]


def test_every_entry_is_the_registry_object_and_the_root_lists_every_shard():
    files = sparse_files(registry(SKILLS))
    root = json.loads(files["index.json"])
    assert root["kind"] == "skillyard-sparse-index" and root["name"] == "team" and root["skills"] == len(SKILLS)
    assert len(root["shards"]) == 256
    for key, digest in root["shards"].items():
        assert short_hash(files[f"shards/{key}.json"]) == digest
    for entry in SKILLS:
        assert json.loads(files[entry_path(entry["name"])]) == entry
        listing = json.loads(files[f"shards/{shard_of(entry['name'])}.json"])["skills"]
        assert listing[entry["name"]] == short_hash(files[entry_path(entry["name"])])
    assert sparse_files(registry(list(reversed(SKILLS)))) == files  # order of the input does not matter


def test_a_change_to_one_skill_changes_one_entry_one_shard_and_the_root():
    before = sparse_files(registry(SKILLS))
    after = sparse_files(registry([*SKILLS[:3], skill("pdf-tools", "1.1.0"), *SKILLS[4:]]))
    changed = sorted(path for path in before if before[path] != after.get(path))
    assert changed == sorted(["index.json", f"shards/{shard_of('pdf-tools')}.json", entry_path("pdf-tools")])


@given(st.lists(st.from_regex(r"[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?", fullmatch=True), unique=True, max_size=30))
def test_any_set_of_names_round_trips(names):
    files = sparse_files(registry([skill(n) for n in names]))
    shards = [json.loads(files[f"shards/{i:02x}.json"])["skills"] for i in range(256)]
    assert sorted(name for listing in shards for name in listing) == sorted(names)
    assert len({entry_path(n) for n in names}) == len(names)


def test_the_root_counts_each_name_once():
    """A name listed twice keeps its first entry, and the root's count agrees with the shards (clients check it)."""
    files = sparse_files(registry([*SKILLS, skill("pdf-tools", "9.0.0")]))
    assert json.loads(files["index.json"])["skills"] == len(SKILLS)
    assert json.loads(files[entry_path("pdf-tools")])["version"] == "1.0.0"
