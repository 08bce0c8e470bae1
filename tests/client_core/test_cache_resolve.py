"""Sources, cache and resolve against a real registry served by GitServer."""

import json
import time

import pytest
from tests.support.fixtures import SAMPLE_SKILLS
from tests.support.registry import publish_registry, registry_url

from skillyard.client import cache, resolve, sources
from skillyard.client.config import load_config
from skillyard.client.http import FetchError
from skillyard.errors import SkillyardError


def add(url, name=None, token_env=None):
    cfg = load_config()
    source = sources.new_source(cfg, url, name=name, token_env=token_env)
    sources.add_source(source)
    return source


def test_load_then_304(published):
    add(published.url, name="acme")
    cfg = load_config()
    [first] = cache.load_registries(cfg, refresh=True)
    assert first.registry == published.registry and not first.stale
    [second] = cache.load_registries(cfg, refresh=True)
    assert second.registry == published.registry
    statuses = [r.status for r in published.server.requests("registry.json")]
    assert statuses == [200, 304]
    assert published.server.log[-1].header("If-None-Match")
    # within the TTL nothing is asked at all
    cache.load_registries(cfg)
    assert len(published.server.requests("registry.json")) == 2


def test_resolve_and_file_url(published):
    add(published.url, name="acme")
    cfg = load_config()
    found = resolve.resolve("invoice-processor", cfg)
    assert found.source.name == "acme" and found.version == "1.2.0"
    url = found.file_url("scripts/extract.py")
    assert url == f"{published.server.url}/acme/skills/{found.skill['commit']}/skills/invoice-processor/scripts/extract.py"
    import urllib.request

    with urllib.request.urlopen(url, timeout=5) as resp:
        assert resp.read() == b"print('extract')\n"
    assert resolve.resolve("invoice-processor@v1.2.0", cfg).version == "1.2.0"
    assert resolve.resolve("invoice-processor@acme", cfg).source.name == "acme"
    with pytest.raises(SkillyardError, match=r"available versions: 1\.2\.0 \(acme\)"):
        resolve.resolve("invoice-processor@9.9.9", cfg)
    with pytest.raises(SkillyardError, match="no skill named 'nope'"):
        resolve.resolve("nope", cfg)
    with pytest.raises(SkillyardError, match="climbs out of the folder"):
        found.file_url("../../etc/passwd")


def test_private_source_wins_and_token_stays_home(published, other_server, monkeypatch):
    private = dict(SAMPLE_SKILLS[1], version="9.0.0", description="Private fork of the PDF tools.")
    publish_registry(other_server, "corp", "private", [private], name="corp")
    other_server.require_token("corp", "private", "tok-123")
    monkeypatch.setenv("CORP_TOKEN", "tok-123")
    add(registry_url(other_server, "corp", "private"), name="corp", token_env="CORP_TOKEN")
    add(published.url, name="acme")  # added later: lower priority
    cfg = load_config()
    assert [s.name for s in cfg.sources] == ["corp", "acme"]
    found = resolve.resolve("pdf-tools", cfg)
    assert (found.source.name, found.version) == ("corp", "9.0.0")
    assert [(s.name, k["version"]) for s, k in found.others] == [("acme", "0.3.1")]
    assert resolve.resolve("pdf-tools@acme", cfg).version == "0.3.1"
    assert resolve.resolve("pdf-tools", cfg, source="acme").version == "0.3.1"
    assert all(r.header("Authorization") is None for r in published.server.log)
    assert all(r.header("Authorization") == "Bearer tok-123" for r in other_server.log)
    text = cfg.path.read_text()
    assert "tok-123" not in text and "CORP_TOKEN" in text
    for path in cfg.home.rglob("*"):
        if path.is_file():
            assert b"tok-123" not in path.read_bytes(), path
    assert found.token_for(found.file_url("SKILL.md")) is None  # raw host differs from the private source host


def test_token_not_forwarded_on_redirect(published, other_server, monkeypatch):
    other_server.create_repo("acme", "skills", {"registry.json": json.dumps(published.registry)})
    published.server.redirect_to("/acme/skills/", other_server.url)
    monkeypatch.setenv("ACME_TOKEN", "tok-xyz")
    add(published.url, name="acme", token_env="ACME_TOKEN")
    [item] = cache.load_registries(load_config(), refresh=True)
    assert item.registry["name"] == "acme"
    assert published.server.log[0].header("Authorization") == "Bearer tok-xyz"
    assert other_server.log and all(r.header("Authorization") is None for r in other_server.log)


