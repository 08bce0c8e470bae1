"""The release workflow: a `v*` tag builds the sdist and wheel once, PyPI gets them by trusted publishing (an OIDC
token, no stored secret) and the GitHub release gets the same files; each job holds only its own permission."""

from __future__ import annotations

from tests.workflows.calls import WORKFLOWS, load, triggers

RELEASE = WORKFLOWS / "release.yml"


def _jobs() -> dict:
    return load(RELEASE)["jobs"]


def _uses(job: dict) -> list[str]:
    return [str(step.get("uses", "")).split("@")[0] for step in job.get("steps", [])]


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def test_only_a_version_tag_starts_a_release():
    doc = load(RELEASE)
    assert triggers(doc) == {"push"}
    assert doc["on"]["push"] == {"tags": ["v*"]}


def test_build_is_isolated_checked_and_read_only():
    build = _jobs()["build"]
    assert build["permissions"] == {"contents": "read"}
    runs = _runs(build)
    assert "python -m build" in runs and "--no-isolation" not in runs  # the build-system's own setuptools
    assert "twine check" in runs
    assert '"$TAG" != "v$version"' in runs  # a tag that does not name pyproject's version stops the release
    assert _uses(build)[-1] == "actions/upload-artifact"


def test_pypi_gets_the_built_files_by_trusted_publishing_only():
    pypi = _jobs()["pypi"]
    assert pypi["needs"] == "build"
    assert pypi["permissions"] == {"id-token": "write"}
    assert pypi["environment"]["name"] == "pypi"
    assert _uses(pypi) == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]
    publish = pypi["steps"][-1]
    assert set(publish.get("with", {})) == {"packages-dir"}  # no password / token: OIDC
    assert "secrets." not in RELEASE.read_text(encoding="utf-8")


def test_the_github_release_carries_the_same_files():
    release = _jobs()["github-release"]
    assert release["needs"] == "pypi"
    assert release["permissions"] == {"contents": "write"}
    assert _uses(release) == ["actions/download-artifact", ""]
    runs = _runs(release)
    assert "gh release create" in runs and "dist/*" in runs and "gh release upload" in runs
    assert release["steps"][-1]["env"]["GH_TOKEN"] == "${{ github.token }}"


def test_no_other_job_can_write():
    writers = {job_id for job_id, job in _jobs().items() if "write" in job["permissions"].values()}
    assert writers == {"pypi", "github-release"}
