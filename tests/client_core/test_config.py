"""config.yaml: keys, environment overrides, priorities, atomic locked saves, clear errors."""

import threading

import pytest
import yaml

from skillyard.client import config as config_mod
from skillyard.client.config import Source, load_config
from skillyard.errors import SkillyardError


def test_defaults_and_env_overrides(skill_home, monkeypatch):
    cfg = load_config()
    assert cfg.home == skill_home and cfg.path == skill_home / "config.yaml"
    assert cfg.github_raw_url == "https://raw.githubusercontent.com"
    assert cfg.github_codeload_url == "https://codeload.github.com"
    assert cfg.github_api_url == "https://api.github.com"
    assert cfg.default_target == "claude-code" and cfg.mcp_hub_endpoint is None and cfg.mcp_hub_timeout == 5000
    cfg.set("github.raw_url", "https://ghe.example.com/raw/")
    cfg.set("install.target", "codex")
    cfg.set("mcp_hub.endpoint", "http://127.0.0.1:9/mcp")
    cfg.set("inputs.invoice-processor.currency", "USD")
    cfg.save()
    cfg = load_config()
    assert cfg.github_raw_url == "https://ghe.example.com/raw"
    assert cfg.default_target == "codex" and cfg.mcp_hub_endpoint == "http://127.0.0.1:9/mcp"
    assert cfg.skill_inputs("invoice-processor") == {"currency": "USD"} and cfg.skill_inputs("other") == {}
    monkeypatch.setenv("SKILL_GITHUB_RAW_URL", "http://127.0.0.1:1234")
    assert cfg.github_raw_url == "http://127.0.0.1:1234"
    assert cfg.get("github.raw_url") == "http://127.0.0.1:1234"
    cfg.set("inputs.invoice-processor", None)
    assert cfg.skill_inputs("invoice-processor") == {}


def test_default_home(monkeypatch, tmp_path):
    monkeypatch.delenv("SKILLCLI_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert load_config().home == tmp_path / ".skillcli"


def test_priority_order_and_ties(skill_home):
    with config_mod.edit() as cfg:
        for name in ("first", "second", "third"):
            cfg.put_source(Source(name, f"https://example.com/{name}/registry.json", None, cfg.next_priority()))
    cfg = load_config()
    assert [(s.name, s.priority) for s in cfg.sources] == [("first", 100), ("second", 90), ("third", 80)]
    with config_mod.edit() as cfg:
        cfg.put_source(Source("third", cfg.source("third").url, None, 100))
    assert [s.name for s in load_config().sources] == ["first", "third", "second"]  # tie: added first wins


def test_concurrent_edits_are_not_lost(skill_home):
    def add(i):
        with config_mod.edit() as cfg:
            cfg.put_source(Source(f"s{i}", f"https://example.com/{i}/registry.json", None, i))

    threads = [threading.Thread(target=add, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(s.name for s in load_config().sources) == sorted(f"s{i}" for i in range(8))
    assert not list(skill_home.glob(".config.*.tmp"))


def test_bad_files_give_clear_errors(skill_home, monkeypatch):
    skill_home.mkdir(parents=True)
    (skill_home / "config.yaml").write_text("sources: [\n")
    with pytest.raises(SkillyardError, match=r"config.yaml is not valid YAML"):
        load_config()
    (skill_home / "config.yaml").write_text(yaml.safe_dump({"sources": [{"name": "x"}]}))
    with pytest.raises(SkillyardError, match=r"sources\[0\] .* needs a `name` and a `url`"):
        load_config().sources  # noqa: B018
    monkeypatch.delenv("SKILL_HTTP_TIMEOUT")
    (skill_home / "config.yaml").write_text(yaml.safe_dump({"http": {"timeout": "soon"}}))
    with pytest.raises(SkillyardError, match="http.timeout"):
        load_config().http_timeout  # noqa: B018
    monkeypatch.setenv("SKILL_HTTP_TIMEOUT", "nope")
    with pytest.raises(SkillyardError, match=r"\$SKILL_HTTP_TIMEOUT"):
        load_config().http_timeout  # noqa: B018


def test_network_limits_defaults_env_and_bad_values(skill_home, monkeypatch):
    monkeypatch.delenv("SKILL_HTTP_DEADLINE", raising=False)
    monkeypatch.delenv("SKILL_REGISTRY_MAX_BYTES", raising=False)
    cfg = load_config()
    assert cfg.http_deadline == 120.0 and cfg.registry_max_bytes == 50 * 1024 * 1024
    cfg.set("http.deadline", 30)
    cfg.set("registry.max_bytes", 1000)
    assert cfg.http_deadline == 30.0 and cfg.registry_max_bytes == 1000
    monkeypatch.setenv("SKILL_HTTP_DEADLINE", "2.5")
    assert cfg.http_deadline == 2.5
    monkeypatch.setenv("SKILL_REGISTRY_MAX_BYTES", "lots")
    with pytest.raises(SkillyardError, match=r"\$SKILL_REGISTRY_MAX_BYTES is 'lots', expected a whole number"):
        _ = cfg.registry_max_bytes
    monkeypatch.delenv("SKILL_REGISTRY_MAX_BYTES")
    cfg.set("registry.max_bytes", -5)
    with pytest.raises(SkillyardError, match="registry.max_bytes is -5; it must be greater than 0"):
        _ = cfg.registry_max_bytes
