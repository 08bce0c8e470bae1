"""Issue 12 item 5: install limits are the client's own; tolerated standard violations warn, `--strict` refuses.
Safety findings (paths, links, invisible characters, ...) stay errors whatever the policy."""

from __future__ import annotations

import json
from pathlib import Path

MIB = 1024 * 1024


def make_skill(root: Path, name: str, *, description: str = "Does one thing well.", extra: dict | None = None,
               folder: str | None = None) -> Path:
    path = root / (folder or name)
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nDo the thing.\n")
    for rel, data in (extra or {}).items():
        (path / rel).write_bytes(data)
    return path


def installed(user_home: Path, name: str) -> Path:
    return user_home / ".claude" / "skills" / name


def test_long_description_installs_with_a_warning(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "long-desc", description="x" * 1500)
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    warnings = json.loads(result.out)["skills"][0]["warnings"]
    assert any("1500 characters" in w and "--strict" in w for w in warnings), warnings
    assert (installed(user_home, "long-desc") / "SKILL.md").is_file()


def test_long_description_is_refused_with_strict(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "long-desc", description="x" * 1500)
    result = skill_cli("install", str(source), "--strict")
    assert result.code != 0
    assert "1500 characters" in result.err and "without --strict" in result.err
    assert "Traceback" not in result.err
    assert not installed(user_home, "long-desc").exists()


def test_strict_from_config_refuses(tmp_path, skill_cli, user_home, configure):
    configure("install.strict", True)
    source = make_skill(tmp_path / "src", "long-desc", description="x" * 1500)
    assert skill_cli("install", str(source)).code != 0
    assert not installed(user_home, "long-desc").exists()


def test_name_unlike_its_folder_warns(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "plain-name", folder="Some_Folder")
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    warnings = json.loads(result.out)["skills"][0]["warnings"]
    assert any("Some_Folder" in w for w in warnings), warnings
    assert installed(user_home, "plain-name").is_dir()
    assert skill_cli("install", str(source), "--strict", "--force").code != 0


def test_an_odd_name_installs_under_its_slug_with_a_warning(tmp_path, skill_cli, user_home):
    """Runtimes tolerate `Odd_Name`: it installs as `odd-name` (the folder stays one safe, lowercase component,
    so two names differing by case never meet on a case-insensitive disk), with a warning; --strict refuses."""
    source = make_skill(tmp_path / "src", "Odd_Name", folder="odd-name")
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)["skills"][0]
    assert outcome["name"] == "odd-name"
    assert any("installed as `odd-name`" in w and "--strict" in w for w in outcome["warnings"]), outcome["warnings"]
    assert "name: Odd_Name" in (installed(user_home, "odd-name") / "SKILL.md").read_text()
    assert skill_cli("uninstall", "odd-name").code == 0
    strict = skill_cli("install", str(source), "--strict")
    assert strict.code != 0 and "Traceback" not in strict.err and "without --strict" in strict.err
    assert not installed(user_home, "odd-name").exists()


def test_a_name_that_is_a_path_is_still_refused(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "x", folder="plain")
    (source / "SKILL.md").write_text("---\nname: ../../escape\ndescription: Does one thing well.\n---\nDo it.\n")
    result = skill_cli("install", str(source))
    assert result.code != 0 and "Traceback" not in result.err and "`name`" in result.err
    assert not (user_home / ".claude").exists() and not (tmp_path / "escape").exists()


def test_bad_optional_metadata_warns_instead_of_refusing(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "meta-skill")
    (source / "skill.yaml").write_text('schema_version: "1.0"\nversion: "1.0.0"\nhomepage: not a url\n'
                                       'author: 5\ntags: ["Not A Tag!"]\n')
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    warnings = " ".join(json.loads(result.out)["skills"][0]["warnings"])
    assert "homepage" in warnings and "author" in warnings
    assert installed(user_home, "meta-skill").is_dir()
    strict = skill_cli("install", str(source), "--strict", "--force")
    assert strict.code != 0 and "homepage" in strict.err


def test_bad_catalogue_fields_warn_but_runtime_fields_refuse(tmp_path, skill_cli, user_home):
    """keywords, category, domain, origin and when_to_use are catalogue text no runtime reads: a wrong type warns
    (one real skill writes `keywords: pdf, docs`). A field a runtime acts on (`user-invocable`) still refuses."""
    source = make_skill(tmp_path / "src", "catalogue-skill")
    (source / "skill.yaml").write_text('schema_version: "1.0"\nversion: "1.0.0"\nkeywords: pdf, docs\n'
                                       'category: [a, b]\nwhen_to_use: 5\n')
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    warnings = " ".join(json.loads(result.out)["skills"][0]["warnings"])
    assert "keywords" in warnings and "category" in warnings and "when_to_use" in warnings
    strict = skill_cli("install", str(source), "--strict", "--force")
    assert strict.code != 0 and "keywords" in strict.err
    runtime = make_skill(tmp_path / "src2", "runtime-skill")
    md = (runtime / "SKILL.md").read_text()
    (runtime / "SKILL.md").write_text(md.replace("---\n", "---\nuser-invocable: maybe\n", 1))
    refused = skill_cli("install", str(runtime))
    assert refused.code != 0 and "user-invocable" in refused.err
    assert not installed(user_home, "runtime-skill").exists()


