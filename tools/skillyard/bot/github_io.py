"""The PR bot's GitHub side: gather facts with PyGithub, hand them to `decide`/`render`, apply the result.

PyGithub is imported here only, and this module is imported only by `skillyard bot` at run time.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import os
import urllib.parse
from dataclasses import dataclass

from skillyard.bot import decide
from skillyard.bot.artifact import ArtifactError, check_against_pr, load_report
from skillyard.bot.render import MARKER, render_comment
from skillyard.errors import SkillyardError

DEFAULT_API_URL = "https://api.github.com"
ACTIONS_BOT_LOGIN = "github-actions[bot]"


def token_from_env(name: str = "GITHUB_TOKEN") -> str:
    token = os.environ.get(name, "").strip()
    if not token:
        raise SkillyardError(f"no GitHub token: ${name} is empty",
                             f"Export {name} (in Actions: `env: {name}: ${{{{ secrets.GITHUB_TOKEN }}}}`).")
    return token


def is_loopback(api_url: str) -> bool:
    host = urllib.parse.urlsplit(api_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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


def resolve_pull(repo, pr_number: int | None, head_sha: str | None):
    """The PR, re-read from the API. With both a number and a head SHA they must agree; with only the SHA
    the open PR whose head it is."""
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
        raise SkillyardError("say which PR: --pr N and/or --head-sha SHA", "Pass --pr or --head-sha.")
    for pr in repo.get_pulls(state="open"):
        if pr.head.sha == head_sha:
            return pr
    raise ArtifactError(f"no open PR has head commit {head_sha[:12]}")


def pull_files(pr) -> list[tuple[str, str]]:
    return [(f.filename, f.status) for f in pr.get_files()]


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


def upsert_comment(pr, body: str, login: str) -> str:
    """One sticky comment per PR: created once, edited in place when its text changes, duplicates removed.

    Returns "created", "edited" or "unchanged".
    """
    mine = [c for c in pr.get_issue_comments()
            if c.user is not None and c.user.login.lower() == login.lower() and MARKER in (c.body or "")]
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
                "outside": list(self.changes.outside)}


def run_report(gh, repo_slug: str, artifact: str, *, pr_number: int | None = None, head_sha: str | None = None,
               registry: dict | None = None, max_bytes: int | None = None, login: str | None = None) -> ReportOutcome:
    """Check the artifact (before any network call), re-read the PR, then post the comment and the labels."""
    kwargs = {"max_bytes": max_bytes} if max_bytes else {}
    report = load_report(artifact, **kwargs)
    repo = gh.get_repo(repo_slug)
    pr = resolve_pull(repo, pr_number, head_sha)
    files = pull_files(pr)
    if registry is None:
        registry = load_registry(repo, pr.base.ref)
    changes = decide.classify_changes(files, registry)
    check_against_pr(report, [path for path, _ in files], changes.folders)
    owners = decide.owners_from_registry(registry)
    author = pr.user.login
    labels = decide.labels_for(changes, report, owners, author)
    body = render_comment(report, changes=changes, labels=labels,
                          needs_owner=decide.unowned_folders(changes, owners, author))
    action = upsert_comment(pr, body, bot_login(gh, login))
    added, removed = sync_labels(pr, labels)
    return ReportOutcome(pr.number, action, sorted(labels), added, removed, changes)


def automerge_facts(repo, pr, registry: dict) -> decide.AutomergeFacts:
    head_sha = pr.head.sha
    commit = repo.get_commit(head_sha)
    committed = commit.commit.committer.date if commit.commit.committer else None
    label_added_at = None
    for event in pr.get_issue_events():
        if event.event == "labeled" and event.label is not None and event.label.name == decide.LABEL_AUTOMERGE:
            label_added_at = event.created_at
    checks = tuple(decide.Check(run.name, run.status, run.conclusion) for run in commit.get_check_runs())
    combined = commit.get_combined_status()
    reviews = tuple(decide.Review(r.state, r.commit_id, r.submitted_at) for r in pr.get_reviews())
    return decide.AutomergeFacts(
        author=pr.user.login, head_sha=head_sha, head_committed_at=committed,
        changes=decide.classify_changes(pull_files(pr), registry), owners=decide.owners_from_registry(registry),
        labels=frozenset(label.name for label in pr.get_labels()), label_added_at=label_added_at, checks=checks,
        status_state=combined.state, status_count=combined.total_count, reviews=reviews,
        state="merged" if pr.merged else pr.state)


def run_automerge(gh, repo_slug: str, pr_number: int | None, *, head_sha: str | None = None,
                  registry: dict | None = None, method: str = "squash", dry_run: bool = False) -> dict:
    repo = gh.get_repo(repo_slug)
    pr = resolve_pull(repo, pr_number, head_sha)
    if registry is None:
        registry = load_registry(repo, pr.base.ref)
    facts = automerge_facts(repo, pr, registry)
    decision = decide.automerge_decision(facts)
    outcome = {"pr": pr.number, "merge": decision.merge, "reasons": list(decision.reasons),
               "label_removed": False, "merged": False, "dry_run": dry_run}
    if dry_run:
        return outcome
    if decision.remove_label:
        pr.remove_from_labels(decide.LABEL_AUTOMERGE)
        outcome["label_removed"] = True
    if decision.merge:
        # `sha` makes GitHub refuse the merge if a commit lands between our check and the merge.
        status = pr.merge(merge_method=method, sha=facts.head_sha)
        outcome["merged"] = bool(status.merged)
    return outcome
