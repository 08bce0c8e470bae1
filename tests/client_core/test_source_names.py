"""Issue 27 item 9: an added source is named after its registry's own top-level `name` (what its owner calls it),
not after a URL path segment such as `registry` or `127.0.0.1`; --name and --no-fetch keep the old rules."""

import json

from tests.support.fixtures import SAMPLE_SKILLS
from tests.support.registry import publish_registry, registry_url

from skillyard.client import cache
from skillyard.client.config import load_config


def added(skill_cli, *argv):
    result = skill_cli("source", "add", *argv, "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)["source"]["name"]


def test_named_after_the_registry(published, skill_cli):
    publish_registry(published.server, "team", "registry", SAMPLE_SKILLS[:1], name="Team Skills")
    assert added(skill_cli, registry_url(published.server, "team", "registry")) == "team-skills"
    assert added(skill_cli, published.url) == "acme"  # the URL alone says `skills`
    config = load_config()
    assert [s.name for s in config.sources] == ["team-skills", "acme"]
    assert cache.read_meta(config, config.source("acme")) is not None  # the fetched copy moved with the name
    assert not cache.source_dir(config, "skills").exists()
    hits = json.loads(skill_cli("search", "invoice", "--json").out)["results"]
    assert {h["source"] for h in hits} == {"team-skills", "acme"}
    assert skill_cli("install", "pdf-tools@acme", "--target", "agents").code == 0
    # an explicit --name, an unfetched source or a registry name that makes no source name keep the old rules
    publish_registry(published.server, "odd", "registry", SAMPLE_SKILLS[:1], name="!!!")
    assert added(skill_cli, registry_url(published.server, "odd", "registry")) == "registry"  # from the URL
    publish_registry(published.server, "named", "skills", SAMPLE_SKILLS[:1], name="named")
    assert added(skill_cli, registry_url(published.server, "named", "skills"), "--name", "mine") == "mine"
    publish_registry(published.server, "later", "skills", SAMPLE_SKILLS[:1], name="later-name")
    assert added(skill_cli, registry_url(published.server, "later", "skills"), "--no-fetch") == "skills"


def test_same_registry_name_twice_gets_a_suffix(published, skill_cli):
    publish_registry(published.server, "mirror", "skills", SAMPLE_SKILLS[:1], name="acme")
    assert added(skill_cli, published.url) == "acme"
    assert added(skill_cli, registry_url(published.server, "mirror", "skills")) == "acme-2"
