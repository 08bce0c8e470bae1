"""The search-rows extract beside each cached registry (client/search_rows.py): an index built from it equals one
built from the registry itself, and it is used only for the very registry it was made from and only intact."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3

import pytest

from skillyard.client import search_rows
from skillyard.client.search import _build, build_index

REGISTRY = {"skills": [
    {"name": "b-tool", "description": "Second 处理发票.", "version": "1.0.0", "tags": ["x", "y\x1fz"], "path": "s/b",
     "files": [{"path": "SKILL.md", "size": 1, "sha256": "0" * 64}]},
    {"name": "a-tool", "description": "First", "version": "2.0.0", "inventory": {"total_files": 1}},
]}


def test_rows_keep_what_the_index_reads_and_nothing_else():
    """Each skill as the index stores its text: (name, description, version, tags joined as _tag_text joins them,
    kind: own, pointer, or verified pointer)."""
    assert search_rows.rows_of(REGISTRY) == [("b-tool", "Second 处理发票.", "1.0.0", "x\x1fy z", ""),
                                             ("a-tool", "First", "2.0.0", "", "")]
    assert search_rows.rows_of({}) == []
    assert search_rows.row({"name": "n", "description": 7, "version": 1.5, "tags": ["a", 2]}) == ("n", "7", "1.5",
                                                                                                  "a\x1f2", "")
    pointer = {"name": "p", "source_url": "https://github.com/o/r"}
    assert search_rows.row(pointer)[4] == "pointer" == search_rows.row({**pointer, "verified": "yes"})[4]
    assert search_rows.row({**pointer, "verified": True})[4] == "verified"
    assert search_rows.row({"name": "own", "verified": True})[4] == ""  # only a pointer entry is verified or not


def test_an_index_from_the_extract_is_the_index_from_the_registry(tmp_path):
    assert search_rows.write(tmp_path, "abc", REGISTRY)
    rows = search_rows.read(tmp_path, "abc", 1 << 20)
    build_index(tmp_path / "from-registry.sqlite", [("main", 100, s) for s in REGISTRY["skills"]])
    _build(tmp_path / "from-extract.sqlite", [("main", 100, s) for s in rows])
    assert (tmp_path / "from-registry.sqlite").read_bytes() == (tmp_path / "from-extract.sqlite").read_bytes()


def test_only_the_registry_it_was_made_from_and_only_intact(tmp_path):
    assert search_rows.write(tmp_path, "abc", REGISTRY)
    path = tmp_path / search_rows.FILE_NAME
    good = path.read_bytes()
    assert search_rows.read(tmp_path, "abc", len(good)) is not None
    assert search_rows.read(tmp_path, "abd", len(good)) is None  # another registry
    assert search_rows.read(tmp_path, "", len(good)) is None
    assert search_rows.read(tmp_path, "abc", len(good) - 1) is None  # over the size bound
    head, _, body = good.partition(b"\n")
    for damaged in (good[:-3], head + b"\n" + body.replace(b"First", b"Fir5t"), b"{" + good, good.replace(b"\n", b" ", 1),
                    b"", head.replace(b'"format": 3', b'"format": 2') + b"\n" + body):
        path.write_bytes(damaged)
        assert search_rows.read(tmp_path, "abc", 1 << 20) is None, damaged[:80]
    header = json.loads(head)
    for body in (b"{}", b"[1, 2]", b"[" * 100_000, b'[{"name": "a"}]', b'[["a", "b", "c", "d"]]',
                 b'[["a", "b", "c", "d", 1]]', b'[[1, "b", "c", "d", ""]]', b'[["a", "b", "c", "d", "e"]]',
                 b'[["a", "b", "c", "d", "", "f"]]'):
        path.write_bytes(json.dumps({**header, "body_sha256": hashlib.sha256(body).hexdigest()}).encode() + b"\n" + body)
        assert search_rows.read(tmp_path, "abc", 1 << 20) is None
    assert search_rows.read(tmp_path / "missing", "abc", 1 << 20) is None


def test_what_json_cannot_hold_or_an_unwritable_folder_means_no_extract(tmp_path):
    assert not search_rows.write(tmp_path, "abc", {"skills": [{"name": "\ud800"}]})
    assert not search_rows.write(tmp_path, "abc", {"skills": [{"description": "no name"}]})
    assert not search_rows.write(tmp_path, "abc", {"skills": [{"name": 7}]})  # the build refuses it, from the registry
    (tmp_path / "file").write_text("")
    assert not search_rows.write(tmp_path / "file" / "below", "abc", REGISTRY)
    assert not (tmp_path / search_rows.FILE_NAME).exists()


def _index_rows(config) -> list:
    [index] = list((config.cache_dir / "search").glob("*.sqlite"))
    with sqlite3.connect(index) as db:
        return db.execute("SELECT * FROM skills ORDER BY id").fetchall() + \
            db.execute("SELECT * FROM terms ORDER BY term").fetchall()


@pytest.fixture
def searched(published, skill_cli):
    from skillyard.client.config import load_config

    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    config = load_config()
    extract = config.cache_dir / "registries" / "acme" / search_rows.FILE_NAME
    assert extract.is_file()  # written by the refresh that stored the registry
    assert skill_cli("search", "invoice", "--json").code == 0
    return config, extract, _index_rows(config), skill_cli("search", "pdf", "--json").out


def test_a_rebuilt_index_from_the_extract_equals_the_first_one(searched, skill_cli, monkeypatch):
    config, extract, first, answer = searched
    shutil.rmtree(config.cache_dir / "search")

    def no_registry_parse(*args, **kwargs):
        raise AssertionError("the registry was parsed although its extract is intact")

    monkeypatch.setattr("skillyard.client.cache._load_verified", no_registry_parse)
    assert skill_cli("search", "pdf", "--json").out == answer
    assert _index_rows(config) == first


def test_a_damaged_extract_is_ignored_and_written_again(searched, skill_cli):
    config, extract, first, answer = searched
    good = extract.read_bytes()
    extract.write_bytes(good.replace(b"invoice", b"invoize"))
    shutil.rmtree(config.cache_dir / "search")
    assert skill_cli("search", "pdf", "--json").out == answer
    assert _index_rows(config) == first and extract.read_bytes() == good


def test_the_extract_of_an_older_registry_is_not_used(searched, skill_cli):
    config, extract, first, answer = searched
    meta_path = extract.parent / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    registry = json.loads((extract.parent / "registry.json").read_text(encoding="utf-8"))
    registry["skills"][0]["description"] = "Now about zeppelins."
    body = json.dumps(registry).encode()
    (extract.parent / "registry.json").write_bytes(body)
    stat = (extract.parent / "registry.json").stat()
    meta.update(sha256=hashlib.sha256(body).hexdigest(), size=stat.st_size, mtime_ns=stat.st_mtime_ns)
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    shutil.rmtree(config.cache_dir / "search")
    out = json.loads(skill_cli("search", "zeppelins", "--json").out)
    assert [hit["name"] for hit in out["results"]] == [registry["skills"][0]["name"]]
    assert json.loads(extract.read_bytes().partition(b"\n")[0])["registry_sha256"] == meta["sha256"]
