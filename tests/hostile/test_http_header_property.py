"""Malformed URLs, headers and redirects from a server end in a clear error naming the URL (issue 24 item 6).

A real HTTP server on 127.0.0.1 answers with a generated status line and generated header values (Location,
Content-Type, Content-Length, ETag, Last-Modified, Retry-After, Link, Content-Encoding, rate-limit headers), written
as raw bytes so nothing in the test's own HTTP stack cleans them up. Whatever it sends, `fetch` raises FetchError
(a SkillyardError) or returns, and the CLI exits with a one-line refusal naming the URL, never "internal error ...
this is a bug".
"""

# ruff: noqa: F811 - pytest fixtures imported from tests.support are parameters of the tests below
from __future__ import annotations

import contextlib
import itertools
from http.server import BaseHTTPRequestHandler

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from tests.support.fixtures import skill_cli, skill_home  # noqa: F401 - fixtures
from tests.support.loopback import serve_in_thread

from skillyard.client.http import FetchError, check_url, fetch, safe_url
from skillyard.errors import SkillyardError

HEADERS = ["Location", "Content-Type", "Content-Length", "ETag", "Last-Modified", "Retry-After", "Link",
           "Content-Encoding", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Transfer-Encoding", "Uri"]
STATUSES = [200, 301, 302, 303, 304, 307, 308, 300, 399, 429, 403, 503, 999, 100]
# Pieces a hostile value is built from: broken IP literals, ports out of range, other schemes, escapes, digits of
# other scripts, huge numbers, dates out of range.
PIECES = ["http://", "https://", "//", "[", "]", "::1", "[::1", "127.0.0.1", ":", ":99999", ":-1", ":0", ":x", "@",
          "/", "?", "#", "%", "%zz", "\x00", "\x01", "\x7f", "\x85", " ", "\t", "ftp://", "file:///", "data:,",
          "javascript:", "xn--", "é", "\u202e", "\ufeff", "²", "١٢", "9" * 30, "-1", "1_0", "gzip", "deflate, gzip",
          "chunked", "W/\"x\"", "Mon, 01 Jan 0001 00:00:00 +1400", "Fri, 31 Dec 9999 23:59:59 -1200",
          "<http://[::1>; rel=\"next\"", "application/json; charset=x-unknown", "localhost", "\\"]

values = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=8).map("".join),
    st.binary(max_size=60).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"").decode("latin-1")),
)
answers = st.tuples(
    st.sampled_from(STATUSES),
    st.lists(st.tuples(st.sampled_from(HEADERS), values), max_size=4),
    st.sampled_from([b"", b"{}", b"not json", b'{"kind": "skillyard-sparse-index"}']),
)


class RawServer:
    """Answers every request with `self.answer`: (status, [(header, value)], body), written byte for byte."""

    def __init__(self):
        self.answer = (200, [], b"")
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def _reply(self):
                status, headers, body = server.answer
                lines = [f"HTTP/1.0 {status} X".encode()]
                lines += [f"{name}: {value}".encode("latin-1") for name, value in headers]
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(b"\r\n".join(lines) + b"\r\nConnection: close\r\n\r\n" + body)

            do_GET = do_POST = _reply  # noqa: N815

        self.httpd, origin = serve_in_thread(Handler)
        self.url = origin

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def raw():
    server = RawServer()
    yield server
    server.stop()


NAMES = itertools.count()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=answers, post=st.booleans())
@example(answer=(302, [("Location", "http://[::1")], b""), post=False)
@example(answer=(301, [("Location", "http://127.0.0.1:99999/x")], b""), post=False)
@example(answer=(302, [("Location", "ftp://example.com/x")], b""), post=False)
@example(answer=(307, [("Location", "http://127.0.0.1/\x01")], b""), post=True)
@example(answer=(302, [], b""), post=False)
@example(answer=(503, [("Retry-After", "Mon, 01 Jan 0001 00:00:00 +1400")], b""), post=False)
@example(answer=(200, [("ETag", "\"a\x00b\"")], b"{}"), post=False)
def test_fetch_never_raises_anything_but_a_clear_fetch_error(raw, answer, post):
    raw.answer = answer
    url = raw.url + "/registry.json"
    try:
        response = fetch(url, retries=0, timeout=2, deadline=4, max_retry_after=0,
                         json_body=b"{}" if post else None)
    except FetchError as exc:
        assert "127.0.0.1" in exc.message, exc.message  # names the URL asked for
        return
    for value in (response.etag, response.last_modified):  # what the cache stores is safe to send back
        assert value is None or (value.isascii() and value.isprintable())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=answers, command=st.sampled_from(["source", "github"]))
@example(answer=(302, [("Location", "http://[::1")], b""), command="source")
@example(answer=(302, [("Location", "http://[::1")], b""), command="github")
@example(answer=(301, [("Location", "https://[zz]/")], b""), command="source")
def test_cli_ends_in_a_clear_refusal_never_an_internal_error(raw, skill_cli, skill_home, monkeypatch, answer,
                                                           command):
    monkeypatch.setenv("SKILL_HTTP_RETRIES", "0")
    monkeypatch.setenv("SKILL_HTTP_DEADLINE", "4")
    monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", raw.url)
    raw.answer = answer
    if command == "source":
        result = skill_cli("source", "add", raw.url + "/registry.json", "--name", f"s{next(NAMES)}")
    else:
        result = skill_cli("install", f"github:evil/demo{next(NAMES)}")
    text = result.out + result.err
    assert "internal error" not in text and "this is a bug" not in text.lower(), text
    assert result.code != 0, text  # nothing here is a registry or a tarball
    assert "127.0.0.1" in text, text


@pytest.mark.parametrize("url", ["http://[::1", "https://h:99999/r.json", "https://h:x/r.json", "http://[zz]/",
                                 "https://h/a b", "https://h/\x1b[31m"])
def test_malformed_url_is_a_clear_error_naming_it(url):
    with pytest.raises(SkillyardError, match="not a valid URL") as info:
        check_url(url, what="registry URL")
    assert "\x1b" not in info.value.message
    with pytest.raises(SkillyardError, match="not a valid URL"):
        fetch(url, retries=0)


@pytest.mark.parametrize("url", ["http://[::1", "https://u:p@h:99999/x?token=1", "http://h/\x1b]0;x\x07"])
def test_safe_url_never_raises_and_hides_secrets(url):
    shown = safe_url(url)
    assert "token=1" not in shown and "u:p" not in shown and "\x1b" not in shown and "\x07" not in shown
