"""http.fetch against GitServer: messages for each failure, gzip, redirects and progress."""

import json
import time

import pytest

from skillyard.client.http import FetchError, fetch


@pytest.fixture
def url(git_server):
    git_server.create_repo("o", "r", {"registry.json": json.dumps({"pad": "x" * 5000})})
    return git_server.raw_url("o", "r", "main", "registry.json")


def test_gzip_progress_and_etag(git_server, url):
    seen = []
    resp = fetch(url, progress=lambda done, total: seen.append((done, total)))
    assert json.loads(resp.body)["pad"] == "x" * 5000
    assert resp.headers["content-encoding"] == "gzip" and len(resp.body) > int(resp.headers["content-length"])
    assert seen and seen[-1][0] == seen[-1][1] == int(resp.headers["content-length"])
    assert git_server.log[0].header("Accept-Encoding") == "gzip"
    again = fetch(url, etag=resp.etag)
    assert again.not_modified and again.status == 304 and again.body == b""


def test_not_found_message(git_server, url):
    with pytest.raises(FetchError) as info:
        fetch(url.replace("registry.json", "missing.json"))
    assert info.value.kind == "not-found" and "HTTP 404, not found" in info.value.message
    assert "private repositories" in info.value.fix


def test_rate_limit_too_long_fails_fast(git_server, url):
    git_server.rate_limit_next(5, retry_after=120)
    started = time.monotonic()
    with pytest.raises(FetchError) as info:
        fetch(url)
    assert time.monotonic() - started < 1
    assert info.value.kind == "rate-limit" and "retry after 120 s" in info.value.message
    assert len(git_server.log) == 1


def test_server_errors_exhaust_retries(git_server, url):
    git_server.fail_next(10, 503)
    with pytest.raises(FetchError, match="HTTP 503, server error after retries") as info:
        fetch(url, retries=2, backoff=0.01)
    assert info.value.network and len(git_server.log) == 3


def test_redirect_to_plain_http_elsewhere_refused(git_server, url):
    git_server.redirect_to("/o/r/", "http://example.com")
    with pytest.raises(FetchError, match="redirected to plain http") as info:
        fetch(url, token="tok-abc")
    assert info.value.kind == "refused" and "tok-abc" not in str(info.value)


def test_same_origin_redirect_keeps_token(git_server, url):
    git_server.create_repo("o", "moved", {"registry.json": "{}"})
    git_server.require_token("o", "moved", "tok")
    git_server.redirect_to("/o/r/", git_server.url + "/o/moved/main/registry.json?")
    assert fetch(url, token="tok").body == b"{}"
    assert [r.header("Authorization") for r in git_server.log] == ["Bearer tok", "Bearer tok"]
