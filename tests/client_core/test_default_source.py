"""Issue 13 items 4 and 20: the built-in default source (here pointed at a local server through
$SKILL_DEFAULT_SOURCE, never at the real one) and `skill source remove|refresh` by URL."""

import json
import socket

import pytest
from tests.support.fixtures import SAMPLE_SKILLS
from tests.support.registry import publish_registry, registry_url

from skillyard.client import cache
from skillyard.client.config import BUILTIN_SOURCE_NAME, BUILTIN_SOURCE_URL, load_config


@pytest.fixture
def builtin(published, monkeypatch):
    """The built-in default source served by the local git server."""
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", published.url)
    return published


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/registry.json"


def listed(skill_cli):
    result = skill_cli("source", "list", "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)["sources"]


def test_the_builtin_url_is_the_public_registry():
    assert BUILTIN_SOURCE_URL == "https://raw.githubusercontent.com/skillyard/registry/main/registry.json"


def test_suite_never_reaches_the_real_default(skill_home):
    assert load_config().sources == []  # tests/conftest.py turns it off for every test


def test_search_works_out_of_the_box(builtin, skill_cli):
    result = skill_cli("search", "invoice", "--json")
    assert result.code == 0, result.err
    hits = json.loads(result.out)["results"]
    assert hits[0]["name"] == "invoice-processor" and hits[0]["source"] == BUILTIN_SOURCE_NAME
    assert listed(skill_cli) == [{"name": "skillyard", "url": builtin.url, "priority": 0, "builtin": True,
                                  "checked_at": listed(skill_cli)[0]["checked_at"]}]
    table = skill_cli("source", "list").out
    assert "skillyard (built-in)" in table and builtin.url in table
    assert not (load_config().path.exists() and "sources" in load_config().data)  # nothing stored


def test_remove_builtin_is_remembered(builtin, skill_cli):
    removed = skill_cli("source", "remove", BUILTIN_SOURCE_NAME)
    assert removed.code == 0 and "removed source 'skillyard'" in removed.out
    assert load_config().data["default_source"] is False
    assert listed(skill_cli) == []
    search = skill_cli("search", "invoice")
    assert search.code == 1 and "no sources are configured" in search.err
    assert builtin.server.requests("registry.json") == []  # never fetched once removed


def test_user_sources_rank_above_the_builtin(builtin, skill_cli):
    publish_registry(builtin.server, "corp", "skills", SAMPLE_SKILLS[:1], name="corp")
    added = skill_cli("source", "add", registry_url(builtin.server, "corp", "skills"), "--name", "corp")
    assert added.code == 0, added.err
    assert [(s["name"], s["priority"]) for s in listed(skill_cli)] == [("corp", 100), ("skillyard", 0)]
    hits = json.loads(skill_cli("search", "invoice", "--json").out)["results"]
    assert [(h["source"], h["shadowed"]) for h in hits if h["name"] == "invoice-processor"] == \
        [("corp", False), ("skillyard", True)]


def test_add_default_replaces_the_builtin(builtin, skill_cli):
    publish_registry(builtin.server, "corp", "skills", SAMPLE_SKILLS[:1], name="corp")
    url = registry_url(builtin.server, "corp", "skills")
    added = skill_cli("source", "add", url, "--name", "corp", "--default")
    assert added.code == 0, added.err
    assert "replaces the built-in default source 'skillyard'" in added.out
    assert [s["name"] for s in listed(skill_cli)] == ["corp"]
    assert load_config().data["default_source"] is False
    both = skill_cli("source", "add", url, "--default", "--priority", "5")
    assert both.code == 2 and "cannot be combined" in both.err


def test_default_goes_above_existing_sources(builtin, skill_cli):
    publish_registry(builtin.server, "corp", "skills", SAMPLE_SKILLS[:1], name="corp")
    publish_registry(builtin.server, "mine", "skills", SAMPLE_SKILLS[1:2], name="mine")
    assert skill_cli("source", "add", registry_url(builtin.server, "corp", "skills"), "--name", "corp").code == 0
    assert skill_cli("source", "add", registry_url(builtin.server, "mine", "skills"), "--name", "mine",
                     "--default").code == 0
    assert [(s["name"], s["priority"]) for s in listed(skill_cli)] == [("mine", 110), ("corp", 100)]


def test_unreachable_builtin_does_not_block_own_sources(published, monkeypatch, skill_cli):
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", dead_url())
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    result = skill_cli("search", "invoice", "--json")
    assert result.code == 0
    assert [h["source"] for h in json.loads(result.out)["results"]][:1] == ["acme"]
    assert "built-in default source 'skillyard'" in result.err and "cannot be reached" in result.err


def test_doctor_says_the_builtin_cannot_be_reached(skill_home, monkeypatch, skill_cli):
    url = dead_url()
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", url)
    result = skill_cli("doctor", "--json")
    assert result.code == 1
    (finding,) = [f for f in json.loads(result.out)["findings"] if f.get("source") == "skillyard"]
    assert finding["status"] == "error" and finding["builtin"] is True
    assert "built-in default source 'skillyard' cannot be reached" in finding["message"] and url in finding["message"]
    assert "skill source remove skillyard" in finding["fix"]


@pytest.mark.parametrize("action", ["remove", "refresh", "priority"])
def test_source_commands_take_the_url(published, skill_cli, action):
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    extra = ["7"] if action == "priority" else []
    result = skill_cli("source", action, published.url, *extra)
    assert result.code == 0, result.err
    if action == "remove":
        assert load_config().sources == [] and not cache.source_dir(load_config(), "acme").exists()
    elif action == "refresh":
        assert "acme: not modified" in result.out
    else:
        assert load_config().sources[0].priority == 7
    unknown = skill_cli("source", action, published.url + "?x", *extra)
    assert unknown.code == 1 and "no source named" in unknown.err


def test_install_and_update_from_the_builtin(builtin, skill_cli):
    installed = skill_cli("install", "pdf-tools", "--skip-deps-check", "--json")
    assert installed.code == 0, installed.err
    listed_skills = json.loads(skill_cli("list", "--json").out)["skills"]
    assert [(s["name"], s["source"]["source"]) for s in listed_skills] == [("pdf-tools", "skillyard")]
    updated = skill_cli("update", "pdf-tools")
    assert updated.code == 0 and "up to date" in updated.out


def test_builtin_priority_can_be_raised(builtin, skill_cli):
    publish_registry(builtin.server, "corp", "skills", SAMPLE_SKILLS[:1], name="corp")
    assert skill_cli("source", "add", registry_url(builtin.server, "corp", "skills"), "--name", "corp").code == 0
    assert skill_cli("source", "priority", "skillyard", "500").code == 0
    assert [(s["name"], s["priority"], s.get("builtin", False)) for s in listed(skill_cli)] == \
        [("skillyard", 500, False), ("corp", 100, False)]


def test_unreachable_builtin_alone_says_so(skill_home, monkeypatch, skill_cli):
    url = dead_url()
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", url)
    result = skill_cli("search", "pdf")
    assert result.code == 1 and "Traceback" not in result.err
    assert f"error: the built-in default source 'skillyard' cannot be reached: {url}" in result.err
    assert "skill source add URL --default" in result.err
