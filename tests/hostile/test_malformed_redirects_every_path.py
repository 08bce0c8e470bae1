"""Every command that touches the network, against a server answering with a malformed redirect or header (issue 24
item 6): the registry (full and sparse), raw files, codeload, the GitHub API (publish, bots), the MCP hub and the
generate endpoint. Each ends in one clear `error:` line naming the URL, with a fix -- never "internal error ... this
is a bug", never a traceback -- and writes nothing. The server is a real one on 127.0.0.1; the commands and their
setup are those of tests/cli/test_dead_endpoints.py.
"""

# ruff: noqa: F811 - pytest fixtures imported from other test modules are parameters of the tests below
from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from tests.cli.test_dead_endpoints import (  # noqa: F401 - dead_setup is a fixture
    SKILL_COMMANDS,
    SKILLYARD_COMMANDS,
    assert_clear_failure,
    dead_setup,
    run_cli,
)
from tests.support.fixtures import skill_home  # noqa: F401 - fixture
from tests.support.loopback import LoopbackHTTPServer

from skillyard.client.config import load_config

ANSWERS = {
    "location-bad-ipv6": (302, [("Location", "http://[::1")]),
    "location-bad-port": (301, [("Location", "http://127.0.0.1:99999/x")]),
    "location-other-scheme": (302, [("Location", "ftp://127.0.0.1/registry.json")]),
    "location-control": (307, [("Location", "/a\x01b")]),
    "redirect-without-location": (302, []),
    "retry-after-out-of-range": (503, [("Retry-After", "Mon, 01 Jan 0001 00:00:00 +1400")]),
}


@contextlib.contextmanager
def malformed(kind: str):
    status, headers = ANSWERS[kind]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args):
            pass

        def _answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(min(length, 1 << 20))
            lines = [f"HTTP/1.0 {status} X".encode()] + [f"{k}: {v}".encode("latin-1") for k, v in headers]
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(b"\r\n".join(lines) + b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer  # noqa: N815

    server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("kind", ANSWERS)
@pytest.mark.parametrize("command", [*SKILL_COMMANDS, *SKILLYARD_COMMANDS])
def test_command_against_malformed_answer(dead_setup, capsys, command, kind, monkeypatch):
    from skillyard.cli.main import skill_main, skillyard_main

    monkeypatch.setenv("SKILL_HTTP_RETRIES", "0")
    with malformed(kind) as base:
        values = dead_setup(base)
        monkeypatch.setenv("SKILL_HTTP_RETRIES", "0")
        template = SKILL_COMMANDS.get(command) or SKILLYARD_COMMANDS[command]
        argv = [part.format(**values) for part in template]
        main = skill_main if command in SKILL_COMMANDS else skillyard_main
        code, out, err = run_cli(main, argv, capsys)
    assert "internal error" not in out + err and "this is a bug" not in (out + err).lower(), err
    assert_clear_failure(code, out, err, base)
    assert list(Path(values["out"]).iterdir()) == []
    assert load_config().stored_sources == []
    assert not (Path.home() / ".agents" / "skills" / "pdf-tools").exists()


def test_sparse_shard_behind_a_malformed_redirect_is_refused_naming_it(skill_home, capsys, monkeypatch):
    """A sparse index whose root is fine but whose shards redirect to `http://[::1`: the refresh is refused with
    the shard's URL, and no source is added."""
    import importlib.util
    import json

    from skillyard.cli.main import skill_main
    from skillyard.format.sparse import sparse_files

    spec = importlib.util.spec_from_file_location(
        "bench_sparse", Path(__file__).resolve().parents[2] / "benchmarks" / "bench_sparse.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    root = sparse_files(bench.synthetic_registry(3))["index.json"]
    assert json.loads(root)["kind"]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            if self.path == "/sparse/index.json":
                self.send_response(200)
                self.send_header("Content-Length", str(len(root)))
                self.end_headers()
                self.wfile.write(root)
                return
            self.send_response(302)
            self.send_header("Location", "http://[::1")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = LoopbackHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    monkeypatch.setenv("SKILL_HTTP_RETRIES", "0")
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        code, out, err = run_cli(skill_main, ["source", "add", f"{base}/sparse/index.json", "--name", "sp"], capsys)
    finally:
        server.shutdown()
        server.server_close()
    assert code != 0 and "internal error" not in err, err
    assert "/sparse/shards/" in err and "http://[::1" in err, err
    assert load_config().stored_sources == []
