"""Issue 27 item 4: `skill config get|set|unset|list` for every key of the README's client configuration table,
values checked before anything is written, unknown keys kept, and where each value comes from."""

import json
import re
from pathlib import Path

import pytest

from skillyard.client import config_keys, config_values
from skillyard.client.config import load_config

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_keys() -> set[str]:
    text = README.read_text(encoding="utf-8")
    section = text.split("### Client configuration", 1)[1].split("\n## ", 1)[0]
    keys = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            keys.update(re.findall(r"`([a-z_]+(?:\.[a-z_<>]+)+|sources)`", line.split("|")[1]))
    return keys


def test_every_readme_key_is_known_and_every_known_key_documented():
    documented = readme_keys() - {"sources", "inputs.<skill>.<name>"}
    assert documented == set(config_keys.KEYS)


def run_json(skill_cli, *argv):
    result = skill_cli("config", *argv, "--json")
    return result.code, (json.loads(result.out) if result.out.strip() else None), result.err


@pytest.mark.parametrize("key", sorted(config_keys.KEYS))
def test_every_key_round_trips(skill_home, skill_cli, monkeypatch, key):
    if config_keys.KEYS[key].env:
        monkeypatch.delenv(config_keys.KEYS[key].env, raising=False)
    example = config_keys.KEYS[key].example
    code, out, err = run_json(skill_cli, "set", key, example)
    assert code == 0, err
    got = json.loads(skill_cli("config", "get", key, "--json").out)
    assert got["origin"] == "config.yaml" and got["value"] == config_values.parse(key, example)
    assert load_config().get(key) == got["value"]
    assert skill_cli("config", "unset", key).code == 0
    assert json.loads(skill_cli("config", "get", key, "--json").out)["origin"] == "default"


@pytest.mark.parametrize("key, value, words", [
    ("http.timeout", "abc", "is not a number"),
    ("http.timeout", "-1", "out of range"),
    ("http.retries", "1.5", "is not a whole number"),
    ("cache.ttl", "nan", "out of range"),
    ("install.max_files", "0", "out of range"),
    ("install.strict", "maybe", "is not true or false"),
    ("install.target", "claude-code,nosuch", "unknown target(s) 'nosuch'"),
    ("mcp_hub.endpoint", "http://example.com/hub", "plain http to a non-local host"),
    ("mcp_hub.endpoint", "ftp://127.0.0.1/", "is not an http(s) URL"),
    ("mcp_hub.type", "grpc", "is not one of hub, mcp"),
    ("github.raw_url", "https://user:secret@example.com", "user name or password"),
    ("generate.api_key_env", "sk-not a name", "not an environment variable's name"),
    ("generate.api_key_env", "ghp_abcdefghijklmnop", "looks like a secret"),
    ("generate.timeout", "601", "out of range"),
])
def test_bad_values_are_refused_and_nothing_written(skill_home, skill_cli, key, value, words):
    assert skill_cli("config", "set", "http.retries", "4").code == 0
    before = (skill_home / "config.yaml").read_bytes()
    result = skill_cli("config", "set", key, value)
    assert result.code == 2, result.out
    assert key in result.err and words in result.err and f"`skill config set {key}" in result.err
    assert "secret" not in result.err or "ghp_" not in result.err
    assert (skill_home / "config.yaml").read_bytes() == before


def test_unknown_key_suggests_the_close_one(skill_home, skill_cli):
    result = skill_cli("config", "set", "htp.timeout", "3")
    assert result.code == 2 and "unknown config key 'htp.timeout'" in result.err
    assert "Did you mean http.timeout" in result.err and not (skill_home / "config.yaml").exists()
    managed = skill_cli("config", "set", "sources", "x")
    assert managed.code == 2 and "skill source add" in managed.err


def test_set_keeps_unknown_keys_and_writes_atomically(skill_home, skill_cli):
    skill_home.mkdir(parents=True)
    (skill_home / "config.yaml").write_text("future:\n  feature: 3\nhttp:\n  mystery: x\n", encoding="utf-8")
    assert skill_cli("config", "set", "http.timeout", "7.5").code == 0
    data = load_config().data
    assert data == {"future": {"feature": 3}, "http": {"mystery": "x", "timeout": 7.5}}
    assert sorted(p.name for p in skill_home.iterdir() if p.name != "cache") == \
        ["config.yaml", "config.yaml.lock"]  # no temporary file left beside it
    listed = json.loads(skill_cli("config", "list", "--json").out)
    assert {"key": "future", "value": {"feature": 3}} in listed["unknown"]
    assert {"key": "http.mystery", "value": "x"} in listed["unknown"]
    assert "(unknown key, kept)" in skill_cli("config", "list").out


def test_list_says_where_each_value_comes_from(skill_home, skill_cli, monkeypatch):
    assert skill_cli("config", "set", "cache.ttl", "60").code == 0
    assert skill_cli("config", "set", "inputs.invoice-processor.currency", "USD").code == 0
    monkeypatch.setenv("SKILL_HTTP_RETRIES", "5")
    rows = {r["key"]: r for r in json.loads(skill_cli("config", "list", "--json").out)["keys"]}
    assert (rows["cache.ttl"]["value"], rows["cache.ttl"]["origin"]) == (60, "config.yaml")
    assert rows["http.retries"]["origin"] == "environment ($SKILL_HTTP_RETRIES)"
    assert rows["install.target"]["origin"] == "default" and rows["install.target"]["value"] == "claude-code"
    assert rows["inputs.invoice-processor.currency"]["value"] == "USD"
    assert load_config().skill_inputs("invoice-processor") == {"currency": "USD"}
    text = skill_cli("config", "list").out.splitlines()
    assert text[0].split() == ["KEY", "VALUE", "FROM"]
    assert any(line.split()[:2] == ["cache.ttl", "60"] and line.endswith("config.yaml") for line in text)
    assert skill_cli("config", "set", "http.retries", "2").err.startswith("note: $SKILL_HTTP_RETRIES is set")


def test_unset_drops_empty_sections(skill_home, skill_cli):
    assert skill_cli("config", "set", "inputs.pdf-tools.mode", "fast").code == 0
    assert skill_cli("config", "unset", "inputs.pdf-tools.mode").code == 0
    assert load_config().data == {}
    again = skill_cli("config", "unset", "inputs.pdf-tools.mode")
    assert again.code == 0 and "was not set" in again.out


def test_bad_input_key_names_the_shape(skill_home, skill_cli):
    result = skill_cli("config", "set", "inputs.only-skill", "x")
    assert result.code == 2 and "inputs.<skill>.<input>" in result.err


def test_help_says_comments_are_not_kept(skill_cli):
    result = skill_cli("config", "--help")
    assert result.code == 0 and "comment" in result.out and "lost" in result.out


def test_a_set_value_is_what_the_client_reads(skill_home, skill_cli):
    assert skill_cli("config", "set", "mcp_hub.endpoint", "http://127.0.0.1:9/hub").code == 0
    assert skill_cli("config", "set", "install.target", "codex, claude-code").code == 0
    assert skill_cli("config", "set", "install.strict", "yes").code == 0
    config = load_config()
    assert config.mcp_hub_endpoint == "http://127.0.0.1:9/hub" and config.install_strict is True
    from skillyard.client.placement import default_targets

    assert default_targets(config) == ["codex", "claude-code"]