def test_bad_inputs_metadata_still_refuses(tmp_path, skill_cli, user_home):
    """Inputs are acted on by the client: a malformed declaration is not informational metadata."""
    source = make_skill(tmp_path / "src", "inputs-skill")
    (source / "skill.yaml").write_text('schema_version: "1.0"\nversion: "1.0.0"\ninputs: 5\n')
    result = skill_cli("install", str(source))
    assert result.code != 0 and "Traceback" not in result.err
    assert not installed(user_home, "inputs-skill").exists()


def test_a_github_tarball_over_the_download_cap_is_refused_naming_the_key(git_server, skill_cli, user_home,
                                                                          configure):
    import os

    noise = os.urandom(3 * MIB)  # does not compress: the tarball itself is over the cap
    git_server.create_repo("acme", "bulky", {"SKILL.md": "---\nname: bulky\ndescription: Big.\n---\nBig.\n",
                                             "data.bin": noise})
    configure("install.max_download_bytes", 2 * MIB)
    result = skill_cli("install", "github:acme/bulky")
    assert result.code != 0 and "Traceback" not in result.err
    assert "install.max_download_bytes" in result.err and "nothing was installed" in result.err
    assert not installed(user_home, "bulky").exists()
    configure("install.max_download_bytes", 4 * MIB)
    assert skill_cli("install", "github:acme/bulky").code == 0
    assert (installed(user_home, "bulky") / "data.bin").read_bytes() == noise


def test_the_download_cap_defaults_to_ten_mib(skill_home):
    from skillyard.client.config import load_config
    from skillyard.client.install import download_cap

    assert download_cap(load_config()) == 10 * MIB


def test_a_registry_entry_over_the_clients_limits_is_refused_before_download(git_server, skill_cli, user_home,
                                                                             configure):
    """The registry published it under its own policy; the client still holds it to the client's limits."""
    from tests.support.registry import publish_registry, registry_url

    files = {"SKILL.md": "---\nname: many\ndescription: Many files.\n---\nMany.\n"}
    files.update({f"refs/r{i}.md": f"# {i}\n" for i in range(12)})
    publish_registry(git_server, "acme", "skills", [{"name": "many", "description": "Many files.",
                                                     "version": "1.0.0", "files": files}], name="acme")
    configure.source("acme", registry_url(git_server, "acme", "skills"))
    configure("install.max_files", 10)
    result = skill_cli("install", "many")
    assert result.code != 0 and "Traceback" not in result.err
    assert "install.max_files" in result.err and "13 files" in result.err
    assert not git_server.requests("/refs/"), "files were downloaded before the check"
    assert not installed(user_home, "many").exists()
    configure("install.max_files", 1000)
    configure("install.max_download_bytes", 50)
    result = skill_cli("install", "many")
    assert result.code != 0 and "install.max_download_bytes" in result.err
    assert not installed(user_home, "many").exists()


def test_eleven_mib_installs_but_the_registry_refuses_to_publish(tmp_path, skill_cli, user_home):
    from skillyard.format import Policy, load_skill

    parts = {f"data{i}.txt": b"a" * (MIB - 10) + b"\n" for i in range(11)}
    source = make_skill(tmp_path / "src", "big-skill", extra=parts)
    result = skill_cli("install", str(source), "--json")
    assert result.code == 0, result.err
    assert (installed(user_home, "big-skill") / "data10.txt").stat().st_size == MIB - 9
    registry = load_skill(source, Policy())  # the registry's publishing policy: 10 MiB in total
    assert not registry.valid and "package-too-large" in {f.rule for f in registry.errors}


def test_thirty_mib_is_refused_naming_the_config_key(tmp_path, skill_cli, user_home):
    parts = {f"data{i}.txt": b"a" * (8 * MIB - 1) + b"\n" for i in range(4)}
    source = make_skill(tmp_path / "src", "huge-skill", extra=parts)
    result = skill_cli("install", str(source))
    assert result.code != 0
    assert "install.max_total_bytes" in result.err and "Traceback" not in result.err
    assert not installed(user_home, "huge-skill").exists()


