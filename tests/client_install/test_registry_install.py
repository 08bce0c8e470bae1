"""End to end against a real git repository served over loopback HTTP in raw-GitHub layout."""

import hashlib
import json
import os

from tests.support.registry import publish_registry, registry_url, skill_md

from .conftest import NOTES_V1, REPORT_KIT, notes_v2, tree


def skills_dir(home):
    return home / ".agents" / "skills"


def test_install_list_edit_update_uninstall(registry, git_server, skill_cli, user_home):
    result = skill_cli("install", "notes", "--target", "claude-code", "--json")
    assert result.code == 0, result.err
    payload = json.loads(result.out)
    assert payload["skills"][0]["status"] == "installed"
    installed = skills_dir(user_home) / "notes"
    assert (installed / "references" / "format.md").read_text() == NOTES_V1["files"]["references/format.md"]
    assert os.access(installed / "scripts" / "count.py", os.X_OK)
    link = user_home / ".claude" / "skills" / "notes"
    assert link.is_symlink() and (link / "SKILL.md").read_bytes() == (installed / "SKILL.md").read_bytes()
    lock = json.loads((installed / "skill.lock.json").read_text())
    assert lock["version"] == "1.0.0" and lock["resolved_source"]["source"] == "acme"
    assert lock["resolved_source"]["commit"] == registry["skills"][0]["commit"]
    assert {f["path"] for f in lock["files"]} == {"SKILL.md", "references/format.md", "scripts/count.py"}

    listed = json.loads(skill_cli("list", "--json").out)["skills"]
    assert [(s["name"], s["version"], s["edited"]) for s in listed] == [("notes", "1.0.0", [])]

    # A new version is published; the user edited a file meanwhile.
    publish_registry(git_server, "acme", "skills", [notes_v2(), REPORT_KIT], name="acme")
    (installed / "SKILL.md").write_text("my own notes\n")
    plan = skill_cli("update", "notes", "--dry-run", "--json")
    assert plan.code == 0, plan.err
    change = json.loads(plan.out)["skills"][0]
    assert change["status"] == "would-update" and change["to_version"] == "1.1.0"
    assert change["added"] == ["references/examples.md"] and change["changed"] == ["SKILL.md"]
    assert change["edited"] == ["SKILL.md"]
    assert (installed / "SKILL.md").read_text() == "my own notes\n"

    refused = skill_cli("update", "notes")
    assert refused.code == 1
    assert "SKILL.md" in refused.err and "--force" in refused.err
    assert (installed / "SKILL.md").read_text() == "my own notes\n"
    assert json.loads((installed / "skill.lock.json").read_text())["version"] == "1.0.0"

    forced = skill_cli("update", "notes", "--force")
    assert forced.code == 0, forced.err
    assert "1.0.0 → 1.1.0" in forced.out and "+ references/examples.md" in forced.out
    assert "Write better notes." in (installed / "SKILL.md").read_text()
    assert (installed / "references" / "examples.md").is_file()
    assert json.loads((installed / "skill.lock.json").read_text())["version"] == "1.1.0"
    assert link.is_symlink()
    assert "up to date" in skill_cli("update", "--all").out

    gone = skill_cli("uninstall", "notes")
    assert gone.code == 0, gone.err
    assert not installed.exists() and not os.path.lexists(link)
    assert json.loads(skill_cli("list", "--json").out)["skills"] == []
    again = skill_cli("uninstall", "notes")
    assert again.code == 1 and "not installed" in again.err


