"""The harness must see a broken workflow: the same scenarios, with one thing broken on purpose in the throwaway
clone's workflow files, fail where GitHub would."""

from __future__ import annotations

import pytest
from tests.workflows_act.test_validate import NEW_SKILL

# A scenario runs act once or twice (pip, npm-built actions); the suite's 300 s default is too tight on a busy
# 2-core machine.
pytestmark = pytest.mark.timeout(900)


def test_a_renamed_artifact_breaks_the_bot_run_that_downloads_it(sandbox):
    # The edit is in the clone's working tree; act()'s checkouts keep it (the PR does not touch that file).
    head = sandbox.commit_files("add-greeting-card", NEW_SKILL, "Add greeting-card")
    event = sandbox.open_pull("add-greeting-card", head)
    sandbox.git("checkout", "-q", "--detach", head)
    sandbox.break_workflow("reusable-validate.yml", "name: validate-report\n", "name: validate-reports\n")
    validate = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    assert validate.returncode == 0, validate.log[-4000:]
    (zipped,) = sandbox.artifacts.rglob("*.zip")
    assert zipped.parent.name == "validate-reports"
    sandbox.repo.runs[7001] = {"event": "pull_request", "head_sha": head, "pull_requests": [event["number"]]}
    sandbox.repo.artifacts[70010] = {"run": 7001, "name": "validate-reports", "data": zipped.read_bytes()}
    sandbox.repo.contents[("main", "registry.json")] = (sandbox.work / "registry.json").read_bytes()
    payload = {"action": "completed", "workflow": {"name": "validate"}, "repository": sandbox._repository_json(),
               "workflow_run": {"id": 7001, "name": "validate", "event": "pull_request", "conclusion": "success",
                                "head_sha": head, "head_branch": "add-greeting-card",
                                "pull_requests": [{"number": event["number"]}]}}
    result = sandbox.act("workflow_run", "pr-bot.yml", payload, checkout="main")
    assert result.returncode != 0
    assert result.step("Download the report artifact").outcome == "failure"
    assert not sandbox.standin.writes()   # no comment, no label


def test_a_failing_step_fails_the_validate_scenario(sandbox):
    head = sandbox.commit_files("add-greeting-card", NEW_SKILL, "Add greeting-card")
    event = sandbox.open_pull("add-greeting-card", head)
    sandbox.break_workflow("reusable-validate.yml", 'echo "files in skill folders: $skills; elsewhere: $others"\n',
                           'echo "files in skill folders: $skills; elsewhere: $others"; exit 3\n')
    result = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    assert result.returncode != 0
    assert result.step("Check the PR's scope").outcome == "failure"
    assert not list(sandbox.artifacts.rglob("*.zip"))   # the report is never uploaded


def test_a_permission_taken_from_the_bot_job_fails_its_run_at_the_stand_in(sandbox):
    """pr-bot.yml without `actions: read`: the stand-in refuses the job's token the artifact listing (403), as
    GitHub does, so the download step fails and nothing is posted."""
    head = sandbox.commit_files("add-greeting-card", NEW_SKILL, "Add greeting-card")
    event = sandbox.open_pull("add-greeting-card", head)
    validate = sandbox.act("pull_request", "validate.yml", event, checkout=head)
    assert validate.returncode == 0, validate.log[-4000:]
    run_event = sandbox.record_validate_run(event, "success")
    sandbox.git("checkout", "-q", "-B", "main", "origin/main")
    sandbox.break_workflow("pr-bot.yml", "      actions: read         # download", "      # download")
    result = sandbox.act("workflow_run", "pr-bot.yml", run_event, checkout="main")
    assert result.returncode != 0
    assert result.step("Download the report artifact").outcome == "failure"
    assert any("/actions/runs/7001/artifacts" in r.path for r in sandbox.standin.refused), sandbox.standin.refused
    assert not sandbox.standin.writes()


def test_a_wrong_job_output_name_publishes_a_site_without_the_merged_skill(sandbox):
    """reusable-publish.yml's registry job names its output `steps.commit.outputs.sha`; misspelt, the site job
    checks out the run's own commit instead of the rebuilt one, and the published site lacks the new skill that
    only the rebuilt registry.json lists. The same check as the publish scenario's then fails."""
    from tests.workflows_act.test_automerge_publish import site_members

    before = sandbox.origin_head()
    sandbox.commit_files("main", NEW_SKILL, "Add greeting-card (merged by hand, before this scenario)", push=False)
    sandbox.git("push", "-q", "origin", "main:main")
    sandbox.standin_sync_main()
    assert sandbox.origin_head() != before
    sandbox.break_workflow("reusable-publish.yml", "sha: ${{ steps.commit.outputs.sha }}",
                           "sha: ${{ steps.commit.outputs.commit }}")
    chain = sandbox.emit(sandbox.dispatch_event("publish.yml", {"merged-commit": ""}))
    publish = chain.run("publish.yml")
    assert publish.conclusion == "success", publish.result.log[-4000:]
    assert "greeting-card" in sandbox.origin_file("registry.json").decode()   # the registry job did its part
    assert not any("greeting-card" in m for m in site_members(sandbox, publish))


