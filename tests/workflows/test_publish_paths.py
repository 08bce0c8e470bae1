"""Issue 32 item 5: every way into main leads to a run of publish.yml, under GitHub's rules for starting runs.

GitHub's rule ("Triggering a workflow from a workflow"): an event caused by the repository's GITHUB_TOKEN (a push,
a PR merge made through the API with it) starts no workflow run, except `workflow_dispatch` and
`repository_dispatch`. A person's push or merge starts every workflow whose trigger matches. This module models
that rule, reads the workflow files as GitHub runs them (a caller's job replaced by the reusable workflow's jobs,
inputs from the caller's `with:` or the declared defaults), and walks each path into main:

- a person pushes or merges a PR: the push starts publish.yml;
- automerge merges a labelled PR (`pull_request_target`) or a bump PR once its checks finish (`workflow_run`):
  the merge is the token's, so it starts nothing; the merging job must then dispatch publish.yml, naming the
  merge commit, which the publish run's record-verification step receives;
- the bot's own commits: every job that runs `git push` either is publish's own (a later job of the same run
  builds the site from the pushed commit) or dispatches publish.yml after pushing.

The same walk over the workflow files before this change (the branch point, when git has it) must find the
automerge and verify paths unpublished: the model can fail.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

import pytest
from tests.workflows.calls import ROOT, WORKFLOWS, parse

TOKEN_EXEMPT = {"workflow_dispatch", "repository_dispatch"}  # what a GITHUB_TOKEN event may still start
TOKEN_REF = "${{ github.token }}"
BOT = "github-actions[bot]"
BEFORE = "87c8c65"  # main when issue 32 was taken up: automerge and verify never started publish
Loader = Callable[[str], dict]


def tree_loader(name: str) -> dict:
    return parse((WORKFLOWS / name).read_text(encoding="utf-8"))


def commit_loader(commit: str) -> Loader:
    def load(name: str) -> dict:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:.github/workflows/{name}"], check=True,
                              capture_output=True, text=True, timeout=60).stdout
        return parse(text)
    return load


def caller_names() -> list[str]:
    return sorted(p.name for p in WORKFLOWS.glob("*.yml") if not p.name.startswith("reusable-"))


# ---- GitHub's triggering rule ---------------------------------------------------------------------------------

def started(load: Loader, event: str, *, by_token: bool, branch: str = "main") -> list[str]:
    """The caller workflows an event starts: none for a GITHUB_TOKEN event but the two dispatch events."""
    if by_token and event not in TOKEN_EXEMPT:
        return []
    out = []
    for name in caller_names():
        on = load(name)["on"]
        on = {on: None} if isinstance(on, str) else {k: None for k in on} if isinstance(on, list) else on
        if event not in on:
            continue
        spec = on[event] or {}
        if event in ("push", "pull_request") and "branches" in spec:
            matches = branch in spec["branches"]
        else:  # a push filtered to tags only is no branch push
            matches = not (event == "push" and "tags" in spec)
        if matches:
            out.append(name)
    return out


# ---- expressions, as far as these workflows use them ----------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<str>'[^']*')|(?P<op>&&|\|\||==|!=|!|\(|\))|(?P<call>[a-z]+\(\))|"
                    r"(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*))")


def evaluate(expression: str | None, context: dict) -> object:
    """A GitHub Actions `if:` or `${{ }}` expression over `context` (dotted names; a missing one is '')."""
    if expression is None:
        return True
    text = expression.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    python, position = [], 0
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        assert match, f"cannot read the expression {expression!r} at {text[position:]!r}"
        position = match.end()
        if match.group("str") is not None:
            python.append(repr(match.group("str")[1:-1]))
        elif match.group("op"):
            python.append({"&&": " and ", "||": " or ", "!": " not "}.get(match.group("op"), match.group("op")))
        elif match.group("call"):
            assert match.group("call") in ("cancelled()", "always()", "success()"), match.group("call")
            python.append(repr(match.group("call") != "cancelled()"))
        else:
            python.append(repr(context.get(match.group("name"), "")))
    return eval("".join(python), {"__builtins__": {}}, {})  # noqa: S307 - our own tokens, literals only


# What the event payloads of the paths say: the `automerge` label added to a PR into main; a PR's check finished.
PAYLOADS = {
    "pull_request_target": {"github.event.label.name": "automerge", "github.event.pull_request.base.ref": "main",
                            "github.event.repository.default_branch": "main"},
    "workflow_run": {"github.event.workflow_run.event": "pull_request"},
}


# ---- the jobs a run reaches -------------------------------------------------------------------------------------

class Run:
    """A caller workflow run: its jobs (reusable calls expanded) with the context each job's expressions see."""

    def __init__(self, load: Loader, name: str, event: str, actor: str, inputs: dict | None = None):
        self.name, self.doc = name, load(name)
        self.jobs: list[tuple[str, dict, dict, dict]] = []  # (id, job, context, the caller job's permissions)
        base = {"github.event_name": event, "github.actor": actor, "github.token": TOKEN_REF,
                "github.sha": "HEAD-SHA", **PAYLOADS.get(event, {})}
        dispatch = (self.doc["on"].get("workflow_dispatch") or {}).get("inputs") or {}
        given = {f"inputs.{k}": (inputs or {}).get(k, spec.get("default", "")) for k, spec in dispatch.items()}
        for job_id, job in self.doc["jobs"].items():
            context = {**base, **given}
            if "uses" not in job:
                self.jobs.append((job_id, job, context, job.get("permissions") or {}))
                continue
            callee = load(job["uses"].removeprefix("./.github/workflows/"))
            declared = callee["on"]["workflow_call"].get("inputs") or {}
            inner = {**base, **{f"inputs.{k}": spec.get("default", "") for k, spec in declared.items()}}
            for key, value in (job.get("with") or {}).items():
                inner[f"inputs.{key}"] = evaluate(value, context) if isinstance(value, str) and "${{" in value \
                    else value
            for inner_id, inner_job in callee["jobs"].items():
                self.jobs.append((f"{job_id}/{inner_id}", inner_job, inner, job.get("permissions") or {}))

    def job(self, suffix: str) -> tuple[str, dict, dict, dict]:
        [found] = [j for j in self.jobs if j[0].endswith(suffix)]
        return found

    def runs(self, job_suffix: str) -> bool:
        _, job, context, _ = self.job(job_suffix)
        return bool(evaluate(job.get("if"), context))