def test_private_source_wins_name_clash_and_token_goes_only_there(git_server, configure, skill_cli, user_home,
                                                                   monkeypatch):
    public = dict(NOTES_V1, description="Public notes.")
    public["files"] = dict(NOTES_V1["files"], **{"references/format.md": "public\n"})
    private = dict(NOTES_V1, description="Private notes.")
    private["files"] = dict(NOTES_V1["files"], **{"references/format.md": "private\n"})
    publish_registry(git_server, "pub", "skills", [public])
    publish_registry(git_server, "corp", "skills", [private])
    git_server.require_token("corp", "skills", "s3cret")
    monkeypatch.setenv("CORP_TOKEN", "s3cret")
    configure.source("public", registry_url(git_server, "pub", "skills"), priority=50)
    configure.source("corp", registry_url(git_server, "corp", "skills"), token_env="CORP_TOKEN", priority=90)
    git_server.clear_log()

    result = skill_cli("install", "notes", "--json")
    assert result.code == 0, result.err
    installed = skills_dir(user_home) / "notes"
    assert (installed / "references" / "format.md").read_text() == "private\n"
    lock = json.loads((installed / "skill.lock.json").read_text())
    assert lock["resolved_source"]["source"] == "corp"
    assert "s3cret" not in (installed / "skill.lock.json").read_text()
    for request in git_server.requests("/skills/"):
        has_token = bool(request.header("Authorization"))
        assert has_token == request.path.startswith("/corp/"), request.path

    # Without the token the private registry is unreadable: a clear error, nothing changed. (Bytes already
    # installed would be reused without a download - client/local_copy.py - so the copy is removed first.)
    assert skill_cli("uninstall", "notes").code == 0
    monkeypatch.delenv("CORP_TOKEN")
    failed = skill_cli("install", "notes@corp", "--force")
    assert failed.code != 0
    assert not installed.exists()


def _tamper(git_server, registry, *, field, value):
    """Publish a registry.json whose `notes` entry claims another version with one file's `field` changed."""
    doc = json.loads(json.dumps(registry))
    entry = next(s for s in doc["skills"] if s["name"] == "notes")
    entry["version"] = "1.0.1"
    target = next(f for f in entry["files"] if f["path"] == "references/format.md")
    target[field] = value
    git_server.commit("acme", "skills", {"registry.json": json.dumps(doc, indent=2)}, message="tamper")


def test_tampered_file_aborts_and_previous_version_stays(registry, git_server, skill_cli, user_home):
    assert skill_cli("install", "notes").code == 0
    installed = skills_dir(user_home) / "notes"
    before = tree(installed)
    _tamper(git_server, registry, field="sha256", value=hashlib.sha256(b"evil").hexdigest())
    result = skill_cli("install", "notes", "--force")
    assert result.code == 1
    assert "references/format.md" in result.err and "sha256" in result.err
    assert tree(installed) == before
    assert sorted(p.name for p in skills_dir(user_home).iterdir() if not p.name.startswith(".skill-cli")) == ["notes"]

    plan = skill_cli("update", "notes")
    assert plan.code == 1 and "references/format.md" in plan.err
    assert tree(installed) == before


def test_size_mismatch_on_fresh_install_writes_nothing(registry, git_server, skill_cli, user_home):
    _tamper(git_server, registry, field="size", value=3)
    result = skill_cli("install", "notes")
    assert result.code == 1 and "references/format.md" in result.err and "bytes" in result.err
    assert not (skills_dir(user_home) / "notes").exists()
    assert not (user_home / ".claude").exists()


def test_required_input_missing_fails_before_anything_is_written(registry, skill_cli, user_home):
    result = skill_cli("install", "report-kit")
    assert result.code == 1
    assert "team" in result.err and "--input team=" in result.err
    assert not skills_dir(user_home).exists()
    bad = skill_cli("install", "report-kit", "--input", "team=core", "--input", "limit=lots")
    assert bad.code == 1 and "limit" in bad.err and "number" in bad.err
    unknown = skill_cli("install", "report-kit", "--input", "team=core", "--input", "colour=red")
    assert unknown.code == 1 and "colour" in unknown.err
    assert not skills_dir(user_home).exists()


