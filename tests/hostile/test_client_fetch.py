"""The `skill` client against a hostile registry, tarball or server (trust issue items 7 and 8).

Safe outcomes asserted: a registry entry or github: tarball naming VCS/tool metadata or the client's bookkeeping is
refused with a message naming the path, before any file is downloaded, and nothing is written; a server that drips
bytes is cut off by the whole-transfer deadline; bodies, decompressed bodies, tar streams and tar headers are
capped while streaming (memory stays bounded); redirect loops, depth bombs and lying Content-Lengths end in a clear
error. Every server here is a real HTTP server on 127.0.0.1.
"""

# ruff: noqa: F811 - pytest fixtures imported from tests.support are parameters of the tests below
from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import textwrap
import threading
import time
import tracemalloc
import zlib
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from tests.support.fixtures import git_server, skill_cli, skill_home  # noqa: F401 - fixtures
from tests.support.loopback import LoopbackHTTPServer
from tests.support.registry import publish_registry, registry_url, skill_md

from skillyard.client import github
from skillyard.client.http import FetchError, fetch
from skillyard.errors import SkillyardError
from skillyard.format.package import integrity_of

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = b"[core]\n\tfsmonitor = touch /tmp/pwned-by-skill\n"
SHA = "0123456789abcdef0123456789abcdef01234567"

# Every path the shared rule refuses outright: VCS and tool metadata (any case, any depth, Windows aliases) and the
# client's own bookkeeping.
REFUSED_PATHS = [
    ".git/config", ".GIT/config", "x/.git/hooks/pre-commit", ".git./config", "GIT~1/config", ".gitmodules",
    ".gitattributes", ".lfsconfig", ".hg/hgrc", ".svn/entries", ".bzr/branch/branch.conf", "_darcs/prefs/boring",
    ".envrc", "skill.lock.json", "evolution.json", "Skill.Lock.JSON",
]


# ---------------------------------------------------------------------------------------------- a hostile server