def test_contents_write_taken_from_publish_makes_its_push_fail_at_the_git_endpoint(sandbox):
    """publish.yml granting `contents: read` where it grants `contents: write`: the registry job rebuilds
    registry.json and commits, but its `git push` with the job's token is refused by the origin's git endpoint
    (403, GitHub's "Permission to ... denied"), so the run fails and main does not move."""
    sandbox.commit_files("main", NEW_SKILL, "Add greeting-card (merged by hand, before this scenario)", push=False)
    sandbox.git("push", "-q", "origin", "main:main")
    sandbox.standin_sync_main()
    before = sandbox.origin_head()
    sandbox.break_workflow("publish.yml", "      contents: write       # the registry job pushes",
                           "      contents: read        # the registry job pushes")
    chain = sandbox.emit(sandbox.dispatch_event("publish.yml", {"merged-commit": ""}))
    publish = chain.run("publish.yml")
    assert publish.conclusion == "failure"
    assert publish.result.step("Commit them if they changed").outcome == "failure", publish.result.log[-4000:]
    assert publish.result.step("Rebuild registry.json").outcome == "success"
    assert "Permission to skillyard/skillyard.git denied to github-actions[bot]" in publish.result.log
    assert "The requested URL returned error: 403" in publish.result.log
    assert [r["service"] for r in sandbox.git_http.refused] == ["git-receive-pack"], sandbox.git_http.refused
    assert sandbox.git_http.refused[0]["contents"] == "read"
    assert sandbox.origin_head() == before


def test_a_read_permission_taken_from_validate_fails_its_checkout_at_the_git_endpoint(sandbox):
    """validate.yml's job granted no `contents: read`: actions/checkout fetches the PR's head with the job's token,
    and the origin refuses that token the fetch (403, as GitHub holds a job's token on a private repository), so
    the run fails at its first step and no report is uploaded."""
    head = sandbox.commit_files("add-greeting-card", NEW_SKILL, "Add greeting-card")
    event = sandbox.open_pull("add-greeting-card", head)
    sandbox.git("checkout", "-q", "--detach", head)
    sandbox.break_workflow("validate.yml", "    permissions:\n      contents: read\n    uses:",
                           "    permissions: {}\n    uses:")
    result = sandbox.act("pull_request", "validate.yml", event, checkout=None)
    assert result.returncode != 0
    checkout = [s.outcome for s in result.steps if s.name.startswith("actions/checkout@")]
    assert checkout[0] == "failure", result.log[-4000:]   # the main step (its post step cleans up)
    assert "The requested URL returned error: 403" in result.log
    assert sandbox.git_http.refused and {r["service"] for r in sandbox.git_http.refused} == {"git-upload-pack"}
    assert all(r["contents"] == "none" for r in sandbox.git_http.refused), sandbox.git_http.refused
    assert not list(sandbox.artifacts.rglob("*.zip"))


def test_the_seeded_wheel_lands_where_pip_looks_for_the_commits_url(tmp_path):
    """RunnerPython's wheel seeding (no act): the cache folder it computes for a `git+<server>/<repo>@<sha>` URL is
    the one pip's own WheelCache gives, and a wheel kept for one commit is put there for another commit with the
    same package files only."""
    import subprocess
    import sys

    from tests.support.gitserver import GIT_ENV, git
    from tests.workflows_act.harness import RunnerPython

    url = "git+https://github.localhost:4443/skillyard/skillyard@" + "ab" * 20
    pips = subprocess.run([sys.executable, "-c", "import sys; from pip._internal.cache import SimpleWheelCache; "
                           "from pip._internal.models.link import Link; "
                           "print(SimpleWheelCache(sys.argv[1]).get_path_for_link(Link(sys.argv[2])))",
                           str(tmp_path), url], capture_output=True, text=True, check=True).stdout.strip()
    assert str(RunnerPython.wheel_cache_dir(tmp_path, url)) == pips

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=GIT_ENV)
    commits = []
    for files in ({"pyproject.toml": "a", "tools/x.py": "1", "skills/a.md": "x"},
                  {"pyproject.toml": "a", "tools/x.py": "1", "skills/a.md": "y"},     # a skill changed: same wheel
                  {"pyproject.toml": "a", "tools/x.py": "2", "skills/a.md": "y"}):    # the code changed: rebuilt
        for name, text in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        git(repo, "add", "-A")
        git(repo, "-c", "user.name=x", "-c", "user.email=x@example.invalid", "commit", "-q", "-m", "c")
        commits.append(git(repo, "rev-parse", "HEAD").decode().strip())
    runner = RunnerPython.__new__(RunnerPython)
    runner.pip_cache = tmp_path / "pip"
    server = "git+https://github.localhost:4443/skillyard/skillyard@"
    entry, kept = runner.before_run(repo, server + commits[0], commits[0])
    assert not any(entry.glob("*.whl"))                 # nothing built yet: pip builds it in the job
    entry.mkdir(parents=True)
    (entry / "skillyard-0.1.0-py3-none-any.whl").write_bytes(b"built by pip")
    runner.after_run(entry, kept)
    second, _ = runner.before_run(repo, server + commits[1], commits[1])
    assert (second / "skillyard-0.1.0-py3-none-any.whl").read_bytes() == b"built by pip"
    third, _ = runner.before_run(repo, server + commits[2], commits[2])
    assert not third.exists() or not any(third.glob("*.whl"))


