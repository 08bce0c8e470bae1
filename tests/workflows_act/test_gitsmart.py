"""The origin's smart HTTP (gitsmart.py) with real git over TLS, without act: a job's token pushes only with
`contents: write`, as on GitHub; a push without credentials is asked for them; a fetch is open."""

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
