"""Issue 12 item 2: a registry on a plain static host. `skillyard build` with `host = "static"` in a real git repo,
the built tree copied into a plain folder (no GitHub layout) and served by `python -m http.server` on 127.0.0.1,
then `skill source add` + `skill install`; and a private copy behind a token server."""

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from functools import partial
from http.server import SimpleHTTPRequestHandler

import pytest
from tests.support.gitserver import git
from tests.support.loopback import LoopbackHTTPServer
from tests.support.registry import skill_md

SCRIPT = b"print('hello from a static host')\n"
TOKEN = "s3cret-static-token"


@pytest.fixture
def built_tree(tmp_path, capsys):
    """A plain folder holding registry.json and skills/ as `skillyard build` compiled them (host = "static")."""
    from skillyard.cli.main import skillyard_main

    repo = tmp_path / "repo"
    (repo / "skills" / "hello" / "scripts").mkdir(parents=True)
    (repo / "skills" / "hello" / "SKILL.md").write_text(skill_md("hello", "Say hello from a self-hosted registry."))
    (repo / "skills" / "hello" / "scripts" / "hi.py").write_bytes(SCRIPT)
    (repo / "pyproject.toml").write_text('[tool.skillyard]\nname = "mirror"\nhost = "static"\nmode = "lenient"\n')
    git(repo.parent, "init", "-q", "-b", "main", str(repo))
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "skills")
    assert skillyard_main(["build", "--root", str(repo)]) == 0, capsys.readouterr()
    registry = json.loads((repo / "registry.json").read_text())
    assert registry["repository"]["raw_url_template"] == "{path}"
    tree = tmp_path / "public" / "mirror"
    tree.mkdir(parents=True)
    shutil.copy(repo / "registry.json", tree / "registry.json")
    shutil.copytree(repo / "skills", tree / "skills")
    return tree


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_server(built_tree):
    """`python -m http.server` serving the folder above registry.json's; yields the registry.json URL."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", str(built_tree.parent)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mirror/registry.json"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("http.server did not start")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_install_from_plain_http_server(http_server, built_tree, skill_cli, user_home):
    assert skill_cli("source", "add", http_server, "--name", "mirror").code == 0
    result = skill_cli("install", "hello", "--json")
    assert result.code == 0, result.err
    folder = user_home / ".agents" / "skills" / "hello"
    assert (folder / "scripts" / "hi.py").read_bytes() == SCRIPT
    assert "Say hello" in (folder / "SKILL.md").read_text()


def test_static_host_bytes_are_guarded_by_sha256(http_server, built_tree, skill_cli, user_home):
    """No commit pins a static host's files: a file changed on the server after the build is refused."""
    assert skill_cli("source", "add", http_server, "--name", "mirror").code == 0
    evil = b"import os; os.system('evil')#".ljust(len(SCRIPT) - 1, b"#") + b"\n"  # same size, other bytes
    assert len(evil) == len(SCRIPT)
    (built_tree / "skills" / "hello" / "scripts" / "hi.py").write_bytes(evil)
    result = skill_cli("install", "hello")
    assert result.code != 0
    assert "Traceback" not in result.err and "hi.py" in result.err and "sha256" in result.err, result.err
    assert not (user_home / ".agents" / "skills" / "hello").exists()


class TokenHandler(SimpleHTTPRequestHandler):
    """Files of a folder, only with `Authorization: Bearer <token>` (or GitHub's `token <token>`); else 401."""

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802
        seen.append((self.path, self.headers.get("Authorization")))
        if self.headers.get("Authorization") not in (f"Bearer {TOKEN}", f"token {TOKEN}"):
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()


seen: list = []


@pytest.fixture
def token_server(built_tree):
    seen.clear()
    httpd = LoopbackHTTPServer(("127.0.0.1", 0), partial(TokenHandler, directory=str(built_tree.parent)))
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/mirror/registry.json"
    httpd.shutdown()
    httpd.server_close()


def test_install_from_private_static_host(token_server, skill_cli, user_home, monkeypatch):
    assert skill_cli("source", "add", token_server, "--name", "private").code != 0  # no token: refused
    monkeypatch.setenv("MIRROR_TOKEN", TOKEN)
    assert skill_cli("source", "add", token_server, "--name", "private", "--token-env", "MIRROR_TOKEN").code == 0
    result = skill_cli("install", "hello", "--json")
    assert result.code == 0, result.err
    assert (user_home / ".agents" / "skills" / "hello" / "scripts" / "hi.py").read_bytes() == SCRIPT
    files = [path for path, auth in seen if auth and path.startswith("/mirror/skills/")]
    assert "/mirror/skills/hello/scripts/hi.py" in files  # files were fetched relative to registry.json, with the token
