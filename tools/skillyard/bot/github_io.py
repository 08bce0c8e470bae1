"""The PR bot's GitHub side: gather facts with PyGithub, hand them to `decide`/`render`, apply the result.

PyGithub is imported here only, and this module is imported only by `skillyard bot` at run time.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
from dataclasses import dataclass

from skillyard.bot import decide
from skillyard.bot.artifact import (
    ArtifactError,
    check_against_pr,
    load_report,
)
from skillyard.bot.render import AUTOMERGE_MARKER, MARKER, render_automerge_comment, render_comment
from skillyard.bot.report_fetch import (  # noqa: F401 - part of this module's interface
    MAX_ARTIFACTS,
    MAX_RUNS,
    is_loopback,
    run_report_artifact,
    validate_run,
    zip_fetcher,
)
from skillyard.errors import SkillyardError

DEFAULT_API_URL = "https://api.github.com"
ACTIONS_BOT_LOGIN = "github-actions[bot]"
MAX_OPEN_PULLS = 1000     # open PRs scanned for a head SHA
MAX_REVIEWERS = 50        # distinct reviewers whose permission is looked up
MAX_MANIFESTS = 20        # changed skill.yaml files whose `security_exceptions` are compared


def token_from_env(name: str = "GITHUB_TOKEN") -> str:
    token = os.environ.get(name, "").strip()
    if not token:
        raise SkillyardError(f"no GitHub token: ${name} is empty",
                             f"Export {name} (in Actions: `env: {name}: ${{{{ secrets.GITHUB_TOKEN }}}}`).")
    return token


def connect(token: str, api_url: str | None = None):
    """A PyGithub client. Against a loopback stand-in (tests) there is no throttling and no retry/backoff."""
    from github import Auth, Github

    api_url = (api_url or DEFAULT_API_URL).rstrip("/")
    if is_loopback(api_url):
        return Github(auth=Auth.Token(token), base_url=api_url, retry=None, timeout=10,
                      seconds_between_requests=None, seconds_between_writes=None)
    return Github(auth=Auth.Token(token), base_url=api_url, timeout=30)


def github_errors():
    from github import GithubException

    return GithubException


def bot_login(gh, override: str | None = None) -> str:
    """Whose comments are the bot's: `--bot-login`, else the token's user, else the Actions bot (whose
    installation token may not read /user)."""
    if override:
        return override
    try:
        return gh.get_user().login
    except github_errors():
        return ACTIONS_BOT_LOGIN


class AmbiguousPull(SkillyardError):
    """The facts name no open PR, or more than one: the bot acts on none of them."""

    def __init__(self, message: str):
        super().__init__(f"cannot tell which PR to act on: {message}",
                         "Nothing was posted, labelled or merged. Pass --pr N, or close the duplicate PR.")


def _open_with_head(repo, head_sha: str, head_repo: str | None = None, head_ref: str | None = None) -> list:
    """Open PRs whose head is `head_sha` (and, when given, comes from `head_repo`'s branch `head_ref`)."""
    kwargs = {"state": "open"}
    if head_repo and head_ref:
        kwargs["head"] = f"{head_repo.split('/')[0]}:{head_ref}"
    found = []
    for pr in itertools.islice(repo.get_pulls(**kwargs), MAX_OPEN_PULLS):
        if pr.head.sha != head_sha:
            continue
        if head_repo and (pr.head.repo is None or pr.head.repo.full_name.lower() != head_repo.lower()):
            continue
        if head_ref and pr.head.ref != head_ref:
            continue
        found.append(pr)
    return found


def _one(found: list, what: str):
    if len(found) == 1:
        return found[0]
    if not found:
        raise AmbiguousPull(f"no open PR matches {what}")
    numbers = ", ".join(f"#{pr.number}" for pr in found[:10])
    raise AmbiguousPull(f"{len(found)} open PRs match {what} ({numbers}); refusing to guess which one was checked")


def pull_from_run(repo, run_id: int):
    """The PR a workflow run checked, from the run as the API describes it (never from the event's strings).

    The run's own `pull_requests` list names it for PRs from this repository; for a fork it is empty, and the
    PR is the one open PR whose head repository, branch and SHA are the run's. Anything else is ambiguous.
    """
    try:
        run = repo.get_workflow_run(run_id)
        head_sha, event = run.head_sha, run.event
    except github_errors() as exc:
        raise SkillyardError(f"cannot read workflow run {run_id} of {repo.full_name}: {exc.status}",
                             "Check --run-id and that the token may read actions.") from None
    if event not in ("pull_request", "pull_request_target"):
        raise AmbiguousPull(f"workflow run {run_id} was started by a {event!r} event, not by a pull request")
    head_repo = run.head_repository.full_name if run.head_repository is not None else None
    what = f"workflow run {run_id} (head {head_sha[:12]} on {head_repo}:{run.head_branch})"
    listed = [pr.number for pr in run.pull_requests or []]
    if listed:
        found = []
        for number in sorted(set(listed)):
            pr = repo.get_pull(number)
            if pr.state == "open" and pr.head.sha == head_sha and pr.base.repo.full_name == repo.full_name:
                found.append(pr)
        return _one(found, what)
    if not head_repo or not run.head_branch:
        raise AmbiguousPull(f"{what} names no head repository or branch")
    return _one(_open_with_head(repo, head_sha, head_repo, run.head_branch), what)


def resolve_pull(repo, pr_number: int | None, head_sha: str | None, run_id: int | None = None):
    """The PR, re-read from the API. With a run id, the run's PR (and a number or SHA given too must agree);
    with a number and a SHA they must agree; with only a SHA the one open PR whose head it is (two PRs can share
    a head SHA: then nothing is done)."""
    if run_id is not None:
        pr = pull_from_run(repo, run_id)
        if pr_number is not None and pr.number != pr_number:
            raise AmbiguousPull(f"workflow run {run_id} checked PR #{pr.number}, not #{pr_number}")
        if head_sha and pr.head.sha != head_sha:
            raise ArtifactError(f"PR #{pr.number}'s head is {pr.head.sha[:12]}, but the validated commit is "
                                f"{head_sha[:12]}")
        return pr
    if pr_number is not None:
        try:
            pr = repo.get_pull(pr_number)
            sha = pr.head.sha
        except github_errors() as exc:
            raise SkillyardError(f"cannot read PR #{pr_number} of {repo.full_name}: {exc.status}",
                                 "Check --repo, --pr and the token's permissions.") from None
        if head_sha and sha != head_sha:
            raise ArtifactError(f"PR #{pr_number}'s head is {sha[:12]}, but the validated commit is {head_sha[:12]}")
        return pr
    if not head_sha:
        raise SkillyardError("say which PR: --run-id, --pr N and/or --head-sha SHA", "Pass --run-id or --pr.")
    return _one(_open_with_head(repo, head_sha), f"head commit {head_sha[:12]}")


def pull_files(pr) -> list[decide.PrFile]:
    """The PR's files as the API lists them (at most its 3,000 plus one, to notice a truncated list)."""
    return [decide.PrFile(f.filename, f.status, f.previous_filename)
            for f in itertools.islice(pr.get_files(), decide.FILES_API_LIMIT + 1)]


def classify_pull(pr, registry: dict, skills_dir: str = decide.SKILLS_DIR
                  ) -> tuple[list[decide.PrFile], decide.Changes]:
    files = pull_files(pr)
    return files, decide.classify_changes(files, registry, skills_dir, total=pr.changed_files)


def load_registry(repo, ref: str, path: str = "registry.json") -> dict:
    """registry.json on `ref` (the PR's base branch); an empty registry when there is none yet."""
    from github import UnknownObjectException

    try:
        content = repo.get_contents(path, ref=ref)
    except UnknownObjectException:
        return {"skills": []}
    if isinstance(content, list):
        raise SkillyardError(f"{path} on {ref} is a folder", "Point --registry-path at the compiled registry.json.")
    raw = content.decoded_content if content.content else base64.b64decode(repo.get_git_blob(content.sha).content)
    try:
        doc = json.loads(raw)
    except ValueError:
        raise SkillyardError(f"{path} on {ref} is not valid JSON", "Rebuild it with `skillyard build`.") from None
    return doc if isinstance(doc, dict) else {"skills": []}


def read_registry_file(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:
        raise SkillyardError(f"cannot read the registry {path}: {exc}", "Pass a registry.json built by `skillyard build`.") from None


def upsert_comment(pr, body: str, login: str, marker: str = MARKER) -> str:
    """One sticky comment per PR and marker: created once, edited in place when its text changes, duplicates
    removed. Only the bot's own comments count: anyone can paste the marker.

    Returns "created", "edited" or "unchanged".
    """
    mine = [c for c in pr.get_issue_comments()
            if c.user is not None and c.user.login.lower() == login.lower() and (c.body or "").startswith(marker)]
    if not mine:
        pr.create_issue_comment(body)
        return "created"
    keep, extras = mine[0], mine[1:]
    for extra in extras:
        extra.delete()
    if keep.body == body:
        return "unchanged"
    keep.edit(body)
    return "edited"


def sync_labels(pr, wanted: set[str]) -> tuple[list[str], list[str]]:
    current = {label.name for label in pr.get_labels()}
    add, remove = decide.label_delta(current, wanted)
    if add:
        pr.add_to_labels(*add)
    for name in remove:
        pr.remove_from_labels(name)
    return add, remove


@dataclass
class ReportOutcome:
    pr: int
    comment: str
    labels: list[str]
    added: list[str]
    removed: list[str]
    changes: decide.Changes

    def to_dict(self) -> dict:
        return {"pr": self.pr, "comment": self.comment, "labels": self.labels, "added": self.added,
                "removed": self.removed,
                "skills": [{"folder": c.folder, "kind": c.kind} for c in self.changes.skills],
                "outside": list(self.changes.outside), "problems": list(self.changes.problems)}


def run_report(gh, repo_slug: str, artifact: str, *, pr_number: int | None = None, head_sha: str | None = None,
               run_id: int | None = None, registry: dict | None = None, max_bytes: int | None = None,
               login: str | None = None, skills_dir: str = decide.SKILLS_DIR) -> ReportOutcome:
    """Check the artifact (before any network call), re-read the PR, then post the comment and the labels."""
    kwargs = {"max_bytes": max_bytes} if max_bytes else {}
    report = load_report(artifact, **kwargs)
    repo = gh.get_repo(repo_slug)
    pr = resolve_pull(repo, pr_number, head_sha, run_id)
    if registry is None:
        registry = load_registry(repo, repo.default_branch)
    files, changes = classify_pull(pr, registry, skills_dir)
    check_against_pr(report, [path for path, _ in decide.touched_paths(files)], changes.folders)
    if "commit" in report and report["commit"] != pr.head.sha:
        raise ArtifactError(f"it records commit {report['commit'][:12]}, but PR #{pr.number}'s head is "
                            f"{pr.head.sha[:12]}")
    owners = decide.owners_from_registry(registry)
    author = pr.user.login
    changed, problems = exceptions_changes(repo, pr, files, skills_dir)
    labels = decide.labels_for(changes, report, owners, author, exceptions_changed=changed,
                               exceptions_unknown=bool(problems),
                               verification_claimed=verification_claims(repo, pr, files, skills_dir))
    body = render_comment(report, changes=changes, labels=labels,
                          needs_owner=decide.unowned_folders(changes, owners, author))
    action = upsert_comment(pr, body, bot_login(gh, login))
    added, removed = sync_labels(pr, labels)
    return ReportOutcome(pr.number, action, sorted(labels), added, removed, changes)


def _automerge_labeller(pr) -> str | None:
    """Who last added the `automerge` label (any letter case), from the issue events API (GitHub records the
    actor)."""
    actor = None
    for event in pr.get_issue_events():
        if (event.event == "labeled" and event.label is not None
                and decide.label_key(event.label.name) == decide.label_key(decide.LABEL_AUTOMERGE)):
            actor = event.actor.login if event.actor is not None else None
    return actor


def writers_among(repo, logins) -> frozenset[str]:
    """The logins (normalised) whose repository permission is write, maintain or admin; at most the first
    `MAX_REVIEWERS` distinct ones are looked up (the rules only need the labeller's)."""
    from github import UnknownObjectException

    out = set()
    wanted = dict.fromkeys(h for h in map(decide.normalise_handle, logins) if h)
    for login in itertools.islice(wanted, MAX_REVIEWERS):
        try:
            permission = repo.get_collaborator_permission(login)
        except UnknownObjectException:
            continue
        if permission in decide.WRITE_PERMISSIONS:
            out.add(login)
    return frozenset(out)


def _manifest_exceptions(repo, path: str, ref: str) -> object:
    """The reviewed exceptions of the skill.yaml (`security_exceptions`) or pointer source.yaml
    (`registry.security_exceptions`) at `path` on `ref` (None when the file or the key is absent)."""
    from github import UnknownObjectException

    from skillyard.format import pointer
    from skillyard.format.manifest import MAX_MANIFEST_BYTES
    from skillyard.format.yamlload import DuplicateKeyError, YAMLParseError, load_with_lines

    is_pointer = path.endswith("/" + pointer.POINTER_FILE)
    limit = pointer.MAX_BYTES if is_pointer else MAX_MANIFEST_BYTES
    kind = pointer.POINTER_FILE if is_pointer else "skill.yaml"
    try:
        content = repo.get_contents(path, ref=ref)
    except UnknownObjectException:
        return None
    if isinstance(content, list) or content.size > limit or not content.content:
        raise ValueError(f"`{path}` on {ref[:12]} is not a {kind} of at most {limit:,} bytes")
    try:
        data, _ = load_with_lines(content.decoded_content.decode("utf-8"), max_bytes=limit)
    except (UnicodeDecodeError, YAMLParseError, DuplicateKeyError) as exc:
        raise ValueError(f"`{path}` on {ref[:12]} cannot be read ({str(exc)[:100]})") from None
    if not isinstance(data, dict):
        return None
    if is_pointer:
        extra = data.get("registry")
        return extra.get("security_exceptions") if isinstance(extra, dict) else None
    return data.get("security_exceptions")


def exceptions_changes(repo, pr, files: list[decide.PrFile], skills_dir: str = decide.SKILLS_DIR
                       ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(skill folders whose reviewed exceptions -- skill.yaml `security_exceptions`, or a pointer's source.yaml
    `registry.security_exceptions` -- differ between the base branch and the head, problems).

    Every skill.yaml or source.yaml the PR touches under the skills folder, at any depth (the build publishes nested
    folders too), is read at both ends through the contents API and the key compared as data.
    """
    manifests = sorted({path for path, _ in decide.touched_paths(files)
                        if decide.skill_folder_of(path, skills_dir)
                        and path.rsplit("/", 1)[-1] in ("skill.yaml", "source.yaml")})
    if len(manifests) > MAX_MANIFESTS:
        return (), (f"the PR changes {len(manifests)} skill.yaml or source.yaml files; at most {MAX_MANIFESTS} are "
                    "compared",)
    changed, problems = [], []
    for path in manifests:
        try:
            base = _manifest_exceptions(repo, path, pr.base.ref)
            head = _manifest_exceptions(repo, path, pr.head.sha)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        if json.dumps(base, sort_keys=True, default=str) != json.dumps(head, sort_keys=True, default=str):
            changed.append(path.rsplit("/", 1)[0])
    return tuple(sorted(set(changed))), tuple(problems)


def pointer_text_at(repo, path: str, ref: str) -> str | None:
    """The text of the pointer file `path` at `ref` (contents API), or None: absent, a folder, over the pointer
    size bound, or not UTF-8."""
    from github import UnknownObjectException

    from skillyard.format.pointer import MAX_BYTES

    try:
        content = repo.get_contents(path, ref=ref)
    except UnknownObjectException:
        return None
    if isinstance(content, list) or content.size > MAX_BYTES or not content.content:
        return None
    try:
        return content.decoded_content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def remote_pointer(repo, path: str | None, ref: str) -> dict | None:
    """The pointer at `path` on `ref` as data, or None when there is none (or it cannot be one)."""
    from skillyard.format.pointer import parse_pointer

    text = pointer_text_at(repo, path, ref) if path else None
    if text is None:
        return None
    pointer, _ = parse_pointer(text)
    return pointer.data if pointer is not None else None


def is_pointer_path(path: str, skills_dir: str) -> bool:
    """`<skills dir>/…/source.yaml` at any depth: the build publishes a pointer in a nested folder
    (`skills/group/name/`) as well as in `skills/name/`, so each one's block is the bot's to decide."""
    from skillyard.format.pointer import POINTER_FILE

    parts = path.split("/")
    return (len(parts) >= 3 and parts[0] == skills_dir and parts[-1] == POINTER_FILE
            and all(part not in ("", ".", "..") for part in parts))


def verification_claims(repo, pr, files: list[decide.PrFile], skills_dir: str = decide.SKILLS_DIR
                        ) -> tuple[str, ...]:
    """Skill folders whose pointer the PR marks verified itself (`bot.verification.self_verification`): each
    `source.yaml` it adds or changes at any depth (`is_pointer_path`: the build publishes nested ones), read at
    the base branch and at the head through the contents API. Past `MAX_MANIFESTS` pointers none is read and all
    count (a maintainer looks; bump PRs change one each)."""
    from skillyard.bot.verification import self_verification

    pointers = []
    for item in files:
        if item.status != "removed" and is_pointer_path(item.path, skills_dir):
            before = item.previous if item.status == "renamed" else item.path
            pointers.append((item.path.rsplit("/", 1)[0], before, item.path))
    if len(pointers) > MAX_MANIFESTS:
        return tuple(sorted({folder for folder, _, _ in pointers}))
    return tuple(sorted({folder for folder, before, path in pointers
                         if self_verification(remote_pointer(repo, before, pr.base.ref),
                                              remote_pointer(repo, path, pr.head.sha))}))


def automerge_facts(repo, pr, registry: dict, skills_dir: str = decide.SKILLS_DIR, *,
                    required_check: str = decide.DEFAULT_REQUIRED_CHECK, fetch=None,
                    api_url: str = DEFAULT_API_URL) -> decide.AutomergeFacts:
    head_sha = pr.head.sha
    commit = repo.get_commit(head_sha)
    label_actor = _automerge_labeller(pr)
    checks = tuple(decide.Check(run.name, run.status, run.conclusion, run.app.slug if run.app else None,
                                run.check_suite.id if run.check_suite else None)
                   for run in commit.get_check_runs())
    combined = commit.get_combined_status()
    reviews = tuple(decide.Review(r.state, r.commit_id or "", r.submitted_at, r.user.login if r.user else "")
                    for r in pr.get_reviews())
    files, changes = classify_pull(pr, registry, skills_dir)
    changed_exceptions, exception_problems = exceptions_changes(repo, pr, files, skills_dir)
    claimed = verification_claims(repo, pr, files, skills_dir)
    run = validate_run(repo, pr, required_check)
    report, problem = None, None
    if run is not None and run.status == "completed" and run.conclusion == "success":
        try:
            if fetch is None:
                raise ArtifactError("no artifact downloader was given (see zip_fetcher)")
            report = run_report_artifact(repo, run, fetch, api_url)
            check_against_pr(report, [path for path, _ in decide.touched_paths(files)], changes.folders)
        except ArtifactError as exc:
            report, problem = None, exc.message.removeprefix("rejected artifact: ")
    return decide.AutomergeFacts(
        author=pr.user.login, head_sha=head_sha, changes=changes, owners=decide.owners_from_registry(registry),
        labels=frozenset(label.name for label in pr.get_labels()), label_actor=label_actor,
        writers=writers_among(repo, [label_actor]), checks=checks,
        status_state=combined.state, status_count=combined.total_count, reviews=reviews,
        state="merged" if pr.merged else pr.state, base_ref=pr.base.ref, default_branch=repo.default_branch,
        skills_dir=skills_dir, required_check=required_check, validate_run=run, report=report,
        report_problem=problem, exceptions_changed=changed_exceptions, exceptions_problems=exception_problems,
        verification_claimed=claimed)


def run_automerge(gh, repo_slug: str, pr_number: int | None, *, head_sha: str | None = None,
                  run_id: int | None = None, registry: dict | None = None, method: str = "squash",
                  dry_run: bool = False, login: str | None = None, skills_dir: str = decide.SKILLS_DIR,
                  required_check: str = decide.DEFAULT_REQUIRED_CHECK, fetch=None,
                  api_url: str = DEFAULT_API_URL, bump_author: str | None = None, bump_handler=None) -> dict:
    """Decide, then (unless a dry run) withdraw the label, merge at the checked head, or say in the PR why not.
    `fetch` downloads an artifact archive (`zip_fetcher`). A bump PR (branch `bump/<name>`) goes to
    `bump_handler` (`bump_io.run_bump_automerge`, passed in so this module does not import it) instead."""
    repo = gh.get_repo(repo_slug)
    pr = resolve_pull(repo, pr_number, head_sha, run_id)
    if registry is None:
        registry = load_registry(repo, repo.default_branch)
    from skillyard.bot import bump_rules

    if bump_handler is not None and bump_rules.is_bump_branch(pr.head.ref):
        return bump_handler(gh, repo, pr, registry, skills_dir=skills_dir, method=method, dry_run=dry_run,
                            login=login, bump_author=bump_author or bump_rules.DEFAULT_BUMP_AUTHOR,
                            required_check=required_check, fetch=fetch, api_url=api_url)
    facts = automerge_facts(repo, pr, registry, skills_dir, required_check=required_check, fetch=fetch,
                            api_url=api_url)
    decision = decide.automerge_decision(facts)
    outcome = {"pr": pr.number, "merge": decision.merge, "reasons": list(decision.reasons),
               "waiting": decision.waiting, "label_removed": False, "merged": False, "comment": None,
               "dry_run": dry_run}
    if dry_run:
        return outcome
    automerge_labels = [name for name in facts.labels
                        if decide.label_key(name) == decide.label_key(decide.LABEL_AUTOMERGE)]
    if decision.remove_label:
        for name in automerge_labels:
            pr.remove_from_labels(name)
        outcome["label_removed"] = True
    if decision.merge:
        # `sha` makes GitHub refuse the merge if a commit lands between our check and the merge.
        status = pr.merge(merge_method=method, sha=facts.head_sha)
        outcome["merged"] = bool(status.merged)
        # The merge commit: the publish workflow this job then starts names it (a merge made with the
        # Actions token starts no push workflow, so the caller dispatches publish itself).
        outcome["merge_commit"] = status.sha if status.merged else None
    elif automerge_labels and facts.state == "open":
        # Someone asked for an automerge: never fail silently. Say why, and whether a later run retries.
        body = render_automerge_comment(decision.reasons, waiting=decision.waiting, head_sha=facts.head_sha)
        outcome["comment"] = upsert_comment(pr, body, bot_login(gh, login), AUTOMERGE_MARKER)
    return outcome
