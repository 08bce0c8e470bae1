"""The GitHub stand-in answers requests without a token as GitHub does: a public repository is readable by anyone,
a private one is hidden, writes and `/user` want credentials, and an unknown token is "Bad credentials" even for a
public read. (Real HTTP against the stand-in on 127.0.0.1.)"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from tests.bot.ghstub import GitHubStandIn, Pull


@pytest.fixture
def server():
    stub = GitHubStandIn(tokens={"good": "alice"}).start()
    public = stub.add_repo("acme/open")
    public.pulls[1] = Pull(1, "carol", "a" * 40, title="Public PR")
    stub.add_repo("acme/closed", private=True).pulls[1] = Pull(1, "carol", "b" * 40)
    yield stub
    stub.stop()


def call(stub: GitHubStandIn, method: str, path: str, token: str | None = None, body: dict | None = None):
    request = urllib.request.Request(stub.base_url + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    if token is not None:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def test_an_anonymous_read_of_a_public_repository_is_served(server):
    assert call(server, "GET", "/repos/acme/open")[0] == 200
    status, pulls = call(server, "GET", "/repos/acme/open/pulls")
    assert status == 200 and [p["title"] for p in pulls] == ["Public PR"]
    assert call(server, "GET", "/repos/acme/open/pulls/1")[1]["number"] == 1


def test_a_private_repository_is_hidden_from_an_anonymous_read(server):
    assert call(server, "GET", "/repos/acme/closed") == (404, {"message": "Not Found"})
    assert call(server, "GET", "/repos/acme/closed/pulls/1")[0] == 404
    assert call(server, "GET", "/repos/acme/closed", token="good")[0] == 200   # with a token it is there


def test_anonymous_writes_and_the_user_endpoint_want_credentials(server):
    status, body = call(server, "POST", "/repos/acme/open/issues/1/comments", body={"body": "hi"})
    assert (status, body) == (401, {"message": "Requires authentication"})
    assert not server.repos["acme/open"].comments
    assert call(server, "GET", "/user") == (401, {"message": "Requires authentication"})


def test_an_unknown_token_is_bad_credentials_even_for_a_public_read(server):
    assert call(server, "GET", "/repos/acme/open", token="forged") == (401, {"message": "Bad credentials"})


def test_an_anonymous_read_of_a_missing_repository_is_not_found(server):
    assert call(server, "GET", "/repos/acme/none")[0] == 404
