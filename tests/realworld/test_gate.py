"""The session's gate, run in the ordinary suite: outside `nox -s realworld`, or without ../shared/upstream, the
real-world tests skip and say why; with SKILLYARD_REALWORLD_REQUIRED=1 (CI) a skip while ../shared/upstream exists
is a failure, so CI cannot pass by skipping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ONE = "tests/realworld/test_verify_install.py::test_the_standin_holds_every_pointer_at_its_pin"


def _pytest(tmp_path, **env):
    base = {k: v for k, v in os.environ.items() if not k.startswith("SKILLYARD_REALWORLD")
            and k != "SKILLYARD_SHARED_UPSTREAM"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", ONE],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env={**base, **env})


def test_outside_the_session_it_skips_with_the_reason(tmp_path):
    done = _pytest(tmp_path)
    assert done.returncode == 0 and "1 skipped" in done.stdout
    assert "only in `nox -s realworld` (SKILLYARD_REALWORLD=1)" in done.stdout


def test_without_shared_upstream_it_skips_naming_the_folder(tmp_path):
    absent = tmp_path / "no-shared" / "upstream"
    done = _pytest(tmp_path, SKILLYARD_REALWORLD="1", SKILLYARD_SHARED_UPSTREAM=str(absent),
                   SKILLYARD_REALWORLD_REQUIRED="1")
    assert done.returncode == 0 and "1 skipped" in done.stdout, done.stdout[-2000:]
    assert f"{absent} is absent" in done.stdout


def test_in_ci_a_skip_while_shared_exists_fails(tmp_path):
    shared = tmp_path / "shared" / "upstream"
    shared.mkdir(parents=True)  # present: CI must not pass by skipping (here: the session's variable is unset)
    done = _pytest(tmp_path, SKILLYARD_SHARED_UPSTREAM=str(shared), SKILLYARD_REALWORLD_REQUIRED="1")
    assert done.returncode == 1 and ("1 failed" in done.stdout or "1 error" in done.stdout), done.stdout[-2000:]
    assert "SKILLYARD_REALWORLD_REQUIRED=1" in done.stdout and "but this test skipped" in done.stdout