def test_inputs_render_in_skill_md_with_config_and_cli_precedence(registry, configure, skill_cli, user_home):
    configure("inputs.report-kit", {"team": "from-config", "tone": "casual"})
    result = skill_cli("install", "report-kit", "--input", "limit=12", "--json")
    assert result.code == 0, result.err
    folder = skills_dir(user_home) / "report-kit"
    text = (folder / "SKILL.md").read_text()
    assert "Report for team from-config, at most 12 items, casual tone." in text
    assert "{{inputs.team}}" in (folder / "assets" / "template.md").read_text()
    lock = json.loads((folder / "skill.lock.json").read_text())
    assert lock["resolved_inputs"] == {"team": "from-config", "limit": 12, "tone": "casual"}
    skill_md_entry = next(f for f in lock["files"] if f["path"] == "SKILL.md")
    assert skill_md_entry["sha256"] == hashlib.sha256((folder / "SKILL.md").read_bytes()).hexdigest()
    cli_wins = skill_cli("install", "report-kit", "--input", "team=cli", "--force")
    assert cli_wins.code == 0, cli_wins.err
    assert "Report for team cli," in (folder / "SKILL.md").read_text()


def test_dry_run_writes_nothing(registry, skill_cli, user_home, tmp_path):
    result = skill_cli("install", "report-kit", "--input", "team=x", "--dry-run", "--target", "cursor")
    assert result.code == 0, result.err
    assert "SKILL.md" in result.out and "team = 'x'" in result.out and "cursor" in result.out
    assert "nothing was written" in result.out
    project = tmp_path / "proj"
    project.mkdir()
    as_json = skill_cli("install", "notes", "--dry-run", "--json", "--project-dir", str(project))
    plan = json.loads(as_json.out)["skills"][0]
    assert plan["status"] == "planned" and plan["total_size"] == sum(f["size"] for f in plan["files"])
    assert not skills_dir(user_home).exists()
    assert list(project.iterdir()) == []


def test_project_lock_restore_is_byte_identical(registry, git_server, skill_cli, tmp_path, user_home):
    project = tmp_path / "proj"
    project.mkdir()
    for args in (["notes"], ["report-kit", "--input", "team=web"]):
        result = skill_cli("install", *args, "--project-dir", str(project), "--target", "claude-code")
        assert result.code == 0, result.err
    lock_text = (project / "skills.lock.json").read_text()
    lock = json.loads(lock_text)
    assert list(lock["skills"]) == ["notes", "report-kit"]
    assert lock["skills"]["report-kit"]["resolved_inputs"]["team"] == "web"
    assert lock["skills"]["notes"]["targets"] == ["claude-code"]
    assert "T" not in json.dumps(lock["skills"]["notes"]["resolved_source"]).replace("sha256", "")  # no timestamps
    originals = {name: tree(project / ".agents" / "skills" / name) for name in ("notes", "report-kit")}
    assert not (skills_dir(user_home)).exists()

    # The registry moves on; a fresh checkout restores exactly the locked versions.
    publish_registry(git_server, "acme", "skills", [notes_v2(), REPORT_KIT], name="acme")
    import shutil

    shutil.rmtree(project / ".agents")
    shutil.rmtree(project / ".claude")
    restored = skill_cli("install", "--project-dir", str(project), "--json")
    assert restored.code == 0, restored.err
    for name, files in originals.items():
        assert tree(project / ".agents" / "skills" / name) == files
    assert (project / ".claude" / "skills" / "notes").is_symlink()
    assert (project / "skills.lock.json").read_text() == lock_text

    # A locked hash that no longer matches what is served aborts the restore.
    broken = json.loads(lock_text)
    broken["skills"]["notes"]["files"][0]["sha256"] = "0" * 64
    (project / "skills.lock.json").write_text(json.dumps(broken))
    shutil.rmtree(project / ".agents")
    failed = skill_cli("install", "--project-dir", str(project))
    assert failed.code == 1 and "notes" in failed.err
    assert not (project / ".agents" / "skills" / "notes").exists()


def test_broken_lockfile_is_named(registry, skill_cli, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "skills.lock.json").write_text(json.dumps({"schema_version": "1.0", "skills": {"Bad Name": {}}}))
    result = skill_cli("install", "--project-dir", str(project))
    assert result.code == 1 and "skills.lock.json" in result.err
    (project / "skills.lock.json").write_text("{not json")
    result = skill_cli("install", "--project-dir", str(project))
    assert result.code == 1 and "skills.lock.json" in result.err


