"""The stand-in answers as GitHub does for the four real repositories: if it lied, every other test here would test
it instead of the registry. Tarball bytes, the two-commit history, the licence, ETags and git's smart HTTP."""

from __future__ import annotations

import hashlib
import json
import subprocess
import urllib.error
import urllib.request


def _get(url: str, **headers):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_codeload_serves_the_real_tarballs_and_the_api_the_two_commit_history(standin):
    spdx = {}
    for up in standin.upstreams.values():
        for which in ("pin", "older"):
            status, _, body = _get(f"{standin.url}/{up.slug}/tar.gz/{up.sha(which)}")
            assert status == 200 and hashlib.sha256(body).hexdigest() == up.entry[which]["tarball_sha256"]
        status, _, body = _get(f"{standin.url}/repos/{up.slug}/commits/{up.entry['default_branch']}")
        assert json.loads(body)["sha"] == up.sha("pin")
        status, _, body = _get(f"{standin.url}/repos/{up.slug}/compare/{up.sha('older')}...{up.sha('pin')}")
        assert json.loads(body)["status"] == "ahead" and json.loads(body)["ahead_by"] == 1
        status, _, body = _get(f"{standin.url}/repos/{up.slug}/compare/{up.sha('pin')}...{up.sha('older')}")
        assert json.loads(body)["status"] == "behind"
        for folder in up.entry["pointer_folders"]:
            status, _, body = _get(f"{standin.url}/repos/{up.slug}/commits?sha={up.sha('pin')}&path={folder}"
                                   "&per_page=1")
            newest = json.loads(body)[0]["sha"]
            assert newest == up.sha("pin" if folder in up.entry["changed"] else "older"), folder
        status, _, body = _get(f"{standin.url}/repos/{up.slug}/commits/{'0' * 40}")
        assert status == 422
        spdx[up.slug] = json.loads(_get(f"{standin.url}/repos/{up.slug}")[2])["license"]["spdx_id"]
    assert spdx == {"expo/skills": "MIT", "getsentry/skills": "Apache-2.0", "hashicorp/agent-skills": "MPL-2.0",
                    "obra/superpowers": "MIT"}


def test_answers_carry_etags_and_a_repeat_is_not_modified(standin):
    up = standin.upstream("obra/superpowers")
    for path in (f"/repos/{up.slug}", f"/{up.slug}/{up.sha('pin')}/skills/brainstorming/SKILL.md"):
        status, headers, _ = _get(standin.url + path)
        assert status == 200 and headers.get("ETag")
        assert _get(standin.url + path, **{"If-None-Match": headers["ETag"]})[0] == 304


def test_git_smart_http_serves_each_pins_real_commit(standin):
    base, _, ca_file = standin.git_http()
    env = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent",
           **({"GIT_SSL_CAINFO": str(ca_file)} if ca_file else {})}
    for up in standin.upstreams.values():
        done = subprocess.run(["git", "ls-remote", f"{base}/{up.slug}.git", "HEAD"], capture_output=True, text=True,
                              timeout=60, env=env)
        assert done.returncode == 0 and done.stdout.split()[0] == up.sha("pin"), done.stderr