def test_the_limit_is_configurable(tmp_path, skill_cli, user_home, configure, monkeypatch):
    source = make_skill(tmp_path / "src", "mid-skill", extra={"data.txt": b"a" * (2 * MIB)})
    monkeypatch.setenv("SKILL_INSTALL_MAX_TOTAL_BYTES", str(MIB))
    result = skill_cli("install", str(source))
    assert result.code != 0 and "install.max_total_bytes" in result.err
    monkeypatch.delenv("SKILL_INSTALL_MAX_TOTAL_BYTES")
    configure("install.max_files", 1)
    result = skill_cli("install", str(source))
    assert result.code != 0 and "install.max_files" in result.err
    assert not installed(user_home, "mid-skill").exists()


def test_safety_findings_stay_errors_without_strict(tmp_path, skill_cli, user_home):
    source = make_skill(tmp_path / "src", "sneaky", description="Looks fine\u200b here.")
    result = skill_cli("install", str(source))
    assert result.code != 0 and "Traceback" not in result.err
    assert not installed(user_home, "sneaky").exists()


def test_bad_config_value_is_a_clear_error(tmp_path, skill_cli, user_home, configure):
    configure("install.strict", "maybe")
    source = make_skill(tmp_path / "src", "plain")
    result = skill_cli("install", str(source))
    assert result.code != 0 and "install.strict" in result.err and "Traceback" not in result.err


def test_folder_name_is_a_safe_name_or_a_refusal():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from skillyard.client import store
    from skillyard.client.install import folder_name
    from skillyard.errors import SkillyardError

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.text(max_size=80), st.sampled_from(["Odd_Name", "../x", "/abs", "a/b", "CON", ".git", "--",
                                                            "PDF Tools", "ＡＢＣ", "x" * 65, "Demo"])))
    def check(name):
        try:
            folder, warnings = folder_name(name, where="t", strict=False)
        except SkillyardError:
            return
        assert store.check_name(folder) == folder
        assert (folder == name) == (warnings == [])
        assert "/" not in name and ".." not in name.split("/")

    check()


def test_a_lock_restore_is_held_to_the_clients_limits_too(registry, git_server, skill_cli, tmp_path, configure):
    """Restoring locked files from a registry that has moved on downloads by the lock's list: still checked."""
    import shutil

    from tests.client_install.conftest import REPORT_KIT, notes_v2
    from tests.support.registry import publish_registry

    project = tmp_path / "proj"
    project.mkdir()
    assert skill_cli("install", "notes", "--project-dir", str(project)).code == 0
    publish_registry(git_server, "acme", "skills", [notes_v2(), REPORT_KIT], name="acme")
    shutil.rmtree(project / ".agents")
    configure("install.max_files", 2)
    git_server.clear_log()
    result = skill_cli("install", "--project-dir", str(project))
    assert result.code != 0 and "Traceback" not in result.err and "install.max_files" in result.err
    assert not git_server.requests("/references/"), "files were downloaded before the check"
    assert not (project / ".agents" / "skills" / "notes").exists()
    configure("install.max_files", 1000)
    assert skill_cli("install", "--project-dir", str(project)).code == 0


def test_a_name_with_no_ascii_slug_installs_under_its_folder_and_a_long_one_is_cut(tmp_path, skill_cli, user_home):
    """Real skills are named `文字冒险游戏大师` or `WhatsApp Business Suite — AI Leads, Channels, Campaigns & 32 MCP
    Tools`: runtimes load them, so the client installs them — under the source folder's name when the name has no
    ASCII letters, and under the slug cut at a hyphen to 64 characters when it is too long; --strict refuses both."""
    cjk = make_skill(tmp_path / "src", "text-adventure")
    md = (cjk / "SKILL.md").read_text(encoding="utf-8")
    (cjk / "SKILL.md").write_text(md.replace("name: text-adventure", "name: 文字冒险游戏大师"), encoding="utf-8")
    result = skill_cli("install", str(cjk))
    assert result.code == 0, result.err
    assert installed(user_home, "text-adventure").is_dir() and "installed as `text-adventure`" in result.err
    assert skill_cli("install", str(cjk), "--strict", "--force").code != 0

    long_name = "WhatsApp Business Suite — AI Leads, Channels, Campaigns & 32 MCP Tools and Flows"
    wordy = make_skill(tmp_path / "src2", "whatsapp-suite")
    md = (wordy / "SKILL.md").read_text(encoding="utf-8")
    (wordy / "SKILL.md").write_text(md.replace("name: whatsapp-suite", f"name: {long_name}"), encoding="utf-8")
    result = skill_cli("install", str(wordy))
    assert result.code == 0, result.err
    cut = "whatsapp-business-suite-ai-leads-channels-campaigns-32-mcp-tools"  # 64 characters: "-and-flows" is cut
    assert len(cut) == 64 and installed(user_home, cut).is_dir(), result.err

    nameless = make_skill(tmp_path / "src3", "文档")  # neither the name nor the folder gives a standard name
    result = skill_cli("install", str(nameless))
    assert result.code != 0 and "Traceback" not in result.err
