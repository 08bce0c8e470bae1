"""Install-time scanning honours a reviewed security exception only from a registry entry that carries it: a
registry's reviewers decide, so the skill.yaml of a folder, an archive or a registry entry without the field does
not let the finding through (the refusal says why)."""

import zipfile

from tests.support.registry import publish_built_registry, publish_registry, registry_url, skill_md

REASON = "Shows a zero-width space as an example of hidden text."
EXCEPTION = {"rule": "security-invisible-unicode", "file": "references/x.md", "reason": REASON}
ATTACK = "A hidden split: read\u200bthe notes.\n"
FILES = {
    "SKILL.md": skill_md("teach", "Teaches how prompt injection hides text. Use when reviewing skills.",
                         license="MIT"),
    "references/x.md": ATTACK,
    "skill.yaml": ('schema_version: "1.0"\nversion: 1.0.0\ntags: [security]\nsecurity_exceptions:\n'
                   f"  - rule: security-invisible-unicode\n    file: references/x.md\n    reason: {REASON}\n"),
}
SPEC = {"name": "teach", "description": "Teaches how prompt injection hides text. Use when reviewing skills.",
        "version": "1.0.0", "tags": ["security"], "files": FILES}
UNTRUSTED = "only honoured from a registry that reviewed it"


def installed(user_home):
    return user_home / ".agents" / "skills" / "teach"


def test_install_from_a_served_registry_honours_the_entrys_exception(git_server, configure, skill_cli, user_home):
    registry = publish_built_registry(git_server, "acme", "teach", [SPEC], name="acme", strict=True)
    assert registry["skills"][0]["security_exceptions"] == [EXCEPTION]
    configure.source("acme", registry_url(git_server, "acme", "teach"))
    result = skill_cli("install", "teach", "--json")
    assert result.code == 0, result.err
    assert (installed(user_home) / "references" / "x.md").read_text(encoding="utf-8") == ATTACK


def test_a_registry_entry_without_the_exception_is_refused(git_server, configure, skill_cli, user_home):
    """The files' own skill.yaml lists the exception, but the registry's entry does not: not reviewed."""
    publish_registry(git_server, "acme", "teach", [SPEC], name="acme")
    configure.source("acme", registry_url(git_server, "acme", "teach"))
    result = skill_cli("install", "teach")
    assert result.code == 1
    assert "references/x.md" in result.err and "U+200B" in result.err and UNTRUSTED in result.err
    assert not installed(user_home).exists()

    publish_registry(git_server, "acme", "teach", [{**SPEC, "security_exceptions": [EXCEPTION]}], name="acme")
    result = skill_cli("install", "teach")
    assert result.code == 0, result.err
    assert (installed(user_home) / "references" / "x.md").read_text(encoding="utf-8") == ATTACK


def test_an_exception_for_another_file_in_the_entry_does_not_help(git_server, configure, skill_cli, user_home):
    other = {**EXCEPTION, "file": "SKILL.md"}
    publish_registry(git_server, "acme", "teach", [{**SPEC, "security_exceptions": [other]}], name="acme")
    configure.source("acme", registry_url(git_server, "acme", "teach"))
    result = skill_cli("install", "teach")
    assert result.code == 1 and "references/x.md" in result.err
    assert not installed(user_home).exists()


def write_folder(root):
    folder = root / "teach"
    for rel, text in FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def test_install_from_a_folder_does_not_honour_its_own_exception(tmp_path, skill_cli, user_home):
    folder = write_folder(tmp_path / "src")
    result = skill_cli("install", str(folder))
    assert result.code == 1
    assert "references/x.md" in result.err and UNTRUSTED in result.err
    assert not installed(user_home).exists()


def test_install_from_an_archive_does_not_honour_its_own_exception(tmp_path, skill_cli, user_home):
    archive = tmp_path / "teach.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for rel, text in FILES.items():
            zf.writestr(rel, text)
    result = skill_cli("install", str(archive))
    assert result.code == 1
    assert "references/x.md" in result.err and UNTRUSTED in result.err
    assert not installed(user_home).exists()
