"""Issue 27 item 6: offline is a state, not an error per command. A source that cannot be reached is remembered
(a negative cache entry living `cache.ttl`), warned about once in one line, and skipped quietly until then; it is
asked again after the TTL or by `skill source refresh`. All against real loopback servers: a port that refuses
connections, and a server that starts on that port later."""

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler

import pytest
from tests.support.loopback import LoopbackHTTPServer

from skillyard.client import cache
from skillyard.client.config import load_config


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RegistryServer:
    """Serves one registry.json on a given port and counts the requests for it."""

    def __init__(self, port: int, registry: dict):
        body = json.dumps(registry).encode()
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = LoopbackHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def age_mark(source_name: str, seconds: float) -> None:
    """Move the negative cache entry back in time, as if `seconds` had passed."""
    path = cache.source_dir(load_config(), source_name) / cache.UNREACHABLE
    mark = json.loads(path.read_text())
    mark["at"] -= seconds
    path.write_text(json.dumps(mark))


def warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def test_unreachable_builtin_is_warned_about_once_then_skipped(published, monkeypatch, skill_cli):
    port = free_port()
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", f"http://127.0.0.1:{port}/registry.json")
    assert skill_cli("source", "add", published.url, "--name", "acme").code == 0
    first = skill_cli("search", "invoice")
    assert first.code == 0 and "invoice-processor" in first.out
    (line,) = first.err.strip().splitlines()  # one line
    assert "built-in default source 'skillyard' cannot be reached" in line and "skipped for 10 min" in line
    assert line.count("cannot") == 2 and "`skill source refresh skillyard` retries now" in line  # cannot connect
    for argv in (("search", "pdf"), ("info", "pdf-tools"), ("search", "invoice", "--json")):
        again = skill_cli(*argv)
        assert again.code == 0 and again.err == "", argv  # skipped quietly: no warning, no new attempt
    age_mark("skillyard", 601)
    after_ttl = skill_cli("search", "pdf")
    assert after_ttl.code == 0 and len(warnings(after_ttl.err)) == 1  # asked (and warned) again after the TTL


def test_a_source_that_comes_back_after_the_ttl_is_used_again(published, skill_cli):
    port = free_port()
    url = f"http://127.0.0.1:{port}/registry.json"
    assert skill_cli("source", "add", url, "--name", "later", "--no-fetch").code == 0
    down = skill_cli("search", "invoice")
    assert down.code == 1 and "cannot connect" in down.err
    server = RegistryServer(port, published.registry)
    try:
        remembered = skill_cli("search", "invoice")
        assert remembered.code == 1 and "remembered for 10 min" in remembered.err
        assert "skill source refresh later" in remembered.err and server.hits == []  # not asked within the TTL
        age_mark("later", 601)
        back = skill_cli("search", "invoice", "--json")
        assert back.code == 0 and back.err == "", back.err
        assert [h["name"] for h in json.loads(back.out)["results"]][:1] == ["invoice-processor"]
        assert server.hits == ["/registry.json"]
        assert not (cache.source_dir(load_config(), "later") / cache.UNREACHABLE).exists()
    finally:
        server.stop()


def test_source_refresh_asks_at_once_and_clears_the_state(published, skill_cli):
    port = free_port()
    url = f"http://127.0.0.1:{port}/registry.json"
    assert skill_cli("source", "add", url, "--name", "later", "--no-fetch").code == 0
    assert skill_cli("search", "invoice").code == 1
    server = RegistryServer(port, published.registry)
    try:
        assert "remembered" in skill_cli("search", "invoice").err and server.hits == []
        refreshed = skill_cli("source", "refresh", "later")
        assert refreshed.code == 0 and server.hits == ["/registry.json"]
        assert skill_cli("search", "invoice").code == 0
    finally:
        server.stop()


def test_cached_source_going_down_warns_once_and_keeps_the_copy(published, monkeypatch, skill_cli):
    port = free_port()
    url = f"http://127.0.0.1:{port}/registry.json"
    server = RegistryServer(port, published.registry)
    assert skill_cli("source", "add", url, "--name", "flaky").code == 0
    server.stop()
    monkeypatch.setenv("SKILL_CACHE_TTL", "0.000001")  # the copy is stale at once...
    first = skill_cli("search", "invoice")
    assert first.code == 0 and len(warnings(first.err)) == 1 and "using the cached copy" in first.err
    monkeypatch.setenv("SKILL_CACHE_TTL", "600")
    age_mark("flaky", 0)
    cache_dir = cache.source_dir(load_config(), "flaky")
    meta = json.loads((cache_dir / "meta.json").read_text())
    meta["checked_at"] -= 3600  # ...and stays stale, while the unreachable state is fresh
    (cache_dir / "meta.json").write_text(json.dumps(meta))
    quiet = skill_cli("search", "invoice")
    assert quiet.code == 0 and "invoice-processor" in quiet.out and quiet.err == ""


@pytest.mark.parametrize("as_json", [False, True])
def test_doctor_says_unreachable_once(skill_home, monkeypatch, skill_cli, as_json):
    url = f"http://127.0.0.1:{free_port()}/registry.json"
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", url)
    result = skill_cli("doctor", *(["--json"] if as_json else []))
    assert result.code == 1
    text = result.out if as_json else result.out + result.err
    assert text.count("cannot be reached") == 1 and text.count(url) == 1


def test_builtin_alone_fails_fast_and_says_when_it_is_asked_again(skill_home, monkeypatch, skill_cli):
    monkeypatch.setenv("SKILL_DEFAULT_SOURCE", f"http://127.0.0.1:{free_port()}/registry.json")
    for _ in range(2):
        result = skill_cli("search", "pdf")
        assert result.code == 1 and "not asked again for 10 min" in result.err
        assert "`skill source refresh skillyard` asks now" in result.err