def env_of(step: dict, context: dict) -> dict[str, object]:
    return {k: evaluate(v, context) if isinstance(v, str) and "${{" in v else v
            for k, v in (step.get("env") or {}).items()}


def dispatches_after(load: Loader, run: Run, job_suffix: str, index: int) -> list[tuple[str, dict]]:
    """(workflow, inputs) each later step of the job dispatches with the job's token, when its `if` holds."""
    job_id, job, context, granted = run.job(job_suffix)
    done = job["steps"][index]  # it ran: the outputs it writes are set for the steps after it
    outputs = re.findall(r'echo "([\w-]+)=([^"$]*)" >> "\$GITHUB_OUTPUT"', done.get("run", ""))
    context = {**context, **{f"steps.{done.get('id')}.outputs.{k}": v for k, v in outputs}}
    out = []
    for step in job["steps"][index + 1:]:
        text = step.get("run", "")
        call = re.search(r"gh workflow run \"\$(\w+)\"(.*)", text)
        if not call or not evaluate(step.get("if"), context):
            continue
        env = env_of(step, context)
        if env.get("GH_TOKEN") != TOKEN_REF:
            continue
        # Starting a workflow takes `actions: write`, in the called job and in what its caller grants.
        if (job.get("permissions") or {}).get("actions") != "write" or granted.get("actions") != "write":
            continue
        inputs = dict(re.findall(r"-f ([\w-]+)=\"\$(\w+)\"", call.group(2)))
        for workflow in started(load, "workflow_dispatch", by_token=True):
            if workflow == env.get(call.group(1)):
                out.append((workflow, inputs))
    return out


def publish_records(load: Loader, inputs: dict) -> tuple[bool, str]:
    """Whether a publish.yml run dispatched by the bot with `inputs` runs its registry job, and which commit its
    record-verification step is given (the expression's value)."""
    declared = (load("publish.yml")["on"].get("workflow_dispatch") or {}).get("inputs") or {}
    if not set(inputs) <= set(declared):
        return False, f"publish.yml declares no input {sorted(set(inputs) - set(declared))}"
    run = Run(load, "publish.yml", "workflow_dispatch", BOT, {k: "MERGE-SHA" for k in inputs})
    if not run.runs("/registry"):
        return False, "the registry job skips a run the bot dispatched"
    _, job, context, _ = run.job("/registry")
    [step] = [s for s in job["steps"] if "skillyard bot record-verification" in s.get("run", "")]
    return True, str(env_of(step, context).get("COMMIT"))


