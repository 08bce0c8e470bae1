"""The client reads what the real `skillyard build` compiles (not just hand-made fixtures)."""

import json
import urllib.request

from tests.support.fixtures import SAMPLE_SKILLS
from tests.support.registry import publish_built_registry, registry_url

from skillyard.client.config import load_config
from skillyard.client.resolve import resolve


def test_built_registry_search_info_and_files(git_server, skill_cli):
    registry = publish_built_registry(git_server, "acme", "built", SAMPLE_SKILLS, name="acme-built")
    assert [s["name"] for s in registry["skills"]] == sorted(s["name"] for s in SAMPLE_SKILLS)
    assert skill_cli("source", "add", registry_url(git_server, "acme", "built"), "--name", "built").code == 0
    hits = json.loads(skill_cli("search", "发票", "--json").out)["results"]
    assert [h["name"] for h in hits] == ["invoice-processor"]
    info = json.loads(skill_cli("info", "invoice-processor", "--json").out)
    assert info["skill"]["commit"] == git_server.sha("acme", "built", "HEAD~1")
    found = resolve("invoice-processor", load_config())
    for entry in found.skill["files"]:
        with urllib.request.urlopen(found.file_url(entry["path"]), timeout=5) as resp:
            assert len(resp.read()) == entry["size"]