def test_missing_token_gives_clear_error_without_secret(published, monkeypatch):
    published.server.require_token("acme", "skills", "right")
    monkeypatch.setenv("ACME_TOKEN", "wrong-token-value")
    add(published.url, name="acme", token_env="ACME_TOKEN")
    with pytest.raises(FetchError) as info:
        cache.load_registries(load_config(), refresh=True)
    assert info.value.kind == "auth" and "401" in str(info.value)
    assert "wrong-token-value" not in str(info.value)


def test_retry_after_500(published):
    add(published.url, name="acme")
    published.server.fail_next(2, 500)
    [item] = cache.load_registries(load_config())
    assert item.registry["name"] == "acme"
    assert [r.status for r in published.server.log] == [500, 500, 200]


def test_truncated_keeps_old_cache(published):
    add(published.url, name="acme")
    cfg = load_config()
    cache.load_registries(cfg, refresh=True)
    before = (cache.source_dir(cfg, "acme") / "registry.json").read_bytes()
    publish_registry(published.server, "acme", "skills", SAMPLE_SKILLS[:1], name="acme")  # a change to fetch
    published.server.truncate_next(10)
    src = cfg.sources[0]
    with pytest.raises(FetchError, match="cut off") as info:
        cache.refresh_source(cfg, src, cached=cache.sync(cfg, offline=True)[0])
    assert info.value.kind == "truncated"
    assert (cache.source_dir(cfg, "acme") / "registry.json").read_bytes() == before
    warnings = []
    [item] = cache.load_registries(cfg, refresh=True, warn=warnings.append)
    assert item.stale and len(item.registry["skills"]) == 3
    assert "cut off" in warnings[0]


def test_429_honoured(published):
    add(published.url, name="acme")
    published.server.rate_limit_next(1, retry_after=1)
    started = time.monotonic()
    cache.load_registries(load_config())
    assert time.monotonic() - started >= 0.95
    assert [r.status for r in published.server.log] == [429, 200]


def test_hang_times_out(published, monkeypatch):
    monkeypatch.setenv("SKILL_HTTP_TIMEOUT", "0.5")
    add(published.url, name="acme")
    published.server.hang_next(1, seconds=3)
    started = time.monotonic()
    with pytest.raises(FetchError, match="timed out"):
        cache.load_registries(load_config())
    assert time.monotonic() - started < 2.5


def test_network_down_uses_cache_with_warning(published):
    add(published.url, name="acme")
    cfg = load_config()
    cache.load_registries(cfg)
    published.server.stop()
    warnings = []
    [item] = cache.load_registries(cfg, refresh=True, warn=warnings.append)
    assert item.stale and item.registry["name"] == "acme"
    assert "cannot connect" in warnings[0] and "cached copy" in warnings[0]
    [item] = cache.load_registries(cfg, offline=True, warn=warnings.append)
    assert item.stale


def test_corrupt_cache_discarded_and_refetched(published):
    add(published.url, name="acme")
    cfg = load_config()
    cache.load_registries(cfg)
    path = cache.source_dir(cfg, "acme") / "registry.json"
    path.write_text('{"schema_version": "1.0", "name": "evil", "skills": "nope"}')
    warnings = []
    [item] = cache.load_registries(cfg, warn=warnings.append)
    assert item.registry == published.registry
    assert "damaged" in warnings[0]
    assert [r.status for r in published.server.log] == [200, 200]  # refetched without If-None-Match
    assert published.server.log[-1].header("If-None-Match") is None
    # offline with a damaged cache: a clear error, never the damaged data
    path.write_text("garbage")
    with pytest.raises(SkillyardError, match="no cached registry"):
        cache.load_registries(cfg, offline=True, warn=warnings.append)


def test_invalid_remote_registry_not_stored(published):
    published.server.commit("acme", "skills", {"registry.json": '{"name": 1}'})
    add(published.url, name="acme")
    with pytest.raises(SkillyardError, match="registry.schema.json"):
        cache.load_registries(load_config())
    assert not (cache.source_dir(load_config(), "acme") / "registry.json").exists()


def test_url_policy(skill_home):
    cfg = load_config()
    with pytest.raises(SkillyardError, match="plain http"):
        sources.new_source(cfg, "http://example.com/registry.json")
    with pytest.raises(SkillyardError, match="user name or password"):
        sources.new_source(cfg, "https://user:pw@example.com/registry.json")
    with pytest.raises(SkillyardError, match="NAME of an environment variable"):
        sources.new_source(cfg, "https://example.com/registry.json", token_env="ghp_abc-123")
    assert sources.new_source(cfg, "http://localhost:8080/r/registry.json").url.startswith("http://localhost")
    raw = "https://raw.githubusercontent.com/acme/skills/main/registry.json"
    assert sources.new_source(cfg, raw).name == "skills"
