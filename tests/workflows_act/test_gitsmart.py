"""The origin's smart HTTP (gitsmart.py) with real git over TLS, without act: a job's token pushes only with
`contents: write`, as on GitHub; a push without credentials is asked for them; a fetch with a job's token needs
`contents: read`; a fetch without credentials is open while the repository is public, asked for them when private."""

from __future__ import annotations

import os
import subprocess

import pytest
from tests.bot.ghstub import GitHubStandIn
from tests.support.gitserver import GIT_ENV, git
from tests.workflows_act.gitsmart import SmartHTTPOrigin

SLUG = "skillyard/skillyard"


@pytest.fixture
def origin(tmp_path):
    bare = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True, env=GIT_ENV)
    standin = GitHubStandIn(tokens={"job-token": "github-actions[bot]"}).start()
    server = SmartHTTPOrigin(bare, SLUG, standin, tmp_path)
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True, env=GIT_ENV)
    (work / "a.txt").write_text("a\n")
    git(work, "add", "a.txt")
    git(work, "-c", "user.name=x", "-c", "user.email=x@example.invalid", "commit", "-q", "-m", "a")
    env = {**GIT_ENV, "GIT_SSL_CAINFO": str(server.cert), "GIT_TERMINAL_PROMPT": "0",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    yield server, standin, work, bare, env
    server.stop()
    standin.stop()


def _push(work, url, env):
    return subprocess.run(["git", "push", url, "HEAD:main"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_job_token_with_contents_write_pushes(origin):
    server, standin, work, bare, env = origin
    standin.scopes["job-token"] = {"contents": "write"}
    url = server.url.replace("https://", "https://x-access-token:job-token@") + f"/{SLUG}.git"
    proc = _push(work, url, env)
    assert proc.returncode == 0, proc.stderr
    assert git(bare, "rev-parse", "main") == git(work, "rev-parse", "HEAD")
    assert server.pushes and not server.refused


def test_a_job_token_with_contents_read_gets_githubs_403(origin):
    server, standin, work, bare, env = origin
    standin.scopes["job-token"] = {"contents": "read"}
    url = server.url.replace("https://", "https://x-access-token:job-token@") + f"/{SLUG}.git"
    proc = _push(work, url, env)
    assert proc.returncode != 0
    assert "403" in proc.stderr, proc.stderr
    assert subprocess.run(["git", "--git-dir", str(bare), "rev-parse", "--verify", "-q", "main"],
                          capture_output=True).returncode != 0   # nothing arrived
    assert server.refused[0]["service"] == "git-receive-pack" and server.refused[0]["contents"] == "read"
    assert standin.refused


def test_a_push_without_credentials_or_with_an_unknown_token_is_refused_and_a_fetch_is_open(origin):
    server, standin, work, bare, env = origin
    assert _push(work, f"{server.url}/{SLUG}.git", env).returncode != 0
    unknown = server.url.replace("https://", "https://x-access-token:nope@") + f"/{SLUG}.git"
    assert _push(work, unknown, env).returncode != 0
    git(bare, "fetch", "-q", str(work), "main:main")
    listed = subprocess.run(["git", "ls-remote", f"{server.url}/{SLUG}"], env=env, capture_output=True, text=True,
                            timeout=60)
    assert listed.returncode == 0 and "refs/heads/main" in listed.stdout, listed.stderr
    assert os.path.exists(server.cert)


def _fetch(server, env, token=None, *, extraheader=False):
    """`git ls-remote` of the origin: anonymous, with the token in the URL, or as actions/checkout sends it (an
    `http.<server>/.extraheader` with basic x-access-token:<token>)."""
    import base64

    url = f"{server.url}/{SLUG}"
    args = ["git"]
    if token and extraheader:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        args += ["-c", f"http.{server.url}/.extraheader=AUTHORIZATION: basic {basic}"]
    elif token:
        url = url.replace("https://", f"https://x-access-token:{token}@")
    return subprocess.run([*args, "ls-remote", url], env=env, capture_output=True, text=True, timeout=60)


def test_a_fetch_with_a_job_token_needs_contents_read(origin):
    """actions/checkout fetches with the job's token: a job granted no `contents` permission is refused (403) and
    recorded; with `contents: read` it fetches."""
    server, standin, work, bare, env = origin
    git(bare, "fetch", "-q", str(work), "main:main")
    standin.scopes["job-token"] = {}
    refused = _fetch(server, env, "job-token", extraheader=True)
    assert refused.returncode != 0 and "403" in refused.stderr, refused.stderr
    assert server.refused == [{"service": "git-upload-pack", "login": "github-actions[bot]", "token": "job-token",
                               "contents": "none"}]
    standin.scopes["job-token"] = {"contents": "read"}
    fetched = _fetch(server, env, "job-token", extraheader=True)
    assert fetched.returncode == 0 and "refs/heads/main" in fetched.stdout, fetched.stderr


def test_an_anonymous_fetch_of_a_private_repository_is_asked_for_credentials(origin):
    server, standin, work, bare, env = origin
    git(bare, "fetch", "-q", str(work), "main:main")
    standin.add_repo(SLUG).private = True
    anonymous = _fetch(server, env)
    # git asks for a username after the 401 (a runner has no terminal to ask on)
    assert anonymous.returncode != 0 and "could not read Username" in anonymous.stderr, anonymous.stderr
    assert server.refused[-1]["token"] is None
    standin.scopes["job-token"] = {"contents": "read"}
    assert _fetch(server, env, "job-token").returncode == 0