# ---- the paths into main ----------------------------------------------------------------------------------------

def human_merge(load: Loader) -> list[str]:
    problems = []
    runs = started(load, "push", by_token=False)
    if "publish.yml" not in runs:
        return ["a person's push to main starts no publish.yml"]
    run = Run(load, "publish.yml", "push", "a-maintainer")
    if not run.runs("/registry"):
        problems.append("publish's registry job skips a person's push")
    _, job, context, _ = run.job("/registry")
    [step] = [s for s in job["steps"] if "skillyard bot record-verification" in s.get("run", "")]
    if env_of(step, context).get("COMMIT") != "HEAD-SHA":
        problems.append("record-verification is not given the pushed commit")
    return problems


def automerge(load: Loader, event: str) -> list[str]:
    """A merge by `skillyard bot automerge` in the run `event` starts: published, with the merge commit?"""
    if "automerge.yml" not in started(load, event, by_token=False):
        return [f"automerge.yml does not run on {event}"]
    run = Run(load, "automerge.yml", event, "a-maintainer")
    job_id, job, context, _ = run.job("/automerge")
    if not run.runs("/automerge"):
        return [f"the automerge job skips {event}"]
    merges = [(i, s) for i, s in enumerate(job["steps"]) if "skillyard bot automerge" in s.get("run", "")
              and "--dry-run" not in s["run"] and evaluate(s.get("if"), context)]
    if not merges:
        return [f"no step merges on {event}"]
    problems = []
    for index, step in merges:
        by_token = env_of(step, context).get("GITHUB_TOKEN") == TOKEN_REF
        if "publish.yml" in started(load, "push", by_token=by_token):
            continue  # (a merge made with another token would start the push run itself)
        targets = dispatches_after(load, run, "/automerge", index)
        if not any(w == "publish.yml" for w, _ in targets):
            problems.append(f"{event}: the merge by `{step.get('name')}` starts no push run and nothing dispatches "
                            "publish.yml")
            continue
        for _, inputs in targets:
            runs_registry, commit = publish_records(load, inputs)
            if not runs_registry:
                problems.append(f"{event}: {commit}")
            elif commit != "MERGE-SHA":
                problems.append(f"{event}: the dispatched publish records verified pins of {commit}, not the merge")
    return problems


def bot_pushes(load: Loader) -> tuple[list[str], list[str]]:
    """(jobs that `git push`, problems): each push is published by its own run or by a dispatched publish.yml."""
    pushers, problems = [], []
    for name in caller_names():
        doc = load(name)
        event = next(iter(doc["on"])) if not isinstance(doc["on"], str) else doc["on"]
        run = Run(load, name, event, BOT if name == "publish.yml" else "a-maintainer")
        for job_id, job, _, _ in run.jobs:
            for index, step in enumerate(job.get("steps", [])):
                if "git push" not in step.get("run", ""):
                    continue
                pushers.append(f"{name}:{job_id}")
                if name == "publish.yml":  # publish's own commit: a later job of this run builds from it
                    local = job_id.rpartition("/")[2]
                    builds = [j for i, j, _, _ in run.jobs if local in (j.get("needs") or []) and any(
                        f"needs.{local}.outputs" in str((s.get("with") or {}).get("ref", "")) for s in j["steps"])]
                    if not builds:
                        problems.append(f"{name}:{job_id} pushes, and no later job of the run builds that commit")
                elif not any(w == "publish.yml" for w, _ in dispatches_after(load, run, job_id, index)):
                    problems.append(f"{name}:{job_id} pushes with the Actions token (no push run starts) and "
                                    "dispatches no publish.yml")
    return pushers, problems


def all_problems(load: Loader) -> list[str]:
    pushers, pushed = bot_pushes(load)
    return [*human_merge(load), *automerge(load, "pull_request_target"), *automerge(load, "workflow_run"), *pushed]


