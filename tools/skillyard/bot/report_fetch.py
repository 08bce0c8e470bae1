"""Fetching the validate report of a PR's head commit: the newest pull-request run of the validate workflow for
that commit from the PR's own head repository and branch, then that run's report artifact, checked to be that
run's and that commit's before its bounded download (the token goes to the API only, never to storage)."""

from __future__ import annotations

import ipaddress
import itertools
import urllib.parse

from skillyard.bot import decide
from skillyard.bot.artifact import (
    ARTIFACT_NAME,
    MAX_ZIP_BYTES,
    ArtifactError,
    artifact_problem,
    report_from_zip,
)

MAX_RUNS = 100            # workflow runs of a head commit looked at for the validate run
MAX_ARTIFACTS = 20        # artifacts of that run looked at for the report


def is_loopback(api_url: str) -> bool:
    host = urllib.parse.urlsplit(api_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def zip_fetcher(token: str, api_url: str):
    """A function that downloads an artifact archive from the API, at most MAX_ZIP_BYTES + 1 bytes of it.

    GitHub answers with a redirect to a signed storage URL: the token goes to the API only (an unredirected
    header), and the redirect may only lead to https (or, against a loopback stand-in, to loopback).
    """
    import urllib.request

    loopback = is_loopback(api_url)

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = 3

        def redirect_request(self, req, fp, code, msg, headers, newurl):
            parts = urllib.parse.urlsplit(newurl)
            if parts.scheme != "https" and not (loopback and is_loopback(newurl)):
                raise ArtifactError(f"the artifact download redirects to a {parts.scheme or 'relative'} URL")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    opener = urllib.request.build_opener(Redirects)

    def fetch(url: str) -> bytes:
        request = urllib.request.Request(url, headers={"Accept": "application/vnd.github+json"})
        request.add_unredirected_header("Authorization", f"Bearer {token}")
        try:
            with opener.open(request, timeout=30) as response:
                length = response.headers.get("Content-Length")
                if length and length.isdigit() and int(length) > MAX_ZIP_BYTES:
                    raise ArtifactError(f"the archive is {int(length):,} bytes; the limit is {MAX_ZIP_BYTES:,}")
                return response.read(MAX_ZIP_BYTES + 1)
        except ArtifactError:
            raise
        except (OSError, ValueError) as exc:
            raise ArtifactError(f"the artifact cannot be downloaded ({str(exc)[:120]})") from None

    return fetch


def validate_run(repo, pr, required: str) -> decide.ValidateRun | None:
    """The newest pull-request run of the workflow named `required` for the PR's head commit, from the PR's head
    repository and branch (another PR with the same head SHA has its own base, so its own report), as the Actions
    API lists it."""
    head_sha = pr.head.sha
    head_repo = pr.head.repo.full_name.lower() if pr.head.repo is not None else None
    newest = None
    for run in itertools.islice(repo.get_workflow_runs(head_sha=head_sha, event="pull_request"), MAX_RUNS):
        if run.name != required or run.head_sha != head_sha or run.head_branch != pr.head.ref:
            continue
        if run.head_repository is None or run.head_repository.full_name.lower() != head_repo:
            continue
        if newest is None or run.id > newest.id:
            newest = run
    if newest is None:
        return None
    return decide.ValidateRun(newest.id, newest.name, newest.event, newest.head_sha, newest.status,
                              newest.conclusion, newest.check_suite_id)


def _artifact_meta(artifact) -> dict:
    run = artifact.workflow_run
    return {"id": artifact.id, "name": artifact.name, "size_in_bytes": artifact.size_in_bytes,
            "expired": artifact.expired,
            "workflow_run": {"id": run.id, "head_sha": run.head_sha} if run is not None else {}}


def run_report_artifact(repo, run: decide.ValidateRun, fetch, api_url: str) -> dict:
    """The report the validate run uploaded, checked to be that run's, for its head commit, and bounded."""
    found = [a for a in itertools.islice(repo.get_workflow_run(run.id).get_artifacts(), MAX_ARTIFACTS)
             if a.name == ARTIFACT_NAME]
    if not found:
        raise ArtifactError(f"workflow run {run.id} uploaded no `{ARTIFACT_NAME}` artifact")
    newest = max(found, key=lambda a: a.id)
    problem = artifact_problem(_artifact_meta(newest), run_id=run.id, head_sha=run.head_sha)
    if problem:
        raise ArtifactError(problem)
    # The download URL is built from the checked id, never taken from the listing.
    return report_from_zip(fetch(f"{api_url.rstrip('/')}/repos/{repo.full_name}/actions/artifacts/{newest.id}/zip"))
