"""Scenario: a release tag. A maintainer pushes `v<version>` (the version in pyproject.toml) and release.yml runs on
that `push`: the build job makes the sdist and the wheel (`python -m build`, `twine check --strict`) and uploads
them as the `dist` artifact; the PyPI job downloads exactly those files and publishes them through
pypa/gh-action-pypi-publish, here a stand-in with the same inputs (sched_support.pypi_publish_standin) that
uploads them as twine does to a PyPI upload endpoint on 127.0.0.1. A tag that does not name the version stops at
the build job and publishes nothing. The GitHub release job then creates the release through the runner's `gh`
(standins/bin/gh), recorded by the API stand-in with its two assets."""

from __future__ import annotations

import hashlib
import re
import tarfile
import tomllib
import zipfile

import pytest
from tests.workflows_act.actions import cache_root
from tests.workflows_act.harness import ROOT
from tests.workflows_act.sched_support import PypiUpload, gh_path, pypi_publish_standin, release_wheels

pytestmark = pytest.mark.timeout(900)

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture
def pypi():
    server = PypiUpload()
    yield server
    server.stop()


def _push_tag(sandbox, tag: str) -> dict:
    sandbox.git("tag", tag, "origin/main")
    sandbox.git("push", "-q", "origin", f"refs/tags/{tag}")
    head = sandbox.head("origin/main")
    sandbox.repo.refs[f"tags/{tag}"] = head   # what GitHub's API then knows (gh's --verify-tag asks it)
    return {"ref": f"refs/tags/{tag}", "ref_name": tag, "before": "0" * 40, "after": head, "created": True,
            "deleted": False, "base_ref": "refs/heads/main", "head_commit": {"id": head},
            "repository": sandbox._repository_json(), "pusher": {"name": "maintainer"},
            "sender": {"login": "maintainer"}}


def _release(sandbox, pypi, tag: str):
    payload = _push_tag(sandbox, tag)
    return sandbox.act("push", "release.yml", payload, checkout=f"refs/tags/{tag}", extra=(
        *pypi_publish_standin(sandbox.tmp), *release_wheels(cache_root() / "release-wheels"),
        "--env", f"SKILLYARD_PYPI_STANDIN_URL={pypi.url}", *gh_path(sandbox.tmp)))


def test_a_version_tag_builds_the_sdist_and_wheel_and_publishes_them(sandbox, pypi):
    tag = f"v{VERSION}"
    result = _release(sandbox, pypi, tag)
    assert result.step("Build (isolated, with the build-system's own setuptools)").outcome == "success", \
        result.log[-6000:]
    assert result.step("The tag names the version being released").outcome == "success"
    sdist, wheel = f"skillyard-{VERSION}.tar.gz", f"skillyard-{VERSION}-py3-none-any.whl"
    for name in (sdist, wheel):
        assert re.search(rf"Checking dist/{re.escape(name)}: .*PASSED", result.log), name

    # The dist artifact holds exactly the two files, as the build job made them.
    zipped = sorted(sandbox.artifacts.rglob("dist/*.zip"))
    assert zipped, f"no dist artifact under {sandbox.artifacts}"
    with zipfile.ZipFile(zipped[0]) as archive:
        names = sorted(archive.namelist())
        built = {name: archive.read(name) for name in names}
    assert names == sorted([sdist, wheel])

    # PyPI received both, byte for byte, from the pypi job.
    assert result.step("pypa/gh-action-pypi-publish@").outcome == "success", result.log[-6000:]
    uploaded = {u["filename"]: u for u in pypi.uploads}
    assert sorted(uploaded) == sorted([sdist, wheel]), result.log[-6000:]
    for name, data in built.items():
        assert uploaded[name]["fields"]["sha256_digest"] == hashlib.sha256(data).hexdigest()
        assert uploaded[name]["fields"]["version"] == VERSION
    assert uploaded[sdist]["fields"]["filetype"] == "sdist" and uploaded[wheel]["fields"]["filetype"] == "bdist_wheel"

    # Then the GitHub release, after PyPI, through the runner's `gh` (standins/bin/gh against the API stand-in,
    # which checks the job's `contents: write`): no release yet, so `gh release create` makes one for the tag with
    # generated notes and attaches the same two files.
    assert result.returncode == 0, result.log[-6000:]
    release_job = [s for s in result.steps if s.job.endswith("attach the files to the GitHub release")]
    assert [s.outcome for s in release_job if s.name.startswith("Create the release")] == ["success"]
    (release,) = sandbox.repo.releases.values()
    assert (release["tag_name"], release["name"], release["author"]) == (tag, f"skillyard {VERSION}",
                                                                          "github-actions[bot]")
    assert release["generate_release_notes"] is True
    assert {a["name"]: a["data"] for a in release["assets"].values()} == built
    assert sandbox.standin.refused == []
    # gh's own order (cli/cli create.go, draftWhileUploading): the release is made as a draft, both files go up
    # while it is one, and only then is it published -- nobody sees a release without its files.
    assert release["draft"] is False
    assert all(a["while_draft"] for a in release["assets"].values())
    rid = next(iter(sandbox.repo.releases))
    assert sandbox.repo.release_log == [("create", rid, tag, True), ("upload", rid, sdist, True),
                                        ("upload", rid, wheel, True), ("update", rid, tag, False)] or \
        sandbox.repo.release_log == [("create", rid, tag, True), ("upload", rid, wheel, True),
                                     ("upload", rid, sdist, True), ("update", rid, tag, False)], \
        sandbox.repo.release_log
    repo_api = "/repos/skillyard/skillyard"
    asked = [(r.method, r.path) for r in sandbox.standin.requests if "/releases" in r.path or "/git/ref" in r.path]
    assert asked == [("GET", f"{repo_api}/releases/tags/{tag}"),      # gh release view: no published release,
                     ("GET", f"{repo_api}/releases"),                  # ...and no draft of the tag
                     ("HEAD", f"{repo_api}/releases/tags/{tag}"),     # gh release create: none published
                     ("GET", f"{repo_api}/git/ref/tags/{tag}"),       # --verify-tag
                     ("POST", f"{repo_api}/releases"),                # the draft
                     ("POST", f"/uploads{repo_api}/releases/{rid}/assets"),
                     ("POST", f"/uploads{repo_api}/releases/{rid}/assets"),
                     ("PATCH", f"{repo_api}/releases/{rid}")], asked  # published

    # What was published is the tagged tree: the sdist's pyproject and the wheel's metadata name the version.
    sdist_path = sandbox.tmp / sdist
    sdist_path.write_bytes(built[sdist])
    with tarfile.open(sdist_path) as archive:
        assert f'version = "{VERSION}"' in archive.extractfile(f"skillyard-{VERSION}/pyproject.toml").read().decode()
    wheel_path = sandbox.tmp / wheel
    wheel_path.write_bytes(built[wheel])
    with zipfile.ZipFile(wheel_path) as archive:
        metadata = archive.read(f"skillyard-{VERSION}.dist-info/METADATA").decode()
        assert f"\nVersion: {VERSION}\n" in metadata
        assert any(n.startswith("skillyard/") and n.endswith(".py") for n in archive.namelist())


