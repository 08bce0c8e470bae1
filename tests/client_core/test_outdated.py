"""Issue 13 item 5: `skill list` shows an outdated state, `skill outdated` lists them, and `skill update` after
`skill source refresh` installs the newer version."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.support.fixtures import SAMPLE_SKILLS
from tests.support.registry import publish_registry

from skillyard.client.update import newest_known, version_key

ORDERED = ["0.9.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
           "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.9.0", "1.10.0", "2.0.0"]


def test_semver_precedence():
    keys = [version_key(v) for v in ORDERED]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert version_key("v1.2.3") == version_key("1.2.3") == version_key("1.2.3+build.7")
    assert version_key("1.2") == version_key("1.2.0")


@pytest.mark.parametrize("bad", ["", "latest", "1.2.3.4", "1..2", "-1.0.0", "1.0.0-", "9" * 40, "1.0.0\n", None])
def test_not_a_version(bad):
    assert version_key(bad) is None


@given(st.tuples(*[st.integers(0, 10**6)] * 3), st.tuples(*[st.integers(0, 10**6)] * 3))
def test_release_order_is_numeric(a, b):
    ka, kb = version_key(".".join(map(str, a))), version_key(".".join(map(str, b)))
    assert (ka < kb) == (a < b) and (ka == kb) == (a == b)


@given(st.text(max_size=300))
def test_any_text_is_a_key_or_none(text):
    key = version_key(text)
    assert key is None or isinstance(key, tuple)


def entry(name, version, source="acme"):
    return {"name": name, "version": version, "scope": "user",
            "source": {"type": "registry", "source": source}}


def test_newest_known_states():
    registries = {"acme": {"skills": [{"name": "a", "version": "1.9.0"}, {"name": "a", "version": "1.10.0"},
                                      {"name": "b", "version": "2.0.0-rc.1"}]}}
    assert newest_known(entry("a", "1.9.0"), registries).to_dict() == {
        "name": "a", "scope": "user", "installed": "1.9.0", "latest": "1.10.0", "source": "acme", "state": "outdated",
        "checked": True}
    stale = newest_known(entry("a", "1.10.0"), registries, {"acme"})
    assert (stale.state, stale.checked) == ("current", False) and "cached copy" in stale.reason
    assert newest_known(entry("a", "1.0.0", source="gone"), registries).checked is False
    assert newest_known(entry("a", "1.10.0"), registries).state == "current"
    assert newest_known(entry("b", "2.0.0"), registries).state == "current"  # a pre-release is older
    assert newest_known(entry("c", "1.0.0"), registries).state == "unknown"
    assert newest_known(entry("a", "1.0.0", source="gone"), registries).state == "unknown"
    local = {"name": "a", "version": "1.0.0", "scope": "user", "source": {"type": "local", "path": "/x"}}
    assert newest_known(local, registries).state == "unknown"


@pytest.fixture
def installed(published, skill_cli):
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    result = skill_cli("install", "pdf-tools", "--skip-deps-check")
    assert result.code == 0, result.err
    return published


def republish_newer(server):
    newer = [dict(SAMPLE_SKILLS[1], version="0.10.0", description="Merge, split, fill and sign PDF forms.")]
    publish_registry(server, "acme", "skills", [SAMPLE_SKILLS[0], *newer, SAMPLE_SKILLS[2]], name="acme")


def states(skill_cli, *argv, code=None):
    result = skill_cli(*argv, "--json")
    want = code if code is not None else (1 if argv[0] == "outdated" and '"outdated"' in result.out else 0)
    assert result.code == want, result.err
    return json.loads(result.out)["skills"]


def test_outdated_list_and_update_after_refresh(installed, skill_cli):
    assert [s["state"] for s in states(skill_cli, "outdated")] == ["current"]
    assert skill_cli("outdated").out.splitlines()[1].startswith("every installed skill is up to date")
    republish_newer(installed.server)
    # `skill list` reads only the cache: the new version is not known until a refresh
    assert states(skill_cli, "list")[0]["outdated"] == {"state": "current", "latest": "0.3.1"}
    refreshed = skill_cli("source", "refresh")
    assert refreshed.code == 0 and "acme: updated" in refreshed.out
    assert states(skill_cli, "list")[0]["outdated"] == {"state": "outdated", "latest": "0.10.0"}
    assert "[outdated: 0.10.0 available]" in skill_cli("list").out
    assert [(s["name"], s["installed"], s["latest"], s["state"]) for s in states(skill_cli, "outdated")] == \
        [("pdf-tools", "0.3.1", "0.10.0", "outdated")]
    table = skill_cli("outdated").out
    assert "pdf-tools" in table and "0.3.1" in table and "0.10.0" in table and "skill update" in table
    updated = skill_cli("update", "pdf-tools")
    assert updated.code == 0 and "updated, 0.3.1 → 0.10.0" in updated.out
    assert states(skill_cli, "list")[0]["version"] == "0.10.0"
    assert [s["state"] for s in states(skill_cli, "outdated")] == ["current"]


def test_outdated_asks_the_server(installed, skill_cli):
    republish_newer(installed.server)  # within cache.ttl: only `skill outdated` (not `skill list`) sees it
    assert [s["state"] for s in states(skill_cli, "outdated")] == ["outdated"]
    assert [s["state"] for s in states(skill_cli, "outdated", "--offline")] == ["outdated"]


def test_outdated_without_skills(skill_home, skill_cli):
    result = skill_cli("outdated")
    assert result.code == 0 and "no skills installed" in result.out


def test_outdated_exit_status_tells_scripts_what_it_found(installed, skill_cli):
    """As `npm outdated`: 0 when every skill was checked and none is outdated, 1 when an update exists, 3 when none
    is known to be outdated but some skill could not be checked (never a silent "up to date")."""
    assert skill_cli("outdated").code == 0
    offline = skill_cli("outdated", "--offline")
    assert offline.code == 3
    assert "up to date" not in offline.out and "could not be checked" in offline.err and "pdf-tools" in offline.err
    assert json.loads(skill_cli("outdated", "--offline", "--json").out)["skills"][0]["checked"] is False
    republish_newer(installed.server)
    newer = skill_cli("outdated")
    assert newer.code == 1 and "0.10.0" in newer.out
    assert skill_cli("outdated", "--json").code == 1


def test_outdated_with_the_server_gone_is_not_up_to_date(installed, skill_cli):
    installed.server.stop()
    result = skill_cli("outdated", "--json")
    assert result.code == 3, result.out + result.err
    [row] = json.loads(result.out)["skills"]
    assert row["checked"] is False and "could not be reached" in row["reason"]
