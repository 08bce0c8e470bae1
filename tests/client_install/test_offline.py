"""Honest offline (issue 35 item 1): a file an installed copy holds byte for byte is not downloaded again, so a
lockfile restore works with the server gone and says where the bytes came from; `skill install --offline` never
uses the network and fails, naming the files, when one is not on this machine. An edited copy is never used."""

import json
import shutil

from .conftest import NOTES_V1, tree


def skills_dir(root):
    return root / ".agents" / "skills"


def test_a_restore_with_the_server_gone_uses_the_installed_copies(registry, git_server, skill_cli, user_home,
                                                                   tmp_path):
    assert skill_cli("install", "notes").code == 0  # the user's own copy, in their home
    first = tmp_path / "first"
    first.mkdir()
    assert skill_cli("install", "notes", "--project-dir", str(first)).code == 0
    teammate = tmp_path / "clone"
    teammate.mkdir()
    shutil.copy(first / "skills.lock.json", teammate / "skills.lock.json")
    git_server.stop()
    done = skill_cli("install", "--project-dir", str(teammate))
    assert done.code == 0, done.err
    mine, theirs = tree(skills_dir(teammate) / "notes"), tree(skills_dir(first) / "notes")
    assert mine.pop("skill.lock.json") and theirs.pop("skill.lock.json")  # each names its own project's paths
    assert mine == theirs
    assert "taken from verified copies already installed" in done.err


def test_install_offline_takes_the_verified_bytes_and_never_the_network(registry, git_server, skill_cli, user_home,
                                                                        tmp_path):
    assert skill_cli("install", "notes").code == 0  # the user scope holds notes 1.0.0
    project = tmp_path / "p"
    project.mkdir()
    git_server.clear_log()
    done = skill_cli("install", "notes", "--project-dir", str(project), "--offline", "--json")
    assert done.code == 0, done.err
    assert git_server.requests("/") == []  # not one request
    assert tree(skills_dir(project) / "notes") .keys() == tree(skills_dir(user_home) / "notes").keys()
    assert json.loads((project / "skills.lock.json").read_text())["skills"]["notes"]["version"] == "1.0.0"


def test_install_offline_without_the_bytes_fails_and_names_them(registry, git_server, skill_cli, user_home,
                                                                 tmp_path):
    assert skill_cli("source", "refresh").code == 0  # the registry is cached, the files are not
    git_server.clear_log()
    refused = skill_cli("install", "report-kit", "--offline")
    assert refused.code == 1
    assert "--offline forbids" in refused.err and "SKILL.md" in refused.err and "without --offline" in refused.err
    assert git_server.requests("/") == []
    assert not (skills_dir(user_home) / "report-kit").exists()


def test_an_edited_copy_is_never_reused(registry, git_server, skill_cli, user_home, tmp_path):
    assert skill_cli("install", "notes").code == 0
    (skills_dir(user_home) / "notes" / "references" / "format.md").write_text("my own format\n")
    project = tmp_path / "p"
    project.mkdir()
    refused = skill_cli("install", "notes", "--project-dir", str(project), "--offline")
    assert refused.code == 1 and "references/format.md" in refused.err
    online = skill_cli("install", "notes", "--project-dir", str(project))
    assert online.code == 0, online.err
    assert (skills_dir(project) / "notes" / "references" / "format.md").read_text() == \
        NOTES_V1["files"]["references/format.md"]


def test_update_with_the_server_gone_does_not_claim_up_to_date(registry, git_server, skill_cli, user_home):
    assert skill_cli("install", "notes").code == 0
    git_server.stop()
    done = skill_cli("update", "--all")
    assert done.code == 3, done.out + done.err
    assert "up to date" not in done.out and "not checked" in done.out and "could not be checked" in done.err
    as_json = skill_cli("update", "--all", "--json")
    assert as_json.code == 3 and json.loads(as_json.out)["skills"][0]["checked"] is False


def test_with_the_server_gone_and_a_fresh_index_the_install_says_where_the_bytes_came_from(
        registry, git_server, skill_cli, user_home, tmp_path, monkeypatch):
    """The cached index is fresh, so nothing tells the user the server is gone: the install itself must say its
    files came from copies on this machine (text and --json), and never when it downloaded them."""
    monkeypatch.setenv("SKILL_CACHE_TTL", "3600")  # the index checked once, then used as is (no request)
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    online = skill_cli("install", "notes", "--project-dir", str(fresh), "--json")
    assert online.code == 0, online.err
    assert json.loads(online.out)["skills"][0]["warnings"] == []  # everything downloaded: nothing to say
    assert skill_cli("install", "notes").code == 0  # the user scope holds notes 1.0.0 too
    git_server.clear_log()
    git_server.stop()
    project = tmp_path / "p"
    project.mkdir()
    text = skill_cli("install", "notes", "--project-dir", str(project))
    assert text.code == 0, text.err
    assert "notes 1.0.0" in text.err and "taken from verified copies already installed on this machine" in text.err
    assert "nothing was downloaded" in text.err and "could not be reached" not in text.err  # the index was fresh
    again = tmp_path / "q"
    again.mkdir()
    as_json = skill_cli("install", "notes", "--project-dir", str(again), "--json")
    assert as_json.code == 0, as_json.err
    said = json.loads(as_json.out)["skills"][0]["warnings"]
    assert any("taken from verified copies" in w and "nothing was downloaded" in w for w in said), said
    assert tree(skills_dir(again) / "notes").keys() == tree(skills_dir(fresh) / "notes").keys()


def test_reuse_note_counts_what_was_and_was_not_downloaded():
    from skillyard.client.fetch import reuse_note

    assert reuse_note("x 1.0.0", [], 3) is None
    assert reuse_note("x 1.0.0", ["a", "b", "c"], 3).endswith("; nothing was downloaded")
    partial = reuse_note("x 1.0.0", ["a"], 3, why="--offline was given")
    assert "1 of 3 file(s) (a)" in partial and "the other 2 were downloaded" in partial
    assert partial.endswith("; --offline was given")
