"""Real-client interop suite (`nox -s interop`): third-party tools run against what we build and serve.

Collected only when SKILLYARD_INTEROP=1 (the interop session sets it): these tests install packages from npm and
PyPI, so `nox -s tests` skips them with that reason. Each test skips, with a printed reason, only when its package
cannot be installed; the closing note lists per tool what ran, passed, failed or skipped, and how long it took.
Only the package registries and 127.0.0.1 are used; no API keys.
"""

from __future__ import annotations

import http.server
import os
import shutil
import subprocess
import threading
from functools import partial
from pathlib import Path

import pytest
from tests.interop.clients import ENABLED, NODE_FLOOR, NPM, REASON, REPO, npm_install, run, skillyard_bin
from tests.support.loopback import LoopbackHTTPServer

_RESULTS: dict[str, list[tuple[str, str, float, str]]] = {}


def pytest_collection_modifyitems(config, items):
    if ENABLED:
        return
    skip = pytest.mark.skip(reason=REASON)
    for item in items:
        if "tests/interop/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


def pytest_runtest_logreport(report):
    if "tests/interop/" not in report.nodeid.replace(os.sep, "/"):
        return
    tool = report.nodeid.split("::")[0].rsplit("/", 1)[-1].removeprefix("test_").removesuffix(".py")
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        reason = ""
        if report.skipped and isinstance(report.longrepr, tuple):
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        _RESULTS.setdefault(tool, []).append((report.nodeid.split("::", 1)[-1], report.outcome, report.duration,
                                              reason))


def pytest_terminal_summary(terminalreporter):
    if not any("tests/interop" in str(a) for a in terminalreporter.config.args) and not _RESULTS:
        return
    terminalreporter.section("interop: which real clients ran")
    if not ENABLED:
        terminalreporter.write_line(f"none: {REASON}")
        return
    for tool, rows in sorted(_RESULTS.items()):
        counts = {o: sum(1 for r in rows if r[1] == o) for o in ("passed", "failed", "skipped")}
        seconds = sum(r[2] for r in rows)
        terminalreporter.write_line(f"{tool}: {counts['passed']} passed, {counts['failed']} failed, "
                                    f"{counts['skipped']} skipped, {seconds:.1f}s")
        for reason in sorted({r[3] for r in rows if r[1] == "skipped" and r[3]}):
            terminalreporter.write_line(f"    skipped: {reason}")


@pytest.fixture(scope="session")
def node22() -> Path:
    """A Node 22 binary from the npm package `node` (the system node may be older than a client needs): at least
    NODE_FLOOR, which the pinned `skills` CLI requires."""
    binary = npm_install("node") / "node_modules" / ".bin" / "node"
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or not done.stdout.startswith("v22."):
        pytest.skip(f"{NPM['node']}: its node binary did not run ({done.stdout.strip() or done.stderr.strip()})")
    version = tuple(int(part) for part in done.stdout.strip().removeprefix("v").split(".")[:2])
    assert version >= NODE_FLOOR, (f"{NPM['node']} gives Node {done.stdout.strip()}, older than the "
                                   f"{'.'.join(map(str, NODE_FLOOR))} the skills CLI needs: pin a newer one")
    return binary


@pytest.fixture(scope="session")
def built_repo(tmp_path_factory) -> Path:
    """A throwaway git copy of this registry (skills/, site pages, config) with `skillyard build` and
    `skillyard site build` run in it: registry.json, marketplace.json and _site/ as we would publish them."""
    root = tmp_path_factory.mktemp("interop-repo")
    for name in ("pyproject.toml", "mkdocs.yml"):
        shutil.copy2(REPO / name, root / name)
    for name in ("skills", "site"):
        shutil.copytree(REPO / name, root / name, symlinks=True)
    git = {"GIT_AUTHOR_NAME": "interop", "GIT_AUTHOR_EMAIL": "interop@skillyard.invalid",
           "GIT_COMMITTER_NAME": "interop", "GIT_COMMITTER_EMAIL": "interop@skillyard.invalid"}
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "interop"]):
        assert run(argv, cwd=root, env=git).returncode == 0
    built = run([skillyard_bin("skillyard"), "build", "--root", ".", "--skip-invalid"], cwd=root)
    assert built.returncode == 0, built.stdout + built.stderr
    site = run([skillyard_bin("skillyard"), "site", "build", "--root", ".", "--out", "_site"], cwd=root)
    assert site.returncode == 0, site.stdout + site.stderr
    return root


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url(built_repo):
    """The built site served on 127.0.0.1 by a thread."""
    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(built_repo / "_site")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


