"""Nothing a user wrote is lost (issue 35 item 2): a command that would delete an installed skill the user edited
refuses and names the changed files; with --force it first keeps a backup and says where."""

import json
import os

from .conftest import notes_v2, tree


def skills_dir(home):
    return home / ".agents" / "skills"


def test_uninstall_of_an_edited_skill_refuses_and_names_the_files(registry, skill_cli, user_home):
    assert skill_cli("install", "notes").code == 0
    installed = skills_dir(user_home) / "notes"
    (installed / "references" / "format.md").write_text("my own notes\n")
    (installed / "mine.md").write_text("added by me\n")
    refused = skill_cli("uninstall", "notes")
    assert refused.code == 1
    assert "references/format.md" in refused.err and "mine.md" in refused.err and "--force" in refused.err
    assert (installed / "mine.md").read_text() == "added by me\n"  # nothing removed
    assert json.loads(skill_cli("list", "--json").out)["skills"][0]["name"] == "notes"


def test_uninstall_force_keeps_a_named_backup_of_the_edited_folder(registry, skill_cli, user_home):
    assert skill_cli("install", "notes").code == 0
    installed = skills_dir(user_home) / "notes"
    (installed / "references" / "format.md").write_text("my own notes\n")
    before = tree(installed)
    gone = skill_cli("uninstall", "notes", "--force", "--json")
    assert gone.code == 0, gone.err
    [result] = json.loads(gone.out)["uninstalled"]
    backup = result["backup"]
    assert not installed.exists()
    assert tree(backup) == before  # every byte the user had, lock included
    assert os.path.dirname(backup) == str(user_home / ".agents" / "skill-backups")  # never inside the skills folder
    text = skill_cli("install", "notes").code == 0 and skill_cli("uninstall", "notes").out
    assert "backup" not in text  # an unedited skill needs no backup and gets none


def test_forced_install_over_edits_keeps_a_backup_too(registry, git_server, skill_cli, user_home):
    from tests.support.registry import publish_registry

    assert skill_cli("install", "notes").code == 0
    installed = skills_dir(user_home) / "notes"
    (installed / "references" / "format.md").write_text("my own notes\n")
    publish_registry(git_server, "acme", "skills", [notes_v2()], name="acme")
    refused = skill_cli("update", "notes")
    assert refused.code == 1 and "references/format.md" in refused.err
    forced = skill_cli("update", "notes", "--force")
    assert forced.code == 0, forced.err
    backups = sorted((user_home / ".agents" / "skill-backups").iterdir())
    assert len(backups) == 1 and (backups[0] / "references" / "format.md").read_text() == "my own notes\n"
    assert str(backups[0].name) in forced.err + forced.out
    assert (installed / "references" / "format.md").read_text() != "my own notes\n"
