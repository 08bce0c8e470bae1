"""The parsed-config cache (client/config_cache.py): used only for the very file it was made from, never for a
racy or non-JSON config, a damaged copy ignored and rewritten; what load_config returns is the same either way."""

from __future__ import annotations

import json
import os

import pytest

from skillyard.client import config_cache
from skillyard.client.config import load_config

CONFIG = """\
sources:
- name: team
  url: https://example.invalid/registry.json
  priority: 150
http:
  timeout: 7.5
install:
  strict: true
inputs:
  invoice-processor:
    currency: 发票
"""


@pytest.fixture
def settled(monkeypatch):
    """Files count as settled at once (no 2-second wait); the racy rule itself is tested on `store`."""
    monkeypatch.setattr(config_cache, "RACY_SECONDS", 0.0)


def cache_file(home):
    return home / "cache" / config_cache.FILE_NAME


def write_config(home, text):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text, encoding="utf-8")


def test_the_cached_config_equals_the_parsed_one_and_spares_yaml(skill_home, settled, monkeypatch):
    write_config(skill_home, CONFIG)
    parsed = load_config().data
    assert cache_file(skill_home).is_file() and oct(cache_file(skill_home).stat().st_mode & 0o777) == "0o600"

    def no_yaml(path):
        raise AssertionError("parsed the YAML again")

    monkeypatch.setattr("skillyard.client.config._parse", no_yaml)
    cached = load_config()
    assert cached.data == parsed and cached.data["inputs"]["invoice-processor"]["currency"] == "发票"
    assert [s.name for s in cached.sources][:1] == ["team"] and cached.http_timeout in (2.0, 7.5)
    assert cached.install_strict is True
    cached.data["http"]["timeout"] = 1  # each load gets its own dict
    assert load_config().data == parsed


def test_an_edit_keeping_size_and_mtime_is_not_served_from_the_cache(skill_home, settled):
    write_config(skill_home, CONFIG)
    assert load_config().data["http"]["timeout"] == 7.5
    path = skill_home / "config.yaml"
    before = path.stat()
    path.write_text(CONFIG.replace("7.5", "9.5"), encoding="utf-8")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same modification time, to the nanosecond
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert load_config().data["http"]["timeout"] == 9.5


def test_a_config_changed_just_now_is_not_cached():
    st = os.stat(__file__)
    now = max(st.st_mtime_ns, st.st_ctime_ns)
    assert not config_cache.store(None, st, st, {"a": 1}, now_ns=now + 1_000_000_000)  # 1 s: racy, not written


def test_a_damaged_cache_is_ignored_and_rewritten(skill_home, settled):
    write_config(skill_home, CONFIG)
    expected = load_config().data
    for damage in (b"{not json", b"[]", b'{"format": 1}', b"\xff\xfe", b"[" * 100_000, b"x" * (2 << 20)):
        cache_file(skill_home).write_bytes(damage)
        assert load_config().data == expected
        assert json.loads(cache_file(skill_home).read_text(encoding="utf-8"))["data"] == expected


def test_a_cache_of_another_file_or_version_is_not_used(skill_home, settled, monkeypatch):
    write_config(skill_home, CONFIG)
    load_config()
    entry = json.loads(cache_file(skill_home).read_text(encoding="utf-8"))
    entry["data"]["http"]["timeout"] = 1.0
    for change in ({"version": "0.0.0-other"}, {"format": 0}, {"stamp": [0, 0, 0, 0, 0]}):
        cache_file(skill_home).write_text(json.dumps({**entry, **change}), encoding="utf-8")
        assert load_config().data["http"]["timeout"] == 7.5
    cache_file(skill_home).write_text(json.dumps(entry), encoding="utf-8")
    assert load_config().data["http"]["timeout"] == 1.0  # the stamp matches: trusted (it is our own cache)


def test_a_config_json_cannot_hold_is_parsed_every_time(skill_home, settled):
    write_config(skill_home, "1: one\ninputs: {x: {2: two}}\n")  # JSON keys are strings: "1" is not 1
    assert load_config().data == {1: "one", "inputs": {"x": {2: "two"}}}
    assert not cache_file(skill_home).exists()
    assert load_config().data == {1: "one", "inputs": {"x": {2: "two"}}}


def test_no_config_file_means_an_empty_config_and_no_cache(skill_home, settled):
    assert load_config().data == {} and not cache_file(skill_home).exists()


def test_bad_yaml_is_still_an_error_after_a_good_version_was_cached(skill_home, settled):
    from skillyard.errors import SkillyardError

    write_config(skill_home, CONFIG)
    load_config()
    write_config(skill_home, "sources: [\n")
    with pytest.raises(SkillyardError, match="not valid YAML"):
        load_config()


def test_an_unwritable_cache_folder_only_costs_the_parse(skill_home, settled):
    write_config(skill_home, CONFIG)
    (skill_home / "cache").write_text("a file where the folder would be")
    assert load_config().data["http"]["timeout"] == 7.5
