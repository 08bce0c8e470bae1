"""A source that is a sparse index (issue 14 target 5): mirrored file by file over real HTTP on 127.0.0.1 — a refresh
after one change fetches the root, one shard and one entry; and a hostile index is refused with a clear message
while the previous cache stays exactly as it was."""

from __future__ import annotations

import gzip
import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.client import cache, sparse
from skillyard.client.config import Source, load_config
from skillyard.errors import SkillyardError
from skillyard.format.sparse import _bytes as canonical
from skillyard.format.sparse import entry_path, shard_of, short_hash

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_sparse.py"
ROOT = "/site/sparse/index.json"
COUNT = 300


def _bench():
    spec = importlib.util.spec_from_file_location("bench_sparse", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCHMOD = _bench()


@pytest.fixture
def served(skill_home):
    registry = BENCHMOD.synthetic_registry(COUNT)
    with BENCHMOD.StaticServer() as server:
        server.publish(registry)
        server.registry = registry
        yield server


def _source(server) -> Source:
    return Source("site", f"{server.url}{ROOT}")


def _mirror(server):
    config = load_config()
    entry = cache.refresh_source(config, _source(server))
    server.take_log()
    return config, entry


def _snapshot(config) -> dict[str, bytes]:
    folder = cache.source_dir(config, "site")
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _sparse_path(rel: str) -> str:
    return f"/site/sparse/{rel}"


def _set_shard(server, key: str, data: bytes) -> None:
    """Replace a shard and make the root list its new hash (so the refresh gets as far as reading it)."""
    server.files[_sparse_path(f"shards/{key}.json")] = data
    root = json.loads(server.files[ROOT])
    root["shards"][key] = short_hash(data)
    server.files[ROOT] = canonical(root)


def _set_entry(server, name: str, data: bytes, *, listed: str | None = None) -> None:
    """Replace an entry's bytes; the shard lists `listed` (default: the new bytes' true hash)."""
    server.files[_sparse_path(entry_path(name))] = data
    key = shard_of(name)
    listing = json.loads(server.files[_sparse_path(f"shards/{key}.json")])["skills"]
    listing[name] = listed or short_hash(data)
    _set_shard(server, key, canonical({"skills": dict(sorted(listing.items()))}))


def _paths(log) -> list[str]:
    return sorted(path for path, _, _ in log)


def test_add_then_refresh_after_one_change_fetches_root_one_shard_one_entry(served, skill_cli):
    result = skill_cli("source", "add", f"{served.url}{ROOT}", "--name", "site")
    assert result.code == 0, result.err
    assert f"{COUNT} skills" in result.out
    first = served.take_log()
    # A first mirror: the root, the 256 shards and registry.json beside them (entries verified by hash), no entry.
    assert not [p for p in _paths(first) if "/skills/" in p]
    assert "/site/registry.json" in _paths(first)

    name = served.registry["skills"][123]["name"]
    served.publish(BENCHMOD.changed_one(served.registry, 123))
    result = skill_cli("source", "refresh", "site")
    assert result.code == 0, result.err
    log = served.take_log()
    assert _paths(log) == sorted([ROOT, _sparse_path(f"shards/{shard_of(name)}.json"),
                                  _sparse_path(entry_path(name))])
    downloaded = sum(size for _, _, size in log)
    plain = served.files["/site/registry.json"]
    assert downloaded < 10_000 and downloaded * 5 < len(gzip.compress(plain))  # the root (~3 KB) is most of it

    (loaded,) = cache.load_registries(load_config())
    skills = {s["name"]: s for s in loaded.registry["skills"]}
    assert skills[name]["version"] == "9.9.9" and len(skills) == COUNT
    assert loaded.registry["skills"] == sorted(loaded.registry["skills"], key=lambda s: s["name"])
    assert {k: v for k, v in loaded.registry.items() if k != "skills"} == \
        {k: v for k, v in served.registry.items() if k != "skills"}

    result = skill_cli("info", name, "--json")
    assert result.code == 0 and "9.9.9" in result.out, result.err

    # Nothing changed: one conditional request, answered 304.
    result = skill_cli("source", "refresh", "site")
    assert result.code == 0
    assert [(path, status) for path, status, _ in served.take_log()] == [(ROOT, 304)]


def test_the_mirror_equals_registry_json_and_a_removed_skill_disappears(served):
    config, entry = _mirror(served)
    assert entry.registry()["skills"] == served.registry["skills"]
    gone = served.registry["skills"][7]["name"]
    smaller = {**served.registry, "skills": [s for s in served.registry["skills"] if s["name"] != gone]}
    served.publish(smaller)
    entry = cache.refresh_source(config, _source(served), cached=entry)
    assert _paths(served.take_log()) == sorted([ROOT, _sparse_path(f"shards/{shard_of(gone)}.json")])
    (loaded,) = cache.load_registries(config, sources=[_source(served)])
    assert loaded.registry["skills"] == smaller["skills"]


def test_a_lost_state_file_is_rebuilt_from_the_registry_and_stays_incremental(served):
    config, entry = _mirror(served)
    (cache.source_dir(config, "site") / sparse.STATE).unlink()
    served.publish(BENCHMOD.changed_one(served.registry, 5))
    cache.refresh_source(config, _source(served), cached=cache.sync(config, offline=True, sources=[_source(served)])[0])
    assert len(served.take_log()) == 3


def test_a_kill_between_the_writes_leaves_a_complete_cache(served, monkeypatch):
    config, entry = _mirror(served)
    served.publish(BENCHMOD.changed_one(served.registry, 9))
    real = sparse.write_atomic

    def dies_after_the_registry(path, data, **kwargs):
        if Path(path).name != "registry.json":
            raise KeyboardInterrupt
        return real(path, data, **kwargs)

    monkeypatch.setattr(sparse, "write_atomic", dies_after_the_registry)
    with pytest.raises(KeyboardInterrupt):
        cache.refresh_source(config, _source(served), cached=entry)
    monkeypatch.setattr(sparse, "write_atomic", real)
    (loaded,) = cache.load_registries(config, offline=True, warn=lambda message: None, sources=[_source(served)])
    assert len(loaded.registry["skills"]) == COUNT  # complete: the old copy or the new one, never a part
    cached = cache.sync(config, offline=True, sources=[_source(served)])[0]
    entry = cache.refresh_source(config, _source(served), cached=cached)
    assert entry.registry()["skills"][9]["version"] == "9.9.9"


def _hostile_cases():
    def wrong_hash(server):
        name = server.registry["skills"][3]["name"]
        _set_entry(server, name, canonical({**server.registry["skills"][3], "description": "swapped"}),
                   listed="0" * 16)
        return "does not match the hash"

    def dot_dot_name(server):
        key = shard_of("x")
        listing = json.loads(server.files[_sparse_path(f"shards/{key}.json")])["skills"]
        _set_shard(server, key, canonical({"skills": {**listing, "../../evil": "0" * 16}}))
        return "not a skill name"

    def a_million_names(server):
        data = canonical({"skills": {f"n{i:07d}": "0" * 16 for i in range(1_000_000)}})
        _set_shard(server, "00", data)
        return "larger than the limit"

    def oversized_entry(server):
        skill = server.registry["skills"][4]
        _set_entry(server, skill["name"], canonical({**skill, "description": "x" * (2 * 1024 * 1024)}))
        return "larger than the limit"

    def root_not_json(server):
        server.files[ROOT] = b"<html>skillyard-sparse-index</html>"
        return "not valid JSON"

    def root_without_shards(server):
        root = json.loads(server.files[ROOT])
        del root["shards"]["7f"]
        server.files[ROOT] = canonical(root)
        return "256 shards"

    def name_in_the_wrong_shard(server):
        name = server.registry["skills"][0]["name"]
        other = f"{int(shard_of(name), 16) ^ 1:02x}"
        listing = json.loads(server.files[_sparse_path(f"shards/{other}.json")])["skills"]
        _set_shard(server, other, canonical({"skills": {**listing, name: "0" * 16}}))
        return "belongs to shard"

    def entry_breaks_the_schema(server):
        skill = server.registry["skills"][5]
        _set_entry(server, skill["name"], canonical({**skill, "version": 3}))
        return "does not match registry.schema.json"

    def entry_of_another_name(server):
        skill = server.registry["skills"][6]
        _set_entry(server, skill["name"], canonical({**skill, "name": "someone-else"}))
        return "is not the entry of"

    def count_disagrees(server):
        root = json.loads(server.files[ROOT])
        root["skills"] += 1
        server.files[ROOT] = canonical(root)
        return "the root says"

    return [wrong_hash, dot_dot_name, a_million_names, oversized_entry, root_not_json, root_without_shards,
            name_in_the_wrong_shard, entry_breaks_the_schema, entry_of_another_name, count_disagrees]


@pytest.mark.parametrize("attack", _hostile_cases(), ids=lambda f: f.__name__)
def test_a_hostile_index_is_refused_and_the_previous_cache_kept(served, attack, skill_cli):
    config, entry = _mirror(served)
    before = _snapshot(config)
    served.publish(BENCHMOD.changed_one(served.registry, 1))  # a genuine change too: the attack rides along
    expected = attack(served)
    with pytest.raises(SkillyardError) as raised:
        cache.refresh_source(config, _source(served), cached=entry)
    assert expected in raised.value.message
    assert _snapshot(config) == before
    assert not list(cache.source_dir(config, "site").glob(".*.tmp"))
    assert not (skill_home_root(config) / "evil").exists()
    # The command line says the same, without a traceback, and keeps the cache.
    source_add = skill_cli("source", "add", f"{served.url}{ROOT}", "--name", "site2")
    assert source_add.code != 0 and "Traceback" not in source_add.err and "error:" in source_add.err
    assert not cache.source_dir(config, "site2").exists()
    assert _snapshot(config) == before


def skill_home_root(config) -> Path:
    return Path(config.cache_dir).parent


def test_an_entry_that_differs_in_registry_json_is_fetched_from_the_index(served):
    tampered = json.loads(served.files["/site/registry.json"])
    tampered["skills"][2]["description"] = "not what the shard lists"
    served.files["/site/registry.json"] = json.dumps(tampered).encode()
    config, entry = _mirror(served)
    assert entry.registry()["skills"] == served.registry["skills"]


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                 max_size=4), max_leaves=20))
def test_parse_shard_accepts_only_plain_names_of_its_shard(document):
    body = json.dumps({"skills": document} if isinstance(document, dict) else document).encode()
    source = Source("s", "https://example.invalid/sparse/index.json")
    try:
        listing = sparse.parse_shard(source, "https://example.invalid/shards/00.json", "00", body)
    except SkillyardError as exc:
        assert "refused" in exc.message
        return
    assert all(shard_of(name) == "00" and sparse._HASH.match(digest) for name, digest in listing.items())


