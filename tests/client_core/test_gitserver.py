"""The fixture server itself behaves like raw.githubusercontent.com / codeload.github.com."""

import gzip
import io
import json
import tarfile
import urllib.error
import urllib.request

import pytest


def get(url, headers=None):
    return urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5)


def test_raw_by_branch_and_sha_with_etag(published):
    server = published.server
    with get(published.url) as resp:
        body = resp.read()
        etag = resp.headers["ETag"]
    assert json.loads(body)["name"] == "acme"
    sha = server.sha("acme", "skills")
    with get(server.raw_url("acme", "skills", sha, "registry.json")) as resp:
        assert resp.read() == body
    with pytest.raises(urllib.error.HTTPError) as info:
        get(published.url, {"If-None-Match": etag})
    assert info.value.code == 304
    with get(published.url, {"Accept-Encoding": "gzip"}) as resp:
        assert resp.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(resp.read()) == body


def test_codeload_tarball(published):
    server = published.server
    sha = server.sha("acme", "skills")
    with get(f"{server.url}/acme/skills/tar.gz/main") as resp:
        data = resp.read()
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        names = archive.getnames()
    assert f"skills-{sha}/skills/pdf-tools/SKILL.md" in names


def test_private_repo_and_log(published):
    server = published.server
    server.require_token("acme", "skills", "s3cret")
    with pytest.raises(urllib.error.HTTPError) as info:
        get(published.url)
    assert info.value.code == 401
    with get(published.url, {"Authorization": "Bearer s3cret"}) as resp:
        assert resp.status == 200
    assert [r.status for r in server.requests("registry.json")] == [401, 200]
    assert server.log[-1].header("authorization") == "Bearer s3cret"