def test_project_uninstall_drops_lock_entry(registry, skill_cli, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    assert skill_cli("install", "notes", "--project-dir", str(project)).code == 0
    assert skill_cli("uninstall", "notes", "--project-dir", str(project)).code == 0
    assert json.loads((project / "skills.lock.json").read_text())["skills"] == {}
    assert not (project / ".agents" / "skills" / "notes").exists()


def test_local_folder_install_validates_first(skill_cli, tmp_path, user_home, skill_home):
    good = tmp_path / "my-skill"
    good.mkdir()
    (good / "SKILL.md").write_text(skill_md("my-skill", "Does a thing when asked."))
    bad = tmp_path / "bad-skill"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: Bad Skill\n---\nbody\n")
    refused = skill_cli("install", str(bad))
    # the missing description refuses (an odd name alone would only warn: issue 12 item 5)
    assert refused.code == 1 and "not a valid skill" in refused.err and "`description`" in refused.err
    assert not skills_dir(user_home).exists()
    ok = skill_cli("install", str(good), "--target", "agents", "--json")
    assert ok.code == 0, ok.err
    lock = json.loads((skills_dir(user_home) / "my-skill" / "skill.lock.json").read_text())
    assert lock["resolved_source"]["type"] == "local"
    assert lock["targets"] == [{"mode": "canonical", "path": str(skills_dir(user_home) / "my-skill"),
                                "scope": "user", "target": "agents"}]


def test_project_flag_uses_the_current_folder_and_update_moves_the_lock(registry, git_server, skill_cli, tmp_path,
                                                                         monkeypatch, user_home):
    project = tmp_path / "proj"
    project.mkdir()
    monkeypatch.chdir(project)
    assert skill_cli("install", "notes", "--project", "--target", "cursor").code == 0
    assert (project / ".agents" / "skills" / "notes" / "SKILL.md").is_file()
    assert json.loads((project / "skills.lock.json").read_text())["skills"]["notes"]["version"] == "1.0.0"
    listed = json.loads(skill_cli("list", "--json").out)["skills"]
    assert [(s["name"], s["scope"]) for s in listed] == [("notes", "project")]
    publish_registry(git_server, "acme", "skills", [notes_v2(), REPORT_KIT], name="acme")
    updated = skill_cli("update", "--all", "--project")
    assert updated.code == 0, updated.err
    lock = json.loads((project / "skills.lock.json").read_text())["skills"]["notes"]
    assert lock["version"] == "1.1.0" and lock["targets"] == ["cursor"]
    assert "references/examples.md" in {f["path"] for f in lock["files"]}
    assert not (user_home / ".agents").exists()


def test_project_lock_records_a_local_skill_inside_the_project_relative_to_it(skill_cli, tmp_path):
    import shutil

    project = tmp_path / "proj"
    folder = project / "vendor" / "house-style"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md("house-style", "Applies the team's writing style to documents."))
    installed = skill_cli("install", str(folder), "--project-dir", str(project), "--target", "agents")
    assert installed.code == 0, installed.err
    lock = json.loads((project / "skills.lock.json").read_text())
    assert lock["skills"]["house-style"]["resolved_source"]["path"] == "vendor/house-style"
    moved = tmp_path / "elsewhere" / "proj"  # another checkout of the same project
    shutil.copytree(project, moved, symlinks=True)
    shutil.rmtree(moved / ".agents")
    restored = skill_cli("install", "--project-dir", str(moved), "--json")
    assert restored.code == 0, restored.err
    assert (moved / ".agents" / "skills" / "house-style" / "SKILL.md").read_bytes() == (folder / "SKILL.md").read_bytes()
    assert json.loads((moved / "skills.lock.json").read_text()) == lock


def test_doctor_reports_a_live_source_as_answering(registry, git_server, skill_cli):
    git_server.clear_log()
    result = skill_cli("doctor", "--json")
    sources = [f for f in json.loads(result.out)["findings"] if f["check"] == "source"]
    assert [(f["source"], f["status"]) for f in sources] == [("acme", "ok")]
    assert "answers" in sources[0]["message"]
    assert git_server.requests("registry.json"), "doctor must really ask the server"