def test_a_stale_cache_checks_only_the_entry_an_install_needs(served, monkeypatch):
    config, entry = _mirror(served)
    monkeypatch.setenv("SKILL_CACHE_TTL", "0")
    config = load_config()
    name = served.registry["skills"][50]["name"]
    served.publish(BENCHMOD.changed_one(served.registry, 50))
    (loaded,) = cache.load_registries(config, sources=[_source(served)], only=name)
    assert [(p, status) for p, status, _ in served.take_log()] == [(_sparse_path(entry_path(name)), 200)]
    assert next(s for s in loaded.registry["skills"] if s["name"] == name)["version"] == "9.9.9"
    # Asked again: a conditional request, answered 304.
    (loaded,) = cache.load_registries(config, sources=[_source(served)], only=name)
    assert [(p, status) for p, status, _ in served.take_log()] == [(_sparse_path(entry_path(name)), 304)]
    # A full refresh afterwards reads the root and that entry's shard again, and nothing else.
    cache.load_registries(config, sources=[_source(served)])
    assert _paths(served.take_log()) == sorted([ROOT, _sparse_path(f"shards/{shard_of(name)}.json")])
    (loaded,) = cache.load_registries(load_config(), offline=True, sources=[_source(served)])
    assert loaded.registry["skills"] == BENCHMOD.changed_one(served.registry, 50)["skills"]


