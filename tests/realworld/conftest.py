"""The real-world session (`nox -s realworld`): the public registry's own skills and every pointer entry, run with the
real CLIs and clients against the real upstream trees of ../shared/upstream, served on 127.0.0.1 by
tests/support/upstream_standin.py.

Collected only when SKILLYARD_REALWORLD=1 (the session sets it); elsewhere every test here skips with that reason,
and where ../shared/upstream is absent (a user's clone) with that one. SKILLYARD_REALWORLD_REQUIRED=1 (CI) turns any
skip into a failure while ../shared/upstream exists: CI must never pass by skipping. The closing lines print the
counts each path reached.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pytest
from tests.realworld.helpers import COUNTS, REPO, Registry, commit_all, load_pointers, own_skills, run, tool
from tests.support.loopback import LoopbackHTTPServer
from tests.support.upstream_standin import SHARED_UPSTREAM, UpstreamStandin

ENABLED = os.environ.get("SKILLYARD_REALWORLD") == "1"
REQUIRED = os.environ.get("SKILLYARD_REALWORLD_REQUIRED") == "1"
REASON = "real-world tests run only in `nox -s realworld` (SKILLYARD_REALWORLD=1): they need ../shared/upstream " \
         "and install third-party clients"
ABSENT = f"{SHARED_UPSTREAM} is absent (a clone without ../shared): nothing real to serve"
_TIMES: dict[str, float] = {}


def pytest_collection_modifyitems(config, items):
    reason = REASON if not ENABLED else ABSENT if not SHARED_UPSTREAM.is_dir() else None
    for item in items:
        if not _ours(item):
            continue
        if reason is None:
            item.add_marker(pytest.mark.timeout(3600))  # whole-registry runs: far past the suite's 300 s per test
        else:
            item.add_marker(pytest.mark.skip(reason=reason))


# The fixtures that serve ../shared/upstream and run the clients: a test using one belongs to the session. Other
# tests in this folder (the gate's own, tests/realworld/test_one_verdict.py) run in the ordinary suite.
SESSION_FIXTURES = frozenset({"standin", "registry", "site", "tool_env", "node22", "pointers", "own"})


def _ours(item) -> bool:
    return "tests/realworld/" in str(item.fspath).replace(os.sep, "/") and \
        bool(SESSION_FIXTURES & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not _ours(item):
        return
    if report.skipped and REQUIRED and SHARED_UPSTREAM.is_dir():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"SKILLYARD_REALWORLD_REQUIRED=1 and {SHARED_UPSTREAM} exists, but this test skipped: {reason}"
    if report.when == "call":
        _TIMES[report.nodeid.split("::")[-1]] = report.duration


def pytest_terminal_summary(terminalreporter):
    if not any("tests/realworld" in str(a) for a in terminalreporter.config.args) and not COUNTS:
        return
    terminalreporter.section("realworld: what each path reached")
    if not ENABLED or not SHARED_UPSTREAM.is_dir():
        terminalreporter.write_line(f"none: {REASON if not ENABLED else ABSENT}")
        return
    claude = sorted(k for k in COUNTS if k.startswith("Claude Code"))
    order = ["installed", "verified", *claude, "npx skills", "bump", "site"]
    parts = [f"{COUNTS[key]} {key}" if key in ("installed", "verified") else f"{key} {COUNTS[key]}"
             for key in order if key in COUNTS]
    terminalreporter.write_line("realworld: " + (", ".join(parts) or "no path ran"))
    for key in sorted(set(COUNTS) - set(order)):
        terminalreporter.write_line(f"realworld: {key} {COUNTS[key]}")
    for name, seconds in sorted(_TIMES.items()):
        terminalreporter.write_line(f"    {name}: {seconds:.1f}s")


@pytest.fixture(scope="session")
def pointers() -> list:
    return load_pointers()


@pytest.fixture(scope="session")
def own() -> list[str]:
    return own_skills()


@pytest.fixture(scope="session")
def standin(tmp_path_factory):
    server = UpstreamStandin(tmp_path_factory.mktemp("standin")).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def tool_env(standin, tmp_path_factory) -> dict:
    """The tools' environment: GitHub is the stand-in; no token; a throwaway client home."""
    home = tmp_path_factory.mktemp("tool-home")
    return {"SKILL_GITHUB_API_URL": standin.url, "SKILL_GITHUB_CODELOAD_URL": standin.url,
            "SKILL_GITHUB_RAW_URL": standin.url, "SKILLCLI_HOME": str(home / "skillcli"), "HOME": str(home)}


@pytest.fixture(scope="session")
def registry(standin, tool_env) -> Registry:
    """A git copy of this repository's registry (skills/, site/, settings) served by the stand-in as
    skillyard/registry, built with `skillyard build` as the publish workflow builds it."""
    standin.create_repo("skillyard", "registry")
    root = standin.repo_path("skillyard", "registry")
    for name in ("pyproject.toml", "mkdocs.yml"):
        shutil.copy2(REPO / name, root / name)
    for name in ("skills", "site"):
        shutil.copytree(REPO / name, root / name, symlinks=True)
    commit_all(root, "registry")
    built = run([tool("skillyard"), "build", "--root", "."], cwd=root, env=tool_env)
    assert built.returncode == 0, built.stdout + built.stderr
    commit_all(root, "build")
    data = json.loads((root / "registry.json").read_text(encoding="utf-8"))
    return Registry(root, standin.raw_url("skillyard", "registry", "main", "registry.json"), data)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@dataclass
class Site:
    folder: Path
    url: str
    build: dict
    seconds: float


@pytest.fixture(scope="session")
def site(registry, tool_env, tmp_path_factory):
    """`skillyard site build --fetch-upstream` of the registry copy (its upstreams: the stand-in), served on
    127.0.0.1 as a static host serves it."""
    out = tmp_path_factory.mktemp("site") / "_site"
    started = time.monotonic()
    done = run([tool("skillyard"), "site", "build", "--root", ".", "--out", out, "--fetch-upstream", "--static-host",
                "--json"], cwd=registry.root, env=tool_env, timeout=1800)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield Site(out, f"http://127.0.0.1:{server.server_address[1]}", json.loads(done.stdout), seconds)
    server.shutdown()
    server.server_close()




@pytest.fixture(scope="session")
def node22() -> Path:
    """A Node 22 binary from the npm package `node` (the current `skills` release needs Node >= 22.20)."""
    from tests.interop.clients import NPM, npm_install

    binary = npm_install("node") / "node_modules" / ".bin" / "node"
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or not done.stdout.startswith("v22."):
        pytest.skip(f"{NPM['node']}: its node binary did not run ({done.stdout.strip() or done.stderr.strip()})")
    return binary
