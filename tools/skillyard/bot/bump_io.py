"""Bump PRs on GitHub (PyGithub): open one PR per bumped pointer, and decide their automerge by `bump_rules`.

`open_bump_prs` takes what `skillyard external bump --json` reported and the pointers it wrote in the checkout,
and for each bumped skill puts that one source.yaml on branch `bump/<name>` (a commit on the default branch's
head, made through the git data API like `skill publish`), then opens the PR with the change summary as its body,
or refreshes the branch and body of the one already open. `run_bump_automerge` gathers the facts and merges at
the checked head when every rule allows it; otherwise it says why in the sticky automerge comment.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from skillyard.bot import bump_rules, decide
from skillyard.bot.bump_render import bump_body
from skillyard.bot.github_io import automerge_facts, bot_login, pointer_text_at, pull_files, upsert_comment
from skillyard.bot.render import AUTOMERGE_MARKER, render_automerge_comment
from skillyard.errors import SkillyardError
from skillyard.format.pointer import MAX_BYTES, POINTER_FILE, parse_pointer

MAX_BUMP_PRS = 200  # PRs one run opens or refreshes; the rest wait for the next run


def bump_facts(repo, pr, registry: dict, skills_dir: str, *, bump_author: str, **generic) -> bump_rules.BumpFacts:
    facts = automerge_facts(repo, pr, registry, skills_dir, **generic)
    name = pr.head.ref[len(bump_rules.BRANCH_PREFIX):]
    path = f"{skills_dir}/{name}/{POINTER_FILE}"
    head_repo = pr.head.repo.full_name if pr.head.repo is not None else ""
    return bump_rules.BumpFacts(
        facts=facts, head_ref=pr.head.ref, head_repo=head_repo, base_repo=repo.full_name,
        files=tuple(pull_files(pr)), base_source=pointer_text_at(repo, path, pr.base.ref),
        head_source=pointer_text_at(repo, path, pr.head.sha), bump_author=bump_author)


def run_bump_automerge(gh, repo, pr, registry: dict, *, skills_dir: str, bump_author: str, method: str,
                       dry_run: bool, login: str | None, **generic) -> dict:
    """Decide a bump PR by `bump_rules`; merge at the checked head, or keep one sticky comment saying why not."""
    facts = bump_facts(repo, pr, registry, skills_dir, bump_author=bump_author, **generic)
    decision = bump_rules.bump_decision(facts)
    outcome = {"pr": pr.number, "bump": True, "merge": decision.merge, "reasons": list(decision.reasons),
               "waiting": decision.waiting, "label_removed": False, "merged": False, "comment": None,
               "dry_run": dry_run}
    if dry_run:
        return outcome
    if decision.merge:
        status = pr.merge(merge_method=method, sha=facts.facts.head_sha)
        outcome["merged"] = bool(status.merged)
        # The merge commit: the publish workflow this job then starts names it (a merge made with the
        # Actions token starts no push workflow, so the caller dispatches publish itself).
        outcome["merge_commit"] = status.sha if status.merged else None
    elif facts.facts.state == "open":
        body = render_automerge_comment(decision.reasons, waiting=decision.waiting, head_sha=facts.facts.head_sha)
        outcome["comment"] = upsert_comment(pr, body, bot_login(gh, login), AUTOMERGE_MARKER)
    return outcome


def _bumped(results: dict, root: Path, skills_dir: str) -> list[tuple[str, bytes, dict]]:
    """(name, the pointer's bytes as bump wrote them, summary) of each bumped result; checked before sending."""
    items = results.get("results") if isinstance(results, dict) else None
    if not isinstance(items, list):
        raise SkillyardError("the bump results hold no `results` list", "Pass the output of "
                             "`skillyard external bump --json`.")
    out = []
    for item in items:
        if not isinstance(item, dict) or item.get("status") != "bumped":
            continue
        name, summary = item.get("name"), item.get("summary")
        if not isinstance(name, str) or not isinstance(summary, dict):
            raise SkillyardError("a bumped result has no name or summary", "Pass `skillyard external bump --json`.")
        path = root / skills_dir / name / POINTER_FILE
        data = path.read_bytes()[:MAX_BYTES + 1]
        pointer, problems = parse_pointer(data.decode("utf-8", "replace"), folder_name=name)
        if pointer is None:  # parse_pointer checks the name too: never a path outside the skill folder
            raise SkillyardError(f"{path}: {problems[0].message}", problems[0].fix)
        if pointer.upstream["commit"] != item.get("new_commit"):
            raise SkillyardError(f"{path} pins {pointer.upstream['commit'][:12]}, not the bumped "
                                 f"{str(item.get('new_commit'))[:12]}", "Run bump and open-bump-prs in one job.")
        out.append((name, data, summary))
    return out[:MAX_BUMP_PRS]


def open_bump_prs(gh, repo_slug: str, results: dict, root: Path, *, skills_dir: str = decide.SKILLS_DIR) -> dict:
    """One PR per bumped skill, on branch `bump/<name>` from the default branch's head; an open one is refreshed."""
    from github import InputGitTreeElement

    repo = gh.get_repo(repo_slug)
    base_branch = repo.default_branch
    base_commit = repo.get_git_commit(repo.get_branch(base_branch).commit.sha)
    opened = []
    for name, data, summary in _bumped(results, root, skills_dir):
        path = f"{skills_dir}/{name}/{POINTER_FILE}"
        branch = bump_rules.bump_branch(name)
        title = f"Bump {name} to {summary.get('repository')}@{str(summary.get('new_commit') or '')[:12]}"
        head = f"{repo.owner.login}:{branch}"
        body = bump_body(summary)
        existing = list(repo.get_pulls(state="open", head=head))
        if existing and _branch_holds(repo, branch, base_commit.sha, path, data):
            # The same bump as last run, on the same base: leave the commit (and its checks) alone.
            if existing[0].body != body or existing[0].title != title:
                existing[0].edit(title=title, body=body)
            opened.append({"name": name, "number": existing[0].number, "created": False, "branch": branch,
                           "commit": existing[0].head.sha, "unchanged": True})
            continue
        blob = repo.create_git_blob(base64.b64encode(data).decode("ascii"), "base64")
        expected = _git_blob_sha(data)
        if blob.sha != expected:
            raise SkillyardError(f"the server stored {path} as {blob.sha}, expected {expected}",
                                 "Check --api-url; retry later.")
        tree = repo.create_git_tree([InputGitTreeElement(path, "100644", "blob", sha=blob.sha)],
                                    base_tree=base_commit.tree)
        new = str(summary.get("new_commit") or "")[:12]
        commit = repo.create_git_commit(f"Bump {name} to upstream {new}", tree, [base_commit])
        _point_branch(repo, branch, commit.sha)
        if existing:
            existing[0].edit(title=title, body=body)
            pr, created = existing[0], False
        else:
            pr, created = repo.create_pull(title=title, body=body, base=base_branch, head=branch), True
        opened.append({"name": name, "number": pr.number, "created": created, "branch": branch,
                       "commit": commit.sha})
    return {"ok": True, "prs": opened}


def _branch_holds(repo, branch: str, base_sha: str, path: str, data: bytes) -> bool:
    """True when `branch` is one commit on `base_sha` whose `path` holds exactly `data`."""
    from github import GithubException

    try:
        tip = repo.get_git_commit(repo.get_git_ref(f"heads/{branch}").object.sha)
        if [p.sha for p in tip.parents] != [base_sha]:
            return False
        entries = {e.path: e.sha for e in repo.get_git_tree(tip.tree.sha, recursive=True).tree}
    except GithubException:
        return False
    return entries.get(path) == _git_blob_sha(data)


def _git_blob_sha(data: bytes) -> str:
    """The object id git (and GitHub) give these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _point_branch(repo, branch: str, sha: str) -> None:
    """Create `branch` at `sha`, or move it there (a bump branch holds only the bot's one commit)."""
    from github import GithubException

    try:
        repo.create_git_ref(f"refs/heads/{branch}", sha)
    except GithubException as exc:
        if exc.status != 422:
            raise
        ref = repo.get_git_ref(f"heads/{branch}")
        _ = ref.object  # load it, so edit() goes to the ref's canonical URL
        ref.edit(sha, force=True)
