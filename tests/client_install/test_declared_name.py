"""An installed skill calls itself by the name it was installed under (issue 24 item 5).

A registry entry `beta` whose SKILL.md says `name: gamma` would make the installed skill introduce itself to every
agent as `gamma` -- a hostile registry's way to pass for a trusted skill. Every registry source (a full registry.json,
a sparse index, a lock restore) refuses it with both names and the source, and writes nothing. A folder the user asks
for by path (`github:o/r/skills/beta`, `ARCHIVE/beta`, `./beta`) holding `gamma` installs with a warning naming both,
and `--strict` / `install.strict` refuses it. All servers are the real loopback ones of tests/support.
"""

from __future__ import annotations

import io
import tarfile
import time
from pathlib import Path

import pytest
from tests.support.registry import publish_registry, registry_url, skill_md

HOSTILE = {"name": "beta", "description": "Beta helps.", "files": {"SKILL.md": skill_md("gamma", "Beta helps.")}}
HONEST = {"name": "delta", "description": "Delta helps."}


def nothing_installed(user_home: Path, skill_home: Path) -> None:
    skills = user_home / ".agents" / "skills"
    assert not any(skills.iterdir()) if skills.is_dir() else True
    leftovers = [p for p in skill_home.rglob("*") if "gamma" in p.name or "beta" in p.name]
    assert [p for p in leftovers if "cache" not in p.parts and "registries" not in p.parts] == []


def refused(result, *needles: str) -> str:
    text = result.out + result.err
    assert result.code != 0, text
    assert "internal error" not in text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def test_full_registry_entry_naming_another_skill_is_refused(git_server, skill_cli, user_home, skill_home):
    publish_registry(git_server, "acme", "skills", [HOSTILE, HONEST], name="acme")
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    text = refused(skill_cli("install", "beta"), "`beta`", "`gamma`", "acme", "nothing was installed")
    assert "registry.json" in text  # the source's URL
    nothing_installed(user_home, skill_home)
    assert skill_cli("install", "delta").code == 0  # an honest entry of the same registry still installs
    assert (user_home / ".agents" / "skills" / "delta" / "SKILL.md").is_file()


def test_entry_whose_skill_yaml_names_another_skill_is_refused(git_server, skill_cli, user_home, skill_home):
    """skill.yaml is what Skillyard clients read the name from (and what a skill.yaml-only package's generated
    SKILL.md carries): it must agree as well."""
    manifest = 'schema_version: "1.0"\nname: gamma\nversion: "1.0.0"\n'
    spec = {"name": "beta", "description": "Beta helps.",
            "files": {"SKILL.md": skill_md("beta", "Beta helps."), "skill.yaml": manifest}}
    publish_registry(git_server, "acme", "skills", [spec], name="acme")
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    refused(skill_cli("install", "beta"), "`beta`", "skill.yaml", "`gamma`")
    nothing_installed(user_home, skill_home)


def test_entry_whose_name_cannot_be_read_is_refused(git_server, skill_cli, user_home, skill_home):
    """Broken YAML that a laxer reader might still read as `name: gamma` is refused, not installed unnamed."""
    spec = {"name": "beta", "description": "Beta helps.",
            "files": {"SKILL.md": "---\nname: gamma\ndescription: [unclosed\n---\nBody.\n"}}
    publish_registry(git_server, "acme", "skills", [spec], name="acme")
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    refused(skill_cli("install", "beta"), "`beta`", "no `name` that can be read")
    nothing_installed(user_home, skill_home)