def test_a_tag_that_does_not_name_the_version_publishes_nothing(sandbox, pypi):
    result = _release(sandbox, pypi, "v99.0.0")
    assert result.returncode != 0
    assert result.step("The tag names the version being released").outcome == "failure"
    assert f"tag v99.0.0 does not match pyproject.toml's version {VERSION}: tag v{VERSION} instead" in result.log
    assert not pypi.uploads
    assert not sorted(sandbox.artifacts.rglob("dist/*.zip"))
    assert not sandbox.repo.releases


# ---- the runner's gh against the stand-in, without act ----------------------------------------------------------
def _gh(standin, token, *args, cwd):
    import os
    import subprocess
    import sys

    from tests.workflows_act.harness import HERE

    env = {**os.environ, "GH_TOKEN": token, "GH_REPO": "skillyard/skillyard", "GITHUB_API_URL": standin.base_url}
    return subprocess.run([sys.executable, str(HERE / "standins" / "bin" / "gh"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_gh_release_create_publishes_only_after_the_uploads_and_removes_a_failed_draft(tmp_path):
    """`gh release create TAG FILES`: a draft, the files, then `draft: false`; when an upload is refused (here a
    token that may read but not write releases), gh deletes its draft and fails; `gh release view` finds a draft
    too (gh's FetchRelease), while GitHub's by-tag endpoint knows published releases only."""
    from tests.bot.ghstub import GitHubStandIn

    standin = GitHubStandIn(tokens={"writer": "github-actions[bot]", "reader": "github-actions[bot]"}).start()
    try:
        repo = standin.add_repo("skillyard/skillyard")
        repo.refs["tags/v1.0.0"] = "a" * 40
        (tmp_path / "a.whl").write_bytes(b"wheel")
        standin.scopes["reader"] = {"contents": "read"}
        standin.scopes["writer"] = {"contents": "write"}
        refused = _gh(standin, "reader", "release", "create", "v1.0.0", "a.whl", "--verify-tag", cwd=tmp_path)
        assert refused.returncode == 1 and "403" in refused.stderr, refused.stderr
        assert repo.releases == {}   # nothing was created (the POST itself was refused)

        # A draft left by an earlier, interrupted create is found by `gh release view`, not by the tag endpoint.
        repo.releases[7] = {"tag_name": "v1.0.0", "name": "x", "author": "github-actions[bot]", "assets": {},
                            "generate_release_notes": False, "target_commitish": None, "draft": True}
        view = _gh(standin, "reader", "release", "view", "v1.0.0", cwd=tmp_path)
        assert view.returncode == 0 and "v1.0.0" in view.stdout, view.stderr
        del repo.releases[7]

        made = _gh(standin, "writer", "release", "create", "v1.0.0", "a.whl", "--title", "T", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        (rid,) = repo.releases
        assert [e[0] for e in repo.release_log] == ["create", "upload", "update"]
        assert repo.release_log[0][3] is True and repo.release_log[-1][3] is False
        again = _gh(standin, "writer", "release", "create", "v1.0.0", "a.whl", cwd=tmp_path)
        assert again.returncode == 1 and "already exists" in again.stderr

        # An upload that fails after the draft exists: gh deletes the draft.
        repo.refs["tags/v2.0.0"] = "b" * 40
        (tmp_path / "big.whl").write_bytes(b"x")
        standin.scopes["writer"] = {"contents": "write"}
        original = standin.upload_asset
        standin.upload_asset = lambda *a: (422, {"message": "Validation Failed"})
        failed = _gh(standin, "writer", "release", "create", "v2.0.0", "big.whl", cwd=tmp_path)
        standin.upload_asset = original
        assert failed.returncode == 1
        assert [t for r in repo.releases.values() for t in [r["tag_name"]]] == ["v1.0.0"]
        assert repo.release_log[-1][0] == "delete"
    finally:
        standin.stop()