def test_an_entry_check_that_fails_falls_back_to_a_full_refresh(served, monkeypatch):
    config, entry = _mirror(served)
    monkeypatch.setenv("SKILL_CACHE_TTL", "0")
    name = served.registry["skills"][60]["name"]
    served.files[_sparse_path(entry_path(name))] = canonical({**served.registry["skills"][60], "name": "other"})
    cache.load_registries(load_config(), sources=[_source(served)], only=name)
    # The entry did not verify: the whole (unchanged) index was asked, and the good copy kept.
    assert ROOT in _paths(served.take_log())
    (loaded,) = cache.load_registries(load_config(), offline=True, sources=[_source(served)])
    assert loaded.registry["skills"] == served.registry["skills"]


def test_a_static_hosts_relative_template_points_beside_registry_json(skill_home):
    from skillyard.client.resolve import file_url

    registry = BENCHMOD.synthetic_registry(20)
    registry["repository"] = {"url": "", "raw_url_template": "{path}"}
    with BENCHMOD.StaticServer() as server:
        server.publish(registry)
        entry = cache.refresh_source(load_config(), Source("site", f"{server.url}{ROOT}"))
        mirrored = entry.registry()
        skill = mirrored["skills"][0]
        assert mirrored["repository"]["raw_url_template"] == f"{server.url}/site/{{path}}"
        assert file_url(mirrored, skill, "SKILL.md", base=f"{server.url}{ROOT}") == \
            f"{server.url}/site/{skill['path']}/SKILL.md"


