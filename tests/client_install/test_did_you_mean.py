"""Issue 27 item 9: `skill install` of a misspelt name suggests what `skill search` finds for it, from the cached
registries (never the network), as a command to copy."""

import json

import pytest


@pytest.fixture
def acme(published, skill_cli):
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    return published


@pytest.mark.parametrize("typo, meant", [("invoice-procesor", "invoice-processor"), ("pdf-tool", "pdf-tools"),
                                         ("comit-writer", "commit-writer")])
def test_install_of_a_misspelt_name_suggests_the_search_hit(acme, skill_cli, typo, meant):
    found = json.loads(skill_cli("search", typo, "--json").out)["results"]
    assert found and found[0]["name"] == meant  # the search finds it...
    result = skill_cli("install", typo, "--target", "agents")
    assert result.code == 1 and f"no skill named {typo!r}" in result.err
    assert f"Did you mean `skill install {meant}`" in result.err  # ...so install suggests it
    offline = skill_cli("info", typo, "--offline")  # the same lookup, from the cache alone
    assert offline.code == 1 and f"Did you mean `skill install {meant}`" in offline.err
    far = skill_cli("install", "zzzqqq", "--target", "agents")  # nothing close: no guess, the search hint stays
    assert far.code == 1 and "Did you mean" not in far.err and "`skill search zzzqqq`" in far.err
