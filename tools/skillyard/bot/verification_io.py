"""`skillyard bot record-verification`: after a PR merges, write each touched pointer's `verification` block from
the PR's reviews and the maintainers' permissions as the GitHub API reports them (see `bot.verification`).

Which pointers the PR touched is read from git in the checkout (`bot.verification_git`: the merge commit against
its first parent, or a rebase merge's range), never from the API's file list alone, which stops at 3,000 files;
the API's list and count only cross-check git, and a disagreement that could hide a file stops the run.

It runs in the publish workflow on the default branch's checkout, before the build; the workflow commits what it
wrote as one bot commit. Every pointer is decided before anything is written, so a refusal writes nothing.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from skillyard.bot import decide, verification, verification_git
from skillyard.bot.github_io import (  # noqa: F401 - is_pointer_path is part of this module's interface
    github_errors,
    is_pointer_path,
    pull_files,
    remote_pointer,
    writers_among,
)
from skillyard.errors import SkillyardError
from skillyard.format.pointer import dump_pointer, parse_pointer, read_pointer_file

MAX_POINTERS = 1000   # pointer files one PR may touch
MAX_PULLS = 10        # PRs the API may name for one merge commit


def pointer_paths(files: list[decide.PrFile], skills_dir: str) -> list[tuple[str, str | None]]:
    """(path on the merged branch, its name before the PR) of every pointer file (`is_pointer_path`) the PR
    added, changed or renamed to."""
    found = {}
    for item in files:
        if item.status != "removed" and is_pointer_path(item.path, skills_dir):
            found[item.path] = item.previous if item.status == "renamed" else item.path
    return sorted(found.items())


def merged_pulls(repo, commit: str) -> list:
    """The merged PRs whose merge commit is `commit` (a push that merged no PR names none)."""
    found = []
    for pr in itertools.islice(repo.get_commit(commit).get_pulls(), MAX_PULLS):
        if pr.merged and pr.merge_commit_sha == commit:
            found.append(pr)
    return found


def plan_for_pull(repo, pr, root: Path, skills_dir: str) -> tuple[list[dict], dict[str, str]]:
    """(one record per pointer the PR touched, {local path: new text} for those whose block changes)."""
    if not pr.merged:
        raise SkillyardError(f"PR #{pr.number} is not merged", "Run this after the PR merged (the publish workflow "
                             "does, on the push of its merge commit).")
    merge = pr.merge_commit_sha
    if not merge:
        raise SkillyardError(f"PR #{pr.number} is merged but GitHub names no merge commit for it",
                             "Re-run publish once GitHub shows the merge commit.")
    listed = pull_files(pr)[: decide.FILES_API_LIMIT]  # only to cross-check what git shows
    start = verification_git.landed_range(root, pr.number, merge, commits=pr.commits, listed=listed,
                                          total=pr.changed_files)
    paths = pointer_paths(verification_git.changes(root, start, merge), skills_dir)
    if len(paths) > MAX_POINTERS:
        raise SkillyardError(f"PR #{pr.number} touches {len(paths)} pointer files; at most {MAX_POINTERS} are "
                             "recorded", "Split the change into smaller PRs.")
    head = pr.head.sha
    reviews = tuple(decide.Review(r.state, r.commit_id or "", r.submitted_at, r.user.login if r.user else "")
                    for r in pr.get_reviews())
    approvers = [r.user for r in reviews if r.state == "APPROVED" and r.commit_id == head]
    approval = verification.verifying_approval(reviews, head, writers_among(repo, approvers), pr.user.login)
    records, writes = [], {}
    for path, before in paths:
        local = root / path
        if not local.is_file():
            records.append({"pointer": path, "pr": pr.number, "skipped": "no longer on the default branch"})
            continue
        text, problem = read_pointer_file(str(local))
        merged, problems = parse_pointer(text) if problem is None else (None, [problem])
        if merged is None:
            raise SkillyardError(f"{path}: {problems[0].message}", problems[0].fix)
        base = verification_git.pointer_at(root, start, before)
        at_head = remote_pointer(repo, path, head)
        approved = approval if verification.pin_of(at_head) == verification.pin_of(merged.data) else None
        block = verification.recorded_block(base=base, merged=merged.data, approval=approved, pr_url=pr.html_url)
        changed = block != verification.block_of(merged.data)
        records.append({"pointer": path, "pr": pr.number, "pin_set": base is None or
                        verification.pin_of(base) != verification.pin_of(merged.data),
                        "verification": block, "changed": changed})
        if changed:
            text = dump_pointer({**merged.data, "verification": block})
            if parse_pointer(text)[0] is None:  # never write a pointer the build would refuse
                raise SkillyardError(f"{path}: the verification recorded from PR #{pr.number} would not be valid "
                                     f"({block})", "Report this: the PR's address or review is not as GitHub "
                                     "documents it.")
            writes[path] = text
    return records, writes


def record(gh, repo_slug: str, root: str | Path, *, pr_number: int | None = None, commit: str | None = None,
           skills_dir: str = decide.SKILLS_DIR, dry_run: bool = False, prove_all: bool = False) -> dict:
    """Decide every touched pointer of the PR (`--pr`) or of the PRs merged by `commit`, then (`prove_all`)
    re-prove every `verified: true` block in the checkout (`bot.verification_proof`), then write the changed
    pointers (unless a dry run). Returns what was decided and written."""
    root = Path(root)
    verification_git.require_commit(root, commit or "HEAD", f"the checkout of {repo_slug}")
    repo = gh.get_repo(repo_slug)
    try:
        pulls = ([repo.get_pull(pr_number)] if pr_number is not None else
                 merged_pulls(repo, commit) if commit is not None else [])
    except github_errors() as exc:
        raise SkillyardError(f"cannot read the PR of {repo_slug}: GitHub answered {exc.status}",
                             "Check --repo, --pr/--commit and that the token may read pull requests.") from None
    records, writes = [], {}
    for pr in pulls:
        found, texts = plan_for_pull(repo, pr, root, skills_dir)
        records += found
        writes.update(texts)
    proof = None
    if prove_all:
        from skillyard.bot.verification_proof import prove_every_block

        proof, texts = prove_every_block(repo, root, skills_dir, pending=writes)
        writes.update(texts)
    if not dry_run:
        from skillyard.fsutil import write_atomic

        for path, text in sorted(writes.items()):
            write_atomic(root / path, text)
    out = {"pulls": [pr.number for pr in pulls], "pointers": records, "written": sorted(writes), "dry_run": dry_run}
    if proof is not None:
        out["proof"] = proof
    return out