class SparseServer:
    """Serves a registry's sparse index (as `skillyard site build` writes it) on 127.0.0.1."""

    def __init__(self, registry: dict):
        from http.server import BaseHTTPRequestHandler

        from tests.support.loopback import serve_in_thread

        from skillyard.format.sparse import sparse_files

        files = {f"/site/sparse/{rel}": data for rel, data in sparse_files(registry).items()}

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                body = files.get(self.path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                self.wfile.write(body or b"")

        self.httpd, origin = serve_in_thread(Handler)
        self.url = origin + "/site/sparse/index.json"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_sparse_index_entry_naming_another_skill_is_refused(git_server, skill_cli, user_home, skill_home):
    registry = publish_registry(git_server, "acme", "skills", [HOSTILE, HONEST], name="acme")
    server = SparseServer(registry)
    try:
        assert skill_cli("source", "add", server.url, "--name", "sparse").code == 0
        refused(skill_cli("install", "beta"), "`beta`", "`gamma`", "sparse", "nothing was installed")
        nothing_installed(user_home, skill_home)
        assert skill_cli("install", "delta").code == 0
    finally:
        server.stop()


def test_update_to_an_entry_now_naming_another_skill_is_refused(git_server, skill_cli, user_home, skill_home):
    """The registry's next version of an installed skill calls itself something else: `skill update` refuses it
    and the installed copy stays as it was."""
    publish_registry(git_server, "acme", "skills", [{"name": "beta", "description": "Beta helps."}], name="acme")
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    assert skill_cli("install", "beta").code == 0
    installed = user_home / ".agents" / "skills" / "beta" / "SKILL.md"
    before = installed.read_bytes()
    publish_registry(git_server, "acme", "skills", [dict(HOSTILE, version="2.0.0")], name="acme")
    refused(skill_cli("update", "beta"), "`beta`", "`gamma`", "acme")
    assert installed.read_bytes() == before
    assert not (user_home / ".agents" / "skills" / "gamma").exists()


# ---------------------------------------------------------------------------------------------- folders by path


def test_github_folder_holding_another_name_warns_and_strict_refuses(git_server, skill_cli, user_home,
                                                                    skill_home, configure):
    git_server.create_repo("acme", "repo", {"skills/beta/SKILL.md": skill_md("gamma", "Beta helps.")})
    configure("install.strict", True)
    refused(skill_cli("install", "github:acme/repo/skills/beta"), "`beta`", "`gamma`", "github:acme/repo",
            "nothing was installed")
    nothing_installed(user_home, skill_home)
    configure("install.strict", False)
    result = skill_cli("install", "github:acme/repo/skills/beta")
    assert result.code == 0, result.err
    text = result.out + result.err
    assert "you asked for `beta`" in text and "`gamma`" in text
    assert (user_home / ".agents" / "skills" / "gamma" / "SKILL.md").is_file()


def test_github_folder_with_its_own_name_installs_without_warning(git_server, skill_cli, user_home):
    git_server.create_repo("acme", "repo", {"skills/beta/SKILL.md": skill_md("beta", "Beta helps.")})
    result = skill_cli("install", "github:acme/repo/skills/beta", "--strict")
    assert result.code == 0, result.err
    assert "you asked for" not in result.out + result.err


def _tarball(path: Path, files: dict[str, str]) -> Path:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), int(time.time())
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(buffer.getvalue())
    return path


def test_archive_folder_holding_another_name_warns_and_strict_refuses(tmp_path, skill_cli, user_home, skill_home):
    archive = _tarball(tmp_path / "bundle.tar.gz", {"beta/SKILL.md": skill_md("gamma", "Beta helps."),
                                                   "other/SKILL.md": skill_md("other", "Other helps.")})
    refused(skill_cli("install", f"{archive}/beta", "--strict"), "`beta`", "`gamma`", "bundle.tar.gz")
    nothing_installed(user_home, skill_home)
    result = skill_cli("install", f"{archive}/beta")
    assert result.code == 0, result.err
    assert "you asked for `beta`" in result.out + result.err


def test_own_folder_holding_another_name_warns_and_strict_refuses(tmp_path, skill_cli, user_home, skill_home):
    folder = tmp_path / "beta"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md("gamma", "Beta helps."), encoding="utf-8")
    refused(skill_cli("install", str(folder), "--strict"), "gamma", "beta")
    nothing_installed(user_home, skill_home)
    result = skill_cli("install", str(folder))
    assert result.code == 0, result.err
    text = result.out + result.err
    assert "gamma" in text and "beta" in text


@pytest.mark.parametrize("name", ["文档助手"])
def test_display_name_installed_under_its_folder_is_not_a_mismatch(git_server, skill_cli, user_home, name):
    """A name with no ASCII letters installs under its folder's name (the floor): no mismatch warning."""
    git_server.create_repo("acme", "repo", {"skills/wendang/SKILL.md": skill_md(name, "Helps with documents.")})
    result = skill_cli("install", "github:acme/repo/skills/wendang")
    assert result.code == 0, result.err
    assert "you asked for" not in result.out + result.err
