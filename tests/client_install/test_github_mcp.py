"""github: installs from a codeload-style tarball endpoint, hostile archives, and MCP dependency checks
against a real MCP server (official SDK, streamable HTTP) and a plain `/tools/list` hub."""

import io
import json
import os
import tarfile
from pathlib import Path

import pytest
from tests.support.registry import publish_registry, skill_md

from .conftest import MCP_TOOLS, tree

SKILL_SRC = Path(__file__).resolve().parents[2] / "skills" / "invoice-processor"


def repo_files(prefix: str = "") -> dict[str, bytes]:
    return {prefix + p.relative_to(SKILL_SRC).as_posix(): p.read_bytes()
            for p in sorted(SKILL_SRC.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def skills_dir(home):
    return home / ".agents" / "skills"


def test_milestone_github_invoice_processor_with_mcp_server(git_server, mcp_server, configure, skill_cli, user_home):
    sha = git_server.create_repo("acme", "invoice-processor", repo_files())
    configure("mcp_hub.endpoint", mcp_server)
    result = skill_cli("install", "github:acme/invoice-processor", "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)["skills"][0]
    assert outcome["deps"]["checked"] and outcome["deps"]["missing_required"] == []
    assert outcome["deps"]["missing_optional"] == ["doc.excel_create"]
    folder = skills_dir(user_home) / "invoice-processor"
    lock = json.loads((folder / "skill.lock.json").read_text())
    assert lock["resolved_source"] == {"type": "github", "url": "https://github.com/acme/invoice-processor",
                                       "commit": sha, "integrity": lock["resolved_source"]["integrity"]}
    assert "`invoices`" in (folder / "SKILL.md").read_text()  # the input default was rendered
    assert os.access(folder / "scripts" / "invoice_fields.py", os.R_OK)
    assert (user_home / ".claude" / "skills" / "invoice-processor").is_symlink()
    assert git_server.requests("/acme/invoice-processor/tar.gz/HEAD")

    deps = skill_cli("check-deps", "--json")
    assert deps.code == 0, deps.err
    report = json.loads(deps.out)["skills"][0]
    assert {d["tool"]: d["available"] for d in report["deps"]} == {
        "ocr.recognize": True, "kb.upload": True, "kb.search": True, "doc.excel_create": False}


def test_github_subfolder_and_pinned_ref_and_project_restore(git_server, skill_cli, tmp_path, configure, mcp_server):
    configure("mcp_hub.endpoint", mcp_server)
    first = git_server.create_repo("acme", "tools", {**repo_files("skills/invoice-processor/"),
                                                     "README.md": "repo readme\n"})
    git_server.commit("acme", "tools", {"skills/invoice-processor/references/fields.md": "changed later\n"})
    project = tmp_path / "proj"
    project.mkdir()
    result = skill_cli("install", f"github:acme/tools/skills/invoice-processor@{first}", "--project-dir",
                       str(project), "--target", "agents")
    assert result.code == 0, result.err
    folder = project / ".agents" / "skills" / "invoice-processor"
    assert (folder / "references" / "fields.md").read_bytes() == (SKILL_SRC / "references" / "fields.md").read_bytes()
    assert not (folder / "README.md").exists()
    before = tree(folder)
    lock = json.loads((project / "skills.lock.json").read_text())["skills"]["invoice-processor"]
    assert lock["resolved_source"]["commit"] == first and lock["resolved_source"]["path"] == "skills/invoice-processor"
    import shutil

    shutil.rmtree(project / ".agents")
    restored = skill_cli("install", "--project-dir", str(project))
    assert restored.code == 0, restored.err
    assert tree(folder) == before


def _tarball(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = 0o644
    return info, data


def _special(name: str, kind: bytes, **attrs) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in attrs.items():
        setattr(info, key, value)
    return info, None


GOOD = skill_md("evil", "Looks harmless.", "# Evil\n").encode()
MALICIOUS = {
    "absolute": [_file("evil-1/SKILL.md", GOOD), _file("/tmp/owned.txt", b"x")],
    "dotdot": [_file("evil-1/SKILL.md", GOOD), _file("evil-1/../../owned.txt", b"x")],
    "symlink-out": [_file("evil-1/SKILL.md", GOOD), _special("evil-1/notes.md", tarfile.SYMTYPE, linkname="../../../etc/passwd")],
    "symlink-absolute": [_file("evil-1/SKILL.md", GOOD), _special("evil-1/notes.md", tarfile.SYMTYPE, linkname="/etc/passwd")],
    "hardlink-out": [_file("evil-1/SKILL.md", GOOD), _special("evil-1/notes.md", tarfile.LNKTYPE, linkname="/etc/passwd")],
    "device": [_file("evil-1/SKILL.md", GOOD), _special("evil-1/null", tarfile.CHRTYPE, devmajor=1, devminor=3)],
    "fifo": [_file("evil-1/SKILL.md", GOOD), _special("evil-1/pipe", tarfile.FIFOTYPE)],
}


@pytest.mark.parametrize("kind", sorted(MALICIOUS))
def test_malicious_tarballs_are_refused_with_nothing_written(kind, static_server, skill_home, skill_cli, user_home,
                                                              monkeypatch):
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", static_server.url)
    static_server.routes["/mallory/evil/tar.gz/HEAD"] = _tarball(MALICIOUS[kind])
    result = skill_cli("install", "github:mallory/evil")
    assert result.code == 1, result.out
    assert "Refusing the archive" in result.err
    assert not skills_dir(user_home).exists()
    assert not (user_home / ".claude").exists()


def test_link_inside_the_folder_becomes_a_copy(static_server, skill_home, skill_cli, user_home, monkeypatch):
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", static_server.url)
    # The skill sits in skills/evil/; a link elsewhere in the repository is not the skill's business.
    members = [_file("evil-1/skills/evil/SKILL.md", GOOD), _file("evil-1/skills/evil/references/a.md", b"# A\n"),
               _special("evil-1/skills/evil/references/alias.md", tarfile.SYMTYPE, linkname="a.md"),
               _special("evil-1/docs/outside", tarfile.SYMTYPE, linkname="/etc/passwd")]
    static_server.routes["/mallory/evil/tar.gz/v1"] = _tarball(members)
    result = skill_cli("install", "github:mallory/evil@v1", "--target", "agents")
    assert result.code == 0, result.err
    alias = skills_dir(user_home) / "evil" / "references" / "alias.md"
    assert not alias.is_symlink() and alias.read_bytes() == b"# A\n"


# ------------------------------------------------------------------------------------------------- MCP


def _dep_skill(name: str, deps: list[dict]) -> dict:
    return {"name": name, "description": f"{name} skill.", "version": "1.0.0", "mcp_deps": deps,
            "files": {"SKILL.md": skill_md(name, f"{name} skill.", version="1.0.0", license="MIT", mcp_deps=deps)}}


@pytest.fixture
def dep_registry(git_server, configure):
    from tests.support.registry import registry_url

    specs = [
        _dep_skill("needs-vision", [{"tool": "vision.describe", "required": True},
                                    {"tool": "ocr.recognize", "required": True}]),
        _dep_skill("nice-to-have", [{"tool": "ocr.recognize", "required": True},
                                    {"tool": "doc.excel_create", "required": False, "description": "Excel export"}]),
        {"name": "plain", "description": "No deps.", "version": "1.0.0"},
    ]
    publish_registry(git_server, "acme", "deps", specs)
    configure.source("acme", registry_url(git_server, "acme", "deps"))


def test_missing_required_tool_fails_cleanly_against_mcp_server(dep_registry, mcp_server, configure, skill_cli,
                                                                  user_home):
    configure("mcp_hub.endpoint", mcp_server)
    result = skill_cli("install", "needs-vision")
    assert result.code == 1
    assert "vision.describe" in result.err and "ocr.recognize" not in result.err.split("fix:")[0].split("tool(s)")[1]
    assert not skills_dir(user_home).exists() and not (user_home / ".claude").exists()


def test_missing_optional_tool_warns_and_installs(dep_registry, mcp_server, configure, skill_cli, user_home):
    configure("mcp_hub.endpoint", mcp_server)
    result = skill_cli("install", "nice-to-have")
    assert result.code == 0, result.err
    assert "doc.excel_create" in result.err and "warning" in result.err
    assert (skills_dir(user_home) / "nice-to-have" / "SKILL.md").is_file()


@pytest.mark.parametrize("shape", ["list", "names", "objects"])
def test_plain_hub_mode(shape, dep_registry, static_server, configure, skill_cli, user_home):
    tools = list(MCP_TOOLS)
    body = {"list": tools, "names": {"tools": tools}, "objects": {"tools": [{"name": t} for t in tools]}}[shape]
    static_server.routes["/hub/tools/list"] = json.dumps(body).encode()
    configure("mcp_hub.endpoint", static_server.url + "/hub")
    assert skill_cli("install", "needs-vision").code == 1
    ok = skill_cli("install", "nice-to-have", "--json")
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["skills"][0]["deps"]["missing_optional"] == ["doc.excel_create"]
    assert static_server.log.count("/hub/tools/list") == 2


def test_mode_forced_by_config_and_unreachable_hub(dep_registry, static_server, configure, skill_cli, user_home):
    static_server.routes["/mcp/tools/list"] = json.dumps(MCP_TOOLS).encode()
    configure("mcp_hub.endpoint", static_server.url + "/mcp")
    configure("mcp_hub.type", "hub")
    assert skill_cli("install", "nice-to-have").code == 0
    configure("mcp_hub.endpoint", "http://127.0.0.1:9/hub")  # nothing listens on the discard port
    configure("mcp_hub.timeout", 1000)
    down = skill_cli("install", "needs-vision")
    assert down.code == 1 and "--skip-deps-check" in down.err
    assert not (skills_dir(user_home) / "needs-vision").exists()
    skipped = skill_cli("install", "needs-vision", "--skip-deps-check")
    assert skipped.code == 0, skipped.err
    assert "not checked" in skipped.err


def test_skill_without_deps_never_contacts_the_hub(dep_registry, static_server, configure, skill_cli, user_home):
    static_server.routes["/hub/tools/list"] = b"[]"
    configure("mcp_hub.endpoint", static_server.url + "/hub")
    assert skill_cli("install", "plain").code == 0
    assert static_server.log == []


def test_check_deps_command_against_mcp_server(dep_registry, mcp_server, configure, skill_cli, user_home):
    configure("mcp_hub.endpoint", mcp_server)
    assert skill_cli("install", "nice-to-have").code == 0
    ok = skill_cli("check-deps", "nice-to-have", "--json")
    assert ok.code == 0 and json.loads(ok.out)["ok"] is True
    remote = skill_cli("check-deps", "needs-vision")
    assert remote.code == 1 and "vision.describe" in remote.err


def test_update_of_a_github_install_follows_the_branch_it_was_installed_from(git_server, skill_cli, user_home):
    from tests.support.gitserver import git

    base = skill_md("branch-notes", "Keeps release notes for a branch.")
    git_server.create_repo("acme", "branchy", {"skills/branch-notes/SKILL.md": base + "\nfirst\n"})
    repo = git_server.repo_path("acme", "branchy")
    git(repo, "branch", "stable")
    installed = skill_cli("install", "github:acme/branchy/skills/branch-notes@stable", "--target", "agents", "--json")
    assert installed.code == 0, installed.err
    skill_file = skills_dir(user_home) / "branch-notes" / "SKILL.md"
    git_server.commit("acme", "branchy", {"skills/branch-notes/SKILL.md": base + "\nmain only\n"})
    git(repo, "checkout", "-q", "stable")
    git_server.commit("acme", "branchy", {"skills/branch-notes/SKILL.md": base + "\nstable fix\n"})
    stable_head = git_server.sha("acme", "branchy")
    git(repo, "checkout", "-q", "main")
    updated = skill_cli("update", "branch-notes")
    assert updated.code == 0, updated.err
    assert skill_file.read_text().endswith("stable fix\n")
    lock = json.loads((skill_file.parent / "skill.lock.json").read_text())["resolved_source"]
    assert (lock["ref"], lock["commit"]) == ("stable", stable_head)


def test_outdated_compares_a_github_install_with_its_tracked_ref(git_server, skill_cli, user_home, monkeypatch):
    """`skill outdated` asks the GitHub API (the stand-in at $SKILL_GITHUB_API_URL) which commit the tracked ref
    names now: current while it is the installed commit, outdated once the ref moved, never "unknown"."""
    from tests.support.gitserver import git

    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    base = skill_md("branch-notes", "Keeps release notes for a branch.")
    first = git_server.create_repo("acme", "branchy", {"skills/branch-notes/SKILL.md": base + "\nfirst\n"})
    repo = git_server.repo_path("acme", "branchy")
    git(repo, "branch", "stable")
    assert skill_cli("install", "github:acme/branchy/skills/branch-notes@stable", "--target", "agents").code == 0
    git_server.create_repo("acme", "plain", {"SKILL.md": skill_md("plain-notes", "Keeps plain notes.")})
    assert skill_cli("install", "github:acme/plain", "--target", "agents").code == 0

    def rows():
        result = skill_cli("outdated", "--json")
        found = {s["name"]: s for s in json.loads(result.out)["skills"]}
        states = {s["state"] for s in found.values()}
        # `skill outdated`'s exit status: 1 with an update, 3 when a skill could not be checked, else 0
        want = 1 if "outdated" in states else 3 if not all(s["checked"] for s in found.values()) else 0
        assert result.code == want, result.err
        return found

    now = rows()
    assert {n: s["state"] for n, s in now.items()} == {"branch-notes": "current", "plain-notes": "current"}
    assert now["branch-notes"]["commits"] == {"ref": "stable", "installed": first, "latest": first}
    assert now["plain-notes"]["commits"]["ref"] == "HEAD"
    assert git_server.requests("/repos/acme/branchy/commits/stable")
    main_head = git_server.commit("acme", "branchy", {"skills/branch-notes/SKILL.md": base + "\nmain only\n"})
    assert rows()["branch-notes"]["state"] == "current"  # main moved, the tracked branch did not
    git(repo, "checkout", "-q", "stable")
    stable_head = git_server.commit("acme", "branchy", {"skills/branch-notes/SKILL.md": base + "\nstable fix\n"})
    git(repo, "checkout", "-q", "main")
    assert stable_head != main_head
    moved = rows()["branch-notes"]
    assert (moved["state"], moved["installed"], moved["latest"]) == ("outdated", first[:12], stable_head[:12])
    assert moved["commits"]["latest"] == stable_head
    table = skill_cli("outdated").out
    assert "branch-notes" in table and first[:12] in table and stable_head[:12] in table
    offline = skill_cli("outdated", "--offline", "--json")
    assert {s["state"] for s in json.loads(offline.out)["skills"]} == {"unknown"}
    assert offline.code == 3 and not any(s["checked"] for s in json.loads(offline.out)["skills"])
    git_server.fail_next(10, status=404, match="/repos/")
    broken = rows()["branch-notes"]
    assert broken["state"] == "unknown" and "cannot ask GitHub" in broken["reason"]