# ---- the tests ----------------------------------------------------------------------------------------------------

def test_githubs_rule_a_token_event_starts_only_dispatches():
    assert started(tree_loader, "push", by_token=True) == []
    assert started(tree_loader, "workflow_dispatch", by_token=True) == sorted(
        name for name in caller_names() if "workflow_dispatch" in tree_loader(name)["on"])
    assert {"publish.yml", "ci.yml"} <= set(started(tree_loader, "push", by_token=False))
    assert started(tree_loader, "push", by_token=False, branch="bump/alpha") == []


def test_the_expression_reader():
    context = {"github.event_name": "push", "github.actor": BOT, "inputs.x": ""}
    assert evaluate("github.event_name != 'push' || github.actor != 'github-actions[bot]'", context) is False
    assert evaluate("${{ inputs.x || github.actor }}", context) == BOT
    assert evaluate("!cancelled() && inputs.x != ''", context) is False


def test_a_persons_push_or_merge_publishes():
    assert human_merge(tree_loader) == []


@pytest.mark.parametrize("event", ["pull_request_target", "workflow_run"])
def test_an_automerge_publishes_the_merge_commit(event):
    """`pull_request_target`: the label was added to a green PR; `workflow_run`: the last check of a PR (a bump
    PR among them: its automerge comes this way) finished."""
    assert automerge(tree_loader, event) == []


def test_every_bot_push_into_main_is_published():
    pushers, problems = bot_pushes(tree_loader)
    # A new job that pushes must be classified here (published by its own run, or dispatching publish).
    assert sorted(pushers) == ["external-verify.yml:verify/record", "publish.yml:publish/registry"]
    assert problems == []


def test_the_model_finds_the_unpublished_paths_before_this_change():
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{BEFORE}^{{commit}}"],
                      capture_output=True).returncode != 0:
        pytest.skip(f"needs this repository's history (commit {BEFORE})")
    problems = all_problems(commit_loader(BEFORE))
    assert any(p.startswith("pull_request_target: the merge") for p in problems), problems
    assert any(p.startswith("workflow_run: the merge") for p in problems), problems
    assert any(p.startswith("external-verify.yml:verify/record pushes") for p in problems), problems
    assert all_problems(tree_loader) == []


@pytest.mark.parametrize("outcome, dispatched", [
    ('{"ok": true, "merged": true, "merge_commit": "' + "ab" * 20 + '"}', True),
    ('{"ok": true, "merged": false, "merge_commit": null}', False),
    ('{"ok": true, "merged": true, "merge_commit": "main; rm -rf /"}', False),   # never a non-SHA
    ("not json", False),
])
def test_the_dispatch_step_starts_publish_only_after_a_merge(tmp_path, outcome, dispatched):
    """The step's own script, run by bash with a stand-in `gh` that records its arguments."""
    import os
    import sys

    job = tree_loader("reusable-automerge.yml")["jobs"]["automerge"]
    [step] = [s for s in job["steps"] if "gh workflow run" in s.get("run", "")]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "gh").write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/gh-args"\n', encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    (tmp_path / "automerge.json").write_text(outcome, encoding="utf-8")
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "RUNNER_TEMP": str(tmp_path), "GH_TOKEN": "t",
           "REPOSITORY": "acme/reg", "PUBLISH_WORKFLOW": "publish.yml", "HOME": str(tmp_path)}
    result = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    args = (tmp_path / "gh-args").read_text().split() if (tmp_path / "gh-args").exists() else None
    if dispatched:
        assert args == ["workflow", "run", "publish.yml", "--repo", "acme/reg", "-f", f"merged-commit={'ab' * 20}"]
    else:
        assert args is None and "nothing to publish" in result.stdout