def test_a_seed_that_cannot_be_placed_leaves_the_build_to_pip(tmp_path):
    """Seeding pip's cache is a shortcut: where the copy cannot land, nothing half-written is left and no error
    stops the run (pip then builds the wheel in the job)."""
    from tests.workflows_act.harness import RunnerPython

    runner = RunnerPython.__new__(RunnerPython)
    runner.pip_cache = tmp_path / "pip"
    wheel = tmp_path / "skillyard-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"wheel")
    blocked = tmp_path / "entry"
    blocked.write_text("a file where the folder should be")
    runner._place(wheel, blocked)
    assert blocked.read_text() == "a file where the folder should be"
    assert not any((runner.pip_cache / "skillyard-staging").iterdir())
    runner._place(wheel, tmp_path / "free")
    assert (tmp_path / "free" / wheel.name).read_bytes() == b"wheel"


# Two jobs of one run, side by side (no `needs`), with different permissions. Each waits until the other has
# started before it calls the API and until the other has called before it ends, so both run while either calls.
CALL = """
      - name: Post a status while the {other} runs
        env: {{TOKEN: "${{{{ github.token }}}}", ME: {me}, OTHER: {other}}}
        run: |
          touch "$BARRIER/$ME"
          for _ in $(seq 900); do [ -e "$BARRIER/$OTHER" ] && break; sleep 0.1; done
          [ -e "$BARRIER/$OTHER" ] && echo "$ME: $OTHER is running"
          code=$(curl -s -o /dev/null -w '%{{http_code}}' -X POST -H "Authorization: token $TOKEN" \\
            -d "{{\\"state\\": \\"success\\", \\"context\\": \\"$ME\\"}}" \\
            "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/statuses/$GITHUB_SHA")
          echo "$ME: POST statuses answered $code"
          touch "$BARRIER/$ME-called"
          for _ in $(seq 900); do [ -e "$BARRIER/$OTHER-called" ] && break; sleep 0.1; done
"""
TWO_TOKENS = f"""name: two tokens
on: workflow_dispatch
permissions: {{}}
jobs:
  writer:
    runs-on: ubuntu-latest
    permissions:
      statuses: write
    steps:{CALL.format(me="writer", other="reader")}
  reader:
    runs-on: ubuntu-latest
    permissions:
      statuses: read
    steps:{CALL.format(me="reader", other="writer")}"""


def test_two_jobs_running_at_once_with_different_permissions_each_get_their_own(sandbox, tmp_path):
    """act gives every job of a run one token; the stand-in still answers each job with its own permissions
    (GitHub gives each job its own token): the writer's status is accepted, the reader's refused (403)."""
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    (sandbox.work / ".github" / "workflows" / "two-tokens.yml").write_text(TWO_TOKENS)
    sandbox.env["BARRIER"] = str(barrier)
    payload = {"inputs": {}, "ref": "refs/heads/main", "repository": sandbox._repository_json(),
               "sender": {"login": "maintainer"}}
    result = sandbox.act("workflow_dispatch", "two-tokens.yml", payload)
    assert "writer: reader is running" in result.log and "reader: writer is running" in result.log, result.log[-4000:]
    assert "writer: POST statuses answered 201" in result.log, result.log[-4000:]
    assert "reader: POST statuses answered 403" in result.log, result.log[-4000:]
    statuses = [s["context"] for entries in sandbox.repo.statuses.values() for s in entries]
    assert statuses == ["writer"]
    assert [r.path.rsplit("/", 2)[1] for r in sandbox.standin.refused] == ["statuses"]