class HostileServer:
    """A loopback HTTP server whose routes are behaviours: `routes[path] = fn(handler)`; unknown paths get 404."""

    def __init__(self):
        self.routes: dict = {}
        self.log: list[str] = []
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                server.log.append(self.path)
                behaviour = server.routes.get(self.path.split("?")[0])
                try:
                    if behaviour is None:
                        send(self, b"not found\n", status=404)
                    else:
                        behaviour(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def stop(self):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def send(handler, body: bytes, *, status: int = 200, headers: dict | None = None, length: int | None = None):
    handler.send_response(status)
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    if length != -1:
        handler.send_header("Content-Length", str(len(body) if length is None else length))
    else:
        handler.send_header("Connection", "close")
        handler.close_connection = True
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


def static(body: bytes, **kwargs):
    return lambda handler: send(handler, body, **kwargs)


def drip(server: HostileServer, body: bytes, interval: float = 0.4):
    """Announce `body`, then send it one byte per `interval`: never idle long enough for a socket timeout."""

    def behaviour(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.flush()
        for byte in body:
            if server.stopping.wait(interval):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    return behaviour


def drip_headers(server: HostileServer, interval: float = 0.4):
    """A status line, then an endless header sent one byte at a time."""

    def behaviour(handler):
        handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        while not server.stopping.wait(interval):
            handler.wfile.write(b"a")
            handler.wfile.flush()

    return behaviour


def silent(server: HostileServer):
    """Accept the request and never answer."""
    return lambda handler: server.stopping.wait(30)


def redirect(location: str):
    return lambda handler: send(handler, b"", status=302, headers={"Location": location})


@pytest.fixture
def hostile():
    server = HostileServer()
    yield server
    server.stop()


@pytest.fixture
def fast_deadline(monkeypatch, skill_home):
    monkeypatch.setenv("SKILL_HTTP_DEADLINE", "2")
    monkeypatch.setenv("SKILL_HTTP_RETRIES", "1")


# ---------------------------------------------------------------------------------------------- helpers


def snapshot(*roots: Path) -> dict[str, str]:
    """Every file under `roots` with its sha256 (lock files excluded: taking a lock is not writing)."""
    out = {}
    for root in roots:
        for path in sorted(root.rglob("*")) if root.exists() else []:
            if path.is_file() and not path.name.endswith(".lock"):
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def home_dirs(skill_home: Path) -> tuple[Path, Path]:
    return skill_home, Path(os.environ["HOME"])


def demo_spec(**extra) -> dict:
    return {"name": "demo", "description": "A demo skill for hostile-registry tests.", "version": "1.0.0",
            "files": {"references/notes.md": "# Notes\n"}, **extra}


class _File:
    def __init__(self, path: str, sha256: str):
        self.path, self.sha256 = path, sha256


def with_extra_files(registry: dict, extra: dict[str, bytes]) -> dict:
    """The registry with `extra` files added to the demo entry, sizes, hashes and integrity all correct."""
    registry = json.loads(json.dumps(registry))
    entry = next(s for s in registry["skills"] if s["name"] == "demo")
    for path, data in extra.items():
        entry["files"].append({"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    entry["integrity"] = integrity_of([_File(f["path"], f["sha256"]) for f in entry["files"]])
    return registry


def publish_hostile(server, extra: dict[str, bytes]) -> str:
    registry = publish_registry(server, "acme", "skills", [demo_spec()])
    hostile_registry = with_extra_files(registry, extra)
    server.commit("acme", "skills", {"registry.json": json.dumps(hostile_registry, indent=2)}, message="evil")
    return registry_url(server, "acme", "skills")


def tarball(members: dict[str, bytes | tuple], *, top: str = f"demo-{SHA}", fmt=tarfile.PAX_FORMAT) -> bytes:
    """A codeload-style .tar.gz: `members` maps paths to bytes, or to ("sym"|"hard", target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=fmt, pax_headers={"comment": SHA}) as tar:
        for name, value in members.items():
            info = tarfile.TarInfo(f"{top}/{name}")
            if isinstance(value, tuple):
                info.type = tarfile.SYMTYPE if value[0] == "sym" else tarfile.LNKTYPE
                info.linkname = value[1] if value[0] == "sym" else f"{top}/{value[1]}"
                tar.addfile(info)
            else:
                info.size = len(value)
                tar.addfile(info, io.BytesIO(value))
    return buffer.getvalue()


def skill_tree(**extra) -> dict:
    return {"SKILL.md": skill_md("demo", "A demo skill from a tarball.", version="1.0.0", license="MIT").encode(),
            "references/notes.md": b"# Notes\n", **extra}


def serve_tarball(hostile, monkeypatch, data: bytes, repo: str = "demo") -> str:
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", hostile.url)
    hostile.routes[f"/evil/{repo}/tar.gz/HEAD"] = static(data, headers={"Content-Type": "application/x-gzip"})
    return f"github:evil/{repo}"


def refused(result, *needles: str) -> None:
    """Exit non-zero with a one-line reason (no traceback) that mentions every needle."""
    assert result.code != 0, result.out
    assert "Traceback" not in result.err, result.err
    for needle in needles:
        assert needle in result.err, result.err


# ---------------------------------------------------------------------------------------------- item 7: registry


@pytest.mark.parametrize("path", REFUSED_PATHS)
def test_registry_entry_with_metadata_path_is_refused_before_download(git_server, skill_cli, skill_home, path):
    url = publish_hostile(git_server, {path: PAYLOAD})
    assert skill_cli("source", "add", url, "--name", "acme").code == 0
    before = snapshot(*home_dirs(skill_home))
    git_server.clear_log()
    result = skill_cli("install", "demo")
    refused(result, repr(path), "nothing was installed")
    assert git_server.requests("/skills/demo/") == []  # refused before the first file download
    assert snapshot(*home_dirs(skill_home)) == before
    assert not (Path(os.environ["HOME"]) / ".agents" / "skills" / "demo").exists()


@pytest.mark.parametrize(("extra", "needle"), [
    ({"README.md": b"a", "readme.md": b"b"}, "letter case"),
    ({"notes": b"a", "notes/inner.md": b"b"}, "also used as a folder"),
    ({".github/workflows/ci.yml": b"on: push\n"}, "hidden file"),
    ({"refs/\u202egnp.md": b"x"}, "U+202E"),
])
def test_registry_entry_with_colliding_or_hidden_paths_is_refused(git_server, skill_cli, skill_home, extra, needle):
    url = publish_hostile(git_server, extra)
    assert skill_cli("source", "add", url, "--name", "acme").code == 0
    before = snapshot(*home_dirs(skill_home))
    git_server.clear_log()
    refused(skill_cli("install", "demo"), needle)
    assert git_server.requests("/skills/demo/") == []
    assert snapshot(*home_dirs(skill_home)) == before


def test_clean_registry_entry_still_installs(git_server, skill_cli, skill_home):
    """Each file is fetched with its declared size as the cap: incompressible bytes sent gzip-encoded still fit."""
    noise = hashlib.sha512(b"noise").digest() * 3
    publish_registry(git_server, "acme", "skills", [demo_spec(files={"references/notes.md": "# Notes\n",
                                                                     "assets/noise.bin": noise})])
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    result = skill_cli("install", "demo")
    assert result.code == 0, result.err
    folder = Path(os.environ["HOME"]) / ".agents" / "skills" / "demo"
    assert (folder / "references" / "notes.md").is_file() and (folder / "assets" / "noise.bin").read_bytes() == noise
    assert all(r.header("Accept-Encoding") == "gzip" for r in git_server.requests("/skills/demo/"))


def test_skill_file_larger_than_its_entry_declares_is_cut_off(git_server, skill_cli, skill_home):
    registry = publish_registry(git_server, "acme", "skills", [demo_spec()])
    entry = next(s for s in registry["skills"] if s["name"] == "demo")
    git_server.commit("acme", "skills", {"skills/demo/references/notes.md": "x" * 5_000_000})  # served, not listed
    git_server.commit("acme", "skills", {"registry.json": json.dumps(
        {**registry, "skills": [dict(entry, commit=git_server.sha("acme", "skills"))]}, indent=2)})
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    before = snapshot(*home_dirs(skill_home))
    refused(skill_cli("install", "demo"), "notes.md", "larger than the limit of 8 bytes")
    assert snapshot(*home_dirs(skill_home)) == before


def test_registry_entry_declaring_too_much_is_refused(git_server, skill_cli, skill_home):
    registry = publish_registry(git_server, "acme", "skills", [demo_spec()])
    entry = next(s for s in registry["skills"] if s["name"] == "demo")
    entry["files"][0]["size"] = 10 * 1024 ** 3
    git_server.commit("acme", "skills", {"registry.json": json.dumps(registry, indent=2)})
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    git_server.clear_log()
    refused(skill_cli("install", "demo"), "the client accepts at most")
    assert git_server.requests("/skills/demo/") == []


# ---------------------------------------------------------------------------------------------- item 7: tarballs


@pytest.mark.parametrize("path", REFUSED_PATHS)
def test_tarball_with_metadata_member_refuses_the_install(hostile, monkeypatch, skill_cli, skill_home, path):
    ref = serve_tarball(hostile, monkeypatch, tarball(skill_tree(**{path: PAYLOAD})))
    before = snapshot(*home_dirs(skill_home))
    refused(skill_cli("install", ref), path, "nothing was installed")
    assert snapshot(*home_dirs(skill_home)) == before


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT])
def test_long_member_names_are_checked_after_pax_or_gnu_decoding(fmt):
    long_folder = "a" * 120
    data = tarball(skill_tree(**{f"{long_folder}/.git/config": PAYLOAD}), fmt=fmt)
    with pytest.raises(SkillyardError, match=r"\.git/config.*version-control"):
        github.skill_files(data, github.parse_ref("github:evil/demo"))


@pytest.mark.parametrize(("link", "target", "needle"), [
    (".envrc", "references/notes.md", ".envrc"),
    ("notes-link.md", ".gitmodules", ".gitmodules"),
    ("hooks.md", "x/.git/hooks/post-checkout", ".git"),
])
@pytest.mark.parametrize("kind", ["sym", "hard"])
def test_tar_links_named_or_aimed_at_metadata_are_refused(link, target, needle, kind):
    tree = skill_tree(**{link: (kind, target)})
    if not target.startswith("references/"):
        tree[target] = PAYLOAD
    with pytest.raises(SkillyardError, match="Refusing the archive") as info:
        github.skill_files(tarball(tree), github.parse_ref("github:evil/demo"))
    assert needle in info.value.message and "nothing was installed" in info.value.message


def test_tar_link_cannot_copy_a_skipped_hidden_file():
    tree = skill_tree(**{".github/secret.yml": b"x", "copy.md": ("sym", ".github/secret.yml")})
    with pytest.raises(SkillyardError, match="not a file in the skill folder"):
        github.skill_files(tarball(tree), github.parse_ref("github:evil/demo"))


def test_skill_folder_inside_metadata_is_refused():
    tree = {f"x/.git/{name}": data for name, data in skill_tree().items()}
    with pytest.raises(SkillyardError, match="version-control"):
        github.skill_files(tarball(tree), github.parse_ref("github:evil/demo/x/.git"))


@pytest.mark.parametrize(("extra", "needle"), [
    ({"README.md": b"a", "readme.md": b"b"}, "letter case"),
    ({"notes": b"a", "notes/inner.md": b"b"}, "also used as a folder"),
])
def test_tar_paths_that_collide_are_refused(extra, needle):
    with pytest.raises(SkillyardError, match=needle):
        github.skill_files(tarball(skill_tree(**extra)), github.parse_ref("github:evil/demo"))


def test_tar_member_listed_twice_is_refused():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for body in (skill_tree()["SKILL.md"], b"---\nname: other\n---\n"):
            info = tarfile.TarInfo(f"demo-{SHA}/SKILL.md")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    with pytest.raises(SkillyardError, match="appears twice"):
        github.read_archive(buffer.getvalue())


def test_clean_hidden_files_in_a_tarball_are_skipped_not_installed(hostile, monkeypatch, skill_cli, skill_home):
    tree = skill_tree(**{".github/workflows/ci.yml": b"on: push\n", ".gitignore": b"*.pyc\n",
                         "references/.DS_Store": b"\0"})
    ref = serve_tarball(hostile, monkeypatch, tarball(tree))
    result = skill_cli("install", ref)
    assert result.code == 0, result.err
    folder = Path(os.environ["HOME"]) / ".agents" / "skills" / "demo"
    installed = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert installed == ["SKILL.md", "references/notes.md", "skill.lock.json"]


def test_project_install_of_hostile_entry_or_tarball_writes_no_project_lock(git_server, hostile, monkeypatch,
                                                                            skill_cli, skill_home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "skills.lock.json").write_text('{"keep": "me"}\n')
    url = publish_hostile(git_server, {".git/config": PAYLOAD})
    assert skill_cli("source", "add", url, "--name", "acme").code == 0
    ref = serve_tarball(hostile, monkeypatch, tarball(skill_tree(**{".gitmodules": PAYLOAD})))
    before = snapshot(project, *home_dirs(skill_home))
    refused(skill_cli("install", "demo", "--project-dir", str(project)), ".git/config")
    refused(skill_cli("install", ref, "--project-dir", str(project)), ".gitmodules")
    assert snapshot(project, *home_dirs(skill_home)) == before


# ---------------------------------------------------------------------------------------------- item 8: deadlines


def test_slow_drip_body_is_cut_off_by_the_deadline(hostile):
    hostile.routes["/slow"] = drip(hostile, b"x" * 1000)
    started = time.monotonic()
    with pytest.raises(FetchError) as info:
        fetch(hostile.url + "/slow", timeout=2, deadline=2, retries=0)
    assert info.value.kind == "timeout" and "deadline of 2 s" in info.value.message
    assert time.monotonic() - started < 10  # bounded, not 1000 s


def test_slow_drip_headers_are_cut_off_by_the_deadline(hostile):
    hostile.routes["/slow"] = drip_headers(hostile)
    started = time.monotonic()
    with pytest.raises(FetchError, match="deadline of 2 s"):
        fetch(hostile.url + "/slow", timeout=2, deadline=2, retries=3, backoff=0.01)
    assert time.monotonic() - started < 10
    assert len(hostile.log) == 1  # a deadline is not retried


def test_tls_handshake_that_drips_is_cut_off_by_the_deadline():
    """An https server that answers the ClientHello with a 16 KiB TLS record announced, then one byte at a time."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        conn, _ = listener.accept()
        with conn:
            conn.recv(4096)  # the ClientHello
            conn.sendall(b"\x16\x03\x03\x40\x00")
            while not stop.wait(0.4):
                try:
                    conn.sendall(b"\x00")
                except OSError:
                    return

    threading.Thread(target=serve, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(FetchError, match="deadline of 2 s"):
            fetch(f"https://127.0.0.1:{listener.getsockname()[1]}/registry.json", timeout=2, deadline=2, retries=0)
    finally:
        stop.set()
        listener.close()
    assert time.monotonic() - started < 10


@pytest.fixture
def tls_hostile(tmp_path, monkeypatch):
    """The hostile server behind TLS, with a self-signed certificate the client is told to trust."""
    import datetime
    import ipaddress
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "cert.pem"))
    server = HostileServer()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    server.httpd.socket = context.wrap_socket(server.httpd.socket, server_side=True)
    server.url = server.url.replace("http://", "https://")
    yield server
    server.stop()


def test_deadline_and_caps_hold_over_tls(tls_hostile):
    body = b"registry bytes " * 1000
    tls_hostile.routes["/ok"] = static(gzip.compress(body), headers={"Content-Encoding": "gzip"})
    tls_hostile.routes["/slow"] = drip(tls_hostile, b"x" * 100)
    tls_hostile.routes["/bomb"] = static(_bomb(64 * 1024 * 1024, 31), headers={"Content-Encoding": "gzip"})
    assert fetch(tls_hostile.url + "/ok", retries=0).body == body
    started = time.monotonic()
    with pytest.raises(FetchError, match="deadline of 2 s"):
        fetch(tls_hostile.url + "/slow", timeout=2, deadline=2, retries=0)
    assert time.monotonic() - started < 10
    with pytest.raises(FetchError, match="decompressed body is larger than the limit of 1,000,000 bytes"):
        fetch(tls_hostile.url + "/bomb", max_bytes=1_000_000, retries=0)


def test_server_that_never_answers_times_out(hostile):
    hostile.routes["/mute"] = silent(hostile)
    started = time.monotonic()
    with pytest.raises(FetchError) as info:
        fetch(hostile.url + "/mute", timeout=1, deadline=5, retries=0)
    assert info.value.kind == "timeout"
    assert time.monotonic() - started < 10


def test_retries_stay_inside_the_deadline(hostile):
    hostile.routes["/busy"] = static(b"busy", status=503, headers={"Retry-After": "1"})
    started = time.monotonic()
    with pytest.raises(FetchError, match="deadline"):
        fetch(hostile.url + "/busy", timeout=2, deadline=1.5, retries=50)
    assert time.monotonic() - started < 10 and len(hostile.log) <= 3


def test_slow_registry_is_cut_off_and_nothing_is_written(hostile, skill_cli, skill_home, fast_deadline):
    hostile.routes["/registry.json"] = drip(hostile, b"{" + b" " * 5000 + b"}")
    before = snapshot(*home_dirs(skill_home))
    started = time.monotonic()
    refused(skill_cli("source", "add", hostile.url + "/registry.json", "--name", "slow"), "deadline")
    assert time.monotonic() - started < 20
    assert snapshot(*home_dirs(skill_home)) == before


def test_slow_skill_file_is_cut_off_and_nothing_is_installed(git_server, hostile, monkeypatch, skill_cli, skill_home,
                                                             fast_deadline):
    registry = publish_registry(git_server, "acme", "skills", [demo_spec()])
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    monkeypatch.setenv("SKILL_GITHUB_RAW_URL", hostile.url)  # files now come from the dripping host
    entry = registry["skills"][0]
    for item in entry["files"]:  # as many bytes as declared, one every 0.4 s
        hostile.routes[f"/acme/skills/{entry['commit']}/skills/demo/{item['path']}"] = drip(hostile, b"x" * item["size"])
    before = snapshot(*home_dirs(skill_home))
    started = time.monotonic()
    refused(skill_cli("install", "demo"), "deadline")
    assert time.monotonic() - started < 20
    assert hostile.log  # the files were asked for, from the dripping host
    assert snapshot(*home_dirs(skill_home)) == before


def test_slow_tarball_is_cut_off_and_nothing_is_installed(hostile, monkeypatch, skill_cli, skill_home, fast_deadline):
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", hostile.url)
    hostile.routes["/evil/demo/tar.gz/HEAD"] = drip(hostile, tarball(skill_tree()))
    before = snapshot(*home_dirs(skill_home))
    started = time.monotonic()
    refused(skill_cli("install", "github:evil/demo"), "deadline")
    assert time.monotonic() - started < 20
    assert snapshot(*home_dirs(skill_home)) == before


# ---------------------------------------------------------------------------------------------- item 8: redirects


def test_redirect_loop_is_refused(hostile):
    hostile.routes["/loop"] = redirect("/loop")
    with pytest.raises(FetchError, match="redirected more than 5 times or in a loop"):
        fetch(hostile.url + "/loop", retries=0)
    assert len(hostile.log) <= 6


def test_endless_redirect_chain_is_refused(hostile):
    for step in range(50):
        hostile.routes[f"/hop/{step}"] = redirect(f"/hop/{step + 1}")
    with pytest.raises(FetchError, match="redirected more than 5 times"):
        fetch(hostile.url + "/hop/0", retries=0)
    assert len(hostile.log) == 6


def test_malformed_answers_are_clear_errors_not_retried(hostile):
    def many_headers(handler):
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n" + b"X-Pad: a\r\n" * 500 + b"\r\n")

    def garbage(handler):
        handler.wfile.write(b"SSH-2.0-OpenSSH_9.0\r\n")

    hostile.routes["/headers"], hostile.routes["/garbage"] = many_headers, garbage
    for path in ("/headers", "/garbage"):
        hostile.log.clear()
        with pytest.raises(FetchError, match="not valid HTTP") as info:
            fetch(hostile.url + path, retries=3, backoff=0.01)
        assert info.value.kind == "http" and len(hostile.log) == 1


@pytest.mark.parametrize("behaviour", ["loop", "silent", "drip-headers", "not-http"])
def test_hostile_registry_server_leaves_nothing_behind(hostile, skill_cli, skill_home, fast_deadline, behaviour):
    hostile.routes["/registry.json"] = {
        "loop": redirect("/registry.json"), "silent": silent(hostile), "drip-headers": drip_headers(hostile),
        "not-http": lambda handler: handler.wfile.write(b"220 smtp.example ESMTP\r\n"),
    }[behaviour]
    before = snapshot(*home_dirs(skill_home))
    started = time.monotonic()
    result = skill_cli("source", "add", hostile.url + "/registry.json", "--name", "evil")
    refused(result, {"loop": "redirected", "silent": "within", "drip-headers": "deadline",
                     "not-http": "not valid HTTP"}[behaviour])
    assert time.monotonic() - started < 20
    assert snapshot(*home_dirs(skill_home)) == before


# ---------------------------------------------------------------------------------------------- item 8: size caps


def _bomb(size: int, wbits: int) -> bytes:
    """`size` zero bytes compressed with zlib window `wbits` (31 = gzip, 15 = zlib/deflate), built in chunks."""
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    chunk = bytes(1024 * 1024)
    return b"".join(packer.compress(chunk) for _ in range(size // len(chunk))) + packer.flush()


@pytest.mark.parametrize(("encoding", "wbits"), [("gzip", 31), ("deflate", 15)])
def test_content_encoding_bomb_is_capped_while_streaming(hostile, encoding, wbits):
    bomb = _bomb(256 * 1024 * 1024, wbits)
    assert len(bomb) < 1024 * 1024
    hostile.routes["/bomb"] = static(bomb, headers={"Content-Encoding": encoding})
    tracemalloc.start()
    try:
        with pytest.raises(FetchError) as info:
            fetch(hostile.url + "/bomb", max_bytes=2 * 1024 * 1024, retries=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.kind == "too-large" and "decompressed body is larger than the limit" in info.value.message
    assert peak < 32 * 1024 * 1024  # never near the 256 MiB the body expands to


@pytest.mark.parametrize("length", ["announced", "unannounced"])
def test_body_over_the_cap_is_refused(hostile, length):
    hostile.routes["/big"] = static(b"x" * (3 * 1024 * 1024), length=None if length == "announced" else -1)
    with pytest.raises(FetchError) as info:
        fetch(hostile.url + "/big", max_bytes=1024 * 1024, retries=0)
    assert info.value.kind == "too-large" and "1,048,576 bytes" in info.value.message


def test_content_length_lies(hostile):
    hostile.routes["/huge-claim"] = static(b"tiny", length=10 * 1024 ** 3)
    with pytest.raises(FetchError, match="10,737,418,240 bytes announced"):
        fetch(hostile.url + "/huge-claim", retries=0)
    hostile.routes["/short-claim"] = static(b"x" * (3 * 1024 * 1024), length=100)
    assert fetch(hostile.url + "/short-claim", max_bytes=1024 * 1024, retries=0).body == b"x" * 100
    hostile.routes["/long-claim"] = static(b"x" * 100, length=5000)
    with pytest.raises(FetchError) as info:
        fetch(hostile.url + "/long-claim", retries=1, backoff=0.01)
    assert info.value.kind == "truncated" and "cut off (100 of 5000 bytes)" in info.value.message


@pytest.mark.parametrize("variant", ["plain", "gzip-bomb"])
def test_registry_over_the_configured_cap_is_refused(hostile, monkeypatch, skill_cli, skill_home, variant):
    monkeypatch.setenv("SKILL_REGISTRY_MAX_BYTES", "100000")
    if variant == "plain":
        hostile.routes["/registry.json"] = static(b'{"pad": "' + b"x" * 200000 + b'"}')
    else:
        hostile.routes["/registry.json"] = static(_bomb(64 * 1024 * 1024, 31), headers={"Content-Encoding": "gzip"})
    before = snapshot(*home_dirs(skill_home))
    refused(skill_cli("source", "add", hostile.url + "/registry.json", "--name", "big"), "100,000 bytes")
    assert snapshot(*home_dirs(skill_home)) == before


def test_registry_cap_keeps_the_cached_copy(git_server, skill_cli, skill_home, monkeypatch):
    publish_registry(git_server, "acme", "skills", [demo_spec()])
    assert skill_cli("source", "add", registry_url(git_server, "acme", "skills"), "--name", "acme").code == 0
    cached = snapshot(skill_home / "cache")
    registry = json.loads(git_server.repo_path("acme", "skills").joinpath("registry.json").read_text())
    git_server.commit("acme", "skills", {"registry.json": json.dumps(registry, indent=4)})  # a new, larger body
    monkeypatch.setenv("SKILL_REGISTRY_MAX_BYTES", "100")
    result = skill_cli("source", "refresh")
    assert result.code != 0 and "larger than the limit of 100 bytes" in result.out + result.err
    assert "registry.max_bytes" in result.out + result.err
    assert {k: v for k, v in snapshot(skill_home / "cache").items() if "registry.json" in k} == \
        {k: v for k, v in cached.items() if "registry.json" in k}


@pytest.mark.parametrize("body", [b"[" * 200000, b'{"schema_version": "1.0", "skills": ' + b"[" * 50000 + b"]" * 50000
                                  + b"}"])
def test_json_depth_bomb_is_a_clear_error(hostile, skill_cli, skill_home, body):
    hostile.routes["/registry.json"] = static(body)
    before = snapshot(*home_dirs(skill_home))
    refused(skill_cli("source", "add", hostile.url + "/registry.json", "--name", "deep"), "nested too deeply")
    assert snapshot(*home_dirs(skill_home)) == before


def test_bad_limits_in_config_are_clear_errors(skill_cli, skill_home, monkeypatch):
    monkeypatch.setenv("SKILL_HTTP_DEADLINE", "0")
    from skillyard.client.config import load_config

    with pytest.raises(SkillyardError, match="http.deadline is 0.0; it must be greater than 0"):
        _ = load_config().http_deadline


# ---------------------------------------------------------------------------------------------- item 8: tar bounds


def _raw_header(name: str, type_: bytes, size: int, fmt=tarfile.GNU_FORMAT) -> bytes:
    info = tarfile.TarInfo(name)
    info.type = type_
    info.size = size
    return info.tobuf(format=fmt)


def _write_meta_bomb(path: Path, type_: bytes, size: int) -> None:
    """A .tar.gz holding one `size`-byte PAX ('x') or GNU long-name ('L') header, written without holding it."""
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(_raw_header("././@meta", type_, size))
        chunk = b"a" * (1024 * 1024)
        for _ in range(size // len(chunk)):
            out.write(chunk)
        out.write(b"\0" * (-size % 512))
        body = skill_tree()["SKILL.md"]
        out.write(_raw_header(f"demo-{SHA}/SKILL.md", tarfile.REGTYPE, len(body)) + body + b"\0" * (-len(body) % 512))
        out.write(b"\0" * 1024)


@pytest.mark.parametrize("type_", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME], ids=["pax", "gnu-longname"])
def test_huge_tar_header_is_refused_with_bounded_memory(tmp_path, type_):
    bomb = tmp_path / "bomb.tar.gz"
    _write_meta_bomb(bomb, type_, 300 * 1024 * 1024)
    assert bomb.stat().st_size < 4 * 1024 * 1024
    child = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1024 * 1024 * 1024, 1024 * 1024 * 1024))
        from skillyard.client import github
        from skillyard.errors import SkillyardError
        data = open({str(bomb)!r}, "rb").read()
        try:
            github.read_archive(data)
        except SkillyardError as exc:
            print(exc.message)
        # this process's own peak (VmHWM): getrusage's ru_maxrss keeps the forking parent's peak on Linux
        print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")))
    """)
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, cwd=ROOT, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "tools") + os.pathsep + str(ROOT)})
    assert result.returncode == 0, result.stderr
    message, max_rss_kib = result.stdout.strip().splitlines()
    assert "314,572,800-byte tar header" in message and "nothing was installed" in message
    assert int(max_rss_kib) < 200 * 1024  # the 300 MB header was never read into memory


def test_tar_stream_expanding_past_the_cap_is_refused(hostile, monkeypatch, skill_cli, skill_home):
    monkeypatch.setattr(github, "MAX_STREAM_BYTES", 2 * 1024 * 1024)
    ref = serve_tarball(hostile, monkeypatch, tarball(skill_tree(**{"assets/zeros.bin": bytes(3 * 1024 * 1024)})))
    before = snapshot(*home_dirs(skill_home))
    refused(skill_cli("install", ref), "expands past 2 MB")
    assert snapshot(*home_dirs(skill_home)) == before


def test_tar_member_of_unknown_type_cannot_skip_past_the_cap():
    """tarfile skips the data of unknown member types by seeking; a 5 GiB skip must be refused, not decompressed."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb") as out:
        out.write(_raw_header(f"demo-{SHA}/odd", b"Z", 5 * 1024 ** 3))
        out.write(b"\0" * 1024)
    with pytest.raises(SkillyardError, match="expands past"):
        github.read_archive(buffer.getvalue())


@pytest.mark.parametrize("kind", ["gnu-sparse", "pax-sparse"])
def test_sparse_members_are_refused(kind):
    buffer = io.BytesIO()
    if kind == "gnu-sparse":
        with gzip.GzipFile(fileobj=buffer, mode="wb") as out:
            out.write(_raw_header(f"demo-{SHA}/sparse", tarfile.GNUTYPE_SPARSE, 0) + b"\0" * 1024)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
            info = tarfile.TarInfo(f"demo-{SHA}/sparse")
            info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.name": "x",
                                "GNU.sparse.realsize": "999999999999"}
            info.size = 512
            tar.addfile(info, io.BytesIO(b"999999999\n" + b"\0" * 502))
    with pytest.raises(SkillyardError, match="sparse file"):
        github.read_archive(buffer.getvalue())


def test_archive_that_is_neither_gzip_nor_tar_is_a_clear_error():
    with pytest.raises(SkillyardError, match="not a readable tarball"):
        github.read_archive(b"BZh91AY&SY" + bytes(100))


# ---------------------------------------------------------------------------------------------- the MCP hub


def _hub(hostile, timeout_ms: int = 1500):
    from skillyard.client.mcp import Hub

    return Hub(hostile.url + "/hub", "hub", timeout_ms / 1000.0)


def test_dripping_mcp_hub_is_cut_off_by_its_timeout_as_a_whole(hostile):
    from skillyard.client import mcp

    hostile.routes["/hub/tools/list"] = drip(hostile, json.dumps({"tools": ["a"] * 200}).encode(), interval=0.2)
    started = time.monotonic()
    with pytest.raises(OSError) as info:
        mcp.list_tools(_hub(hostile))
    assert time.monotonic() - started < 6  # 1.5 s deadline, never the minutes a drip could take
    assert "/hub/tools/list" in str(info.value)


def test_endless_mcp_hub_answer_is_capped(hostile):
    from skillyard.client import mcp

    hostile.routes["/hub/tools/list"] = static(_bomb(64 * 1024 * 1024, 31), headers={"Content-Encoding": "gzip"})
    tracemalloc.start()
    try:
        with pytest.raises(OSError) as info:
            mcp.list_tools(_hub(hostile, 5000))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "larger than the limit" in str(info.value)
    assert peak < 32 * 1024 * 1024


def test_deeply_nested_mcp_hub_answer_is_a_clear_error(hostile):
    from skillyard.client import mcp

    hostile.routes["/hub/tools/list"] = static(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(OSError, match="did not answer a tool list"):
        mcp.list_tools(_hub(hostile))


@pytest.mark.parametrize("length", ["²", "1_0", "9" * 40, "١٢"])
def test_a_content_length_that_is_not_ascii_digits_never_crashes_the_client(hostile, length):
    """str.isdigit() says yes to `²` and to other scripts' digits: the announced size was read with int(), which
    raised ValueError out of fetch. Such a header is now treated as absent (the body is still capped as it
    streams). http.client itself reads `١٢` as 12, so that body ends short: a clear FetchError, as for any."""
    hostile.routes["/odd"] = static(b"hello", headers={"Content-Length": length}, length=-1)
    try:
        body = fetch(hostile.url + "/odd", timeout=5, retries=0).body
    except FetchError as exc:
        assert length == "١٢" and "connection lost" in exc.message
    else:
        assert body == b"hello"