def test_the_record_step_takes_only_a_commit_on_the_branch(tmp_path):
    """publish's record-verification step, run by bash in a real repository with a stand-in `skillyard`: the
    merge commit a dispatch names must be a full SHA that the checked-out branch contains."""
    import os

    job = tree_loader("reusable-publish.yml")["jobs"]["registry"]
    [step] = [s for s in job["steps"] if "skillyard bot record-verification" in s.get("run", "")]
    repo, bin_dir = tmp_path / "repo", tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "skillyard").write_text(f'#!/bin/sh\necho "$@" > "{tmp_path}/args"\n', encoding="utf-8")
    (bin_dir / "skillyard").chmod(0o755)
    ident = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@x.invalid", "HOME": str(tmp_path)}
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", **ident}

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    repo.mkdir()
    git("init", "-q", "-b", "main")
    git("commit", "-q", "--allow-empty", "-m", "merge")
    merge = git("rev-parse", "HEAD")
    git("commit", "-q", "--allow-empty", "-m", "later")
    git("checkout", "-q", "-b", "other", "HEAD~1")
    git("commit", "-q", "--allow-empty", "-m", "elsewhere")
    elsewhere = git("rev-parse", "HEAD")
    git("checkout", "-q", "main")

    def record(commit: str) -> subprocess.CompletedProcess:
        (tmp_path / "args").unlink(missing_ok=True)
        step_env = {**env, "COMMIT": commit, "REPOSITORY": "acme/reg", "SKILLS_DIR": "skills", "GITHUB_TOKEN": "t"}
        return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=step_env, capture_output=True,
                              text=True, timeout=60)

    done = record(merge)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "args").read_text().split() == ["bot", "record-verification", "--repo", "acme/reg",
                                                       "--commit", merge, "--skills-dir", "skills", "--all"]
    for bad in (elsewhere, "main", merge[:12], "0" * 40):
        refused = record(bad)
        assert refused.returncode == 1 and "::error::The merged-commit input" in refused.stdout, bad
        assert not (tmp_path / "args").exists()


def test_the_record_step_commits_every_pointer_it_rewrote_nested_ones_too(tmp_path):
    """publish's record step, run by bash with a stand-in `skillyard` that rewrites two pointers (one in a nested
    folder, which the build publishes too): both go into the one bot commit, so the build sees a clean tree."""
    import os

    job = tree_loader("reusable-publish.yml")["jobs"]["registry"]
    [step] = [s for s in job["steps"] if "skillyard bot record-verification" in s.get("run", "")]
    repo, bin_dir = tmp_path / "repo", tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "skillyard").write_text("#!/bin/sh\necho 'verification: {verified: false}' >> skills/a/source.yaml\n"
                                       "echo 'verification: {verified: false}' >> skills/g/b/source.yaml\n",
                                       encoding="utf-8")
    (bin_dir / "skillyard").chmod(0o755)
    ident = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.invalid", "GIT_COMMITTER_NAME": "t",
             "GIT_COMMITTER_EMAIL": "t@x.invalid", "HOME": str(tmp_path)}
    env = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", **ident}

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True,
                              text=True).stdout.strip()

    repo.mkdir()
    git("init", "-q", "-b", "main")
    for path in ("skills/a/source.yaml", "skills/g/b/source.yaml"):
        (repo / path).parent.mkdir(parents=True)
        (repo / path).write_text("name: x\n", encoding="utf-8")
    git("add", "-A")
    git("commit", "-q", "-m", "merge")
    step_env = {**env, "COMMIT": git("rev-parse", "HEAD"), "REPOSITORY": "acme/reg", "SKILLS_DIR": "skills",
                "GITHUB_TOKEN": "t"}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=repo, env=step_env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert git("status", "--porcelain") == ""
    assert git("log", "-1", "--format=%s") == "registry: record verified pins [skip ci]"
    assert git("show", "--name-only", "--format=", "HEAD").split() == ["skills/a/source.yaml",
                                                                       "skills/g/b/source.yaml"]


def test_every_verified_pin_is_re_proved_before_anything_is_built():
    """The registry job re-proves every verified pin (`--all`) before validate and build, and the site job builds
    only the commit that job pushed: a publish run never builds a block it did not prove."""
    workflow = tree_loader("reusable-publish.yml")
    steps = workflow["jobs"]["registry"]["steps"]
    runs = [" ".join(s.get("run", "").split()) for s in steps]
    [proof] = [i for i, run in enumerate(runs) if "skillyard bot record-verification" in run]
    assert "--all" in runs[proof].split()
    built = [i for i, run in enumerate(runs) if "skillyard build" in run or "skillyard validate" in run]
    assert built and min(built) > proof
    assert workflow["jobs"]["site"]["needs"] == "registry"
    assert workflow["jobs"]["site"]["steps"][0]["with"]["ref"] == "${{ needs.registry.outputs.sha }}"
