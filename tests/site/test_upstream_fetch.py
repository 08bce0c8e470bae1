"""The site build's upstream fetch (site/upstream.py) against the GitHub stand-in: bounded in time (one deadline for
all downloads) and size (per tarball), and a hostile upstream folder is never shown or served."""

from __future__ import annotations

import io
import tarfile

import pytest
from tests.site.pointerkit import pointer_entry, upstream_skill_md
from tests.support.gitserver import GitServer

from skillyard.client import http
from skillyard.site import upstream


@pytest.fixture
def server(tmp_path):
    server = GitServer(tmp_path / "server").start()
    for owner in ("up", "other"):
        server.create_repo(owner, "skills", {"skills/alpha/SKILL.md": upstream_skill_md("alpha", "Alpha."),
                                             "skills/alpha/notes.md": "# notes\n"})
    yield server
    server.stop()


def registry_of(server: GitServer) -> dict:
    return {"skills": [pointer_entry(server, "up", "skills", "skills/alpha", name="alpha", licence="MIT"),
                       pointer_entry(server, "other", "skills", "skills/alpha", name="beta", licence="MIT")]}


def fetcher(server: GitServer, **bounds) -> upstream.Fetcher:
    get = lambda url, **kw: http.fetch(url, timeout=10, retries=0, **kw).body  # noqa: E731
    return upstream.Fetcher(get=get, codeload_url=server.url, **bounds)


def test_both_fetched_and_shown_within_the_bounds(server):
    found = upstream.collect(registry_of(server), fetcher(server))
    assert {name: c.state for name, c in found.items()} == {"alpha": "shown", "beta": "shown"}


def test_one_deadline_bounds_every_download(server):
    server.hang_next(seconds=3, match="/other/skills/tar.gz/")  # repositories are fetched in name order
    notes: list[str] = []
    found = upstream.collect(registry_of(server), fetcher(server, deadline=0.5), notes)
    assert {name: c.state for name, c in found.items()} == {"alpha": "not-fetched", "beta": "not-fetched"}
    assert any("deadline" in note and "up/skills" in note for note in notes)  # never asked: the time was up
    assert server.requests("/up/skills/tar.gz/") == []


def test_a_tarball_past_the_size_cap_is_not_read(server):
    notes: list[str] = []
    found = upstream.collect(registry_of(server), fetcher(server, max_tarball_bytes=64), notes)
    assert found["alpha"].state == "not-fetched" and found["alpha"].files == {}
    assert any("up/skills" in note for note in notes)


def _tarball(prefix: str, files: dict[str, bytes], links: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{prefix}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name, target in links.items():
            info = tarfile.TarInfo(f"{prefix}/{name}")
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return buffer.getvalue()


def test_a_link_out_of_the_folder_keeps_the_skill_off_the_site(server):
    sha = server.sha("up", "skills")
    skill_md = upstream_skill_md("alpha", "Alpha.").encode()
    server.serve_tarball("up", "skills", sha, _tarball(f"skills-{sha}", {"skills/alpha/SKILL.md": skill_md,
                                                                        "secret.txt": b"# notes\n"},
                                                       {"skills/alpha/notes.md": "../../secret.txt"}))
    notes: list[str] = []
    found = upstream.collect(registry_of(server), fetcher(server), notes)
    assert found["alpha"].state == "mismatch" and found["alpha"].files == {}
    assert found["alpha"].reason == "the upstream folder at the pinned commit cannot be read safely"
    assert found["beta"].state == "shown"  # one hostile repository never costs another its content


def test_without_a_fetcher_nothing_is_asked_and_the_licence_is_still_decided(server):
    registry = registry_of(server)
    registry["skills"][1]["license"] = "AGPL-3.0-only"
    found = upstream.collect(registry, None)
    assert {name: c.state for name, c in found.items()} == {"alpha": "not-fetched", "beta": "licence"}
    assert server.log == []


def test_a_repository_or_commit_that_is_not_plain_is_never_put_into_a_url(server):
    registry = registry_of(server)
    registry["skills"][0]["source"]["repository"] = "up/.."
    registry["skills"][1]["commit"] = "main"
    notes: list[str] = []
    found = upstream.collect(registry, fetcher(server), notes)
    assert {name: c.state for name, c in found.items()} == {"alpha": "not-fetched", "beta": "not-fetched"}
    assert server.log == [] and len(notes) == 2