def test_install_from_a_sparse_source_end_to_end(published, skill_cli, tmp_path, monkeypatch):
    from skillyard.format.sparse import sparse_files

    server = published.server
    server.commit("acme", "skills", {f"sparse/{rel}": data for rel, data in sparse_files(published.registry).items()})
    url = server.raw_url("acme", "skills", "main", "sparse/index.json")
    result = skill_cli("source", "add", url)
    assert result.code == 0, result.err
    assert "added source 'acme'" in result.out and "3 skills" in result.out  # the registry's own name
    monkeypatch.chdir(tmp_path)
    result = skill_cli("install", "pdf-tools")
    assert result.code == 0, result.err
    result = skill_cli("list", "--json")
    assert [s["name"] for s in json.loads(result.out)["skills"]] == ["pdf-tools"]


def test_looking_up_a_name_the_index_lacks_costs_one_request(served, monkeypatch):
    config, entry = _mirror(served)
    monkeypatch.setenv("SKILL_CACHE_TTL", "0")
    cache.load_registries(load_config(), sources=[_source(served)], only="no-such-skill")
    assert [(p, status) for p, status, _ in served.take_log()] == [(_sparse_path(entry_path("no-such-skill")), 404)]
    # A name that is no skill name never becomes a path: the index is refreshed as a whole instead.
    cache.load_registries(load_config(), sources=[_source(served)], only="../../etc/passwd")
    assert _paths(served.take_log()) == [ROOT]


def test_a_damaged_state_file_never_puts_its_names_into_a_path(served):
    config, entry = _mirror(served)
    path = cache.source_dir(config, "site") / sparse.STATE
    state = json.loads(path.read_text())
    state["entries"]["../../outside"] = "0" * 16
    path.write_text(json.dumps(state))
    served.publish(BENCHMOD.changed_one(served.registry, 11))
    entry = cache.refresh_source(config, _source(served), cached=entry)
    assert not [p for p in _paths(served.take_log()) if "outside" in p]
    assert entry.registry()["skills"] == BENCHMOD.changed_one(served.registry, 11)["skills"]


@pytest.mark.parametrize("damage", [
    {"shards": {"00": "bad"}}, {"etags": [1]}, {"etags": {"x": 5}}, {"root_url": 7}, {"shards": {"00": {"etag": 3}}},
    {"entries": {"ok-name": 5}},
])
def test_a_state_file_of_the_wrong_shape_is_rebuilt_not_a_traceback(served, damage):
    config, entry = _mirror(served)
    path = cache.source_dir(config, "site") / sparse.STATE
    path.write_text(json.dumps({**json.loads(path.read_text()), **damage}))
    served.publish(BENCHMOD.changed_one(served.registry, 12))
    entry = cache.refresh_source(config, _source(served), cached=entry)
    assert entry.registry()["skills"] == BENCHMOD.changed_one(served.registry, 12)["skills"]


def test_resolving_a_name_from_a_stale_sparse_cache_fetches_only_its_entry(served, skill_cli, monkeypatch):
    from skillyard.client.resolve import resolve

    assert skill_cli("source", "add", f"{served.url}{ROOT}", "--name", "site").code == 0
    served.take_log()
    monkeypatch.setenv("SKILL_CACHE_TTL", "0")
    name = served.registry["skills"][70]["name"]
    served.publish(BENCHMOD.changed_one(served.registry, 70))
    found = resolve(name, load_config())
    assert found.version == "9.9.9"
    assert [(p, status) for p, status, _ in served.take_log()] == [(_sparse_path(entry_path(name)), 200)]
