"""`skillyard bot record-verification --all`: re-prove EVERY `verified: true` block in the checkout before the
build, not only the pointers of the PR just merged.

A block the record step should have undone can reach the default branch without it: the publish run of that push
was cancelled (`concurrency: publish`), failed, or never saw the file. So each publish run re-derives every claimed
approval from the API and git (`bot.verification.disproof`): the PR in `approved_in` is this repository's, merged
into the default branch, its head approved by `approved_by` (a maintainer now; not the author, not a bot) at
`approved_at`, and the pointer's pin is the one that PR merged and set. Any block that does not hold is rewritten
to `verified: false`; an API failure stops the run (nothing is published). Nothing is cached across runs; within
one run each PR and each approver is read once, and the work is bounded (`MAX_CLAIMS`, `MAX_PULLS`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from skillyard.bot import decide, verification, verification_git
from skillyard.bot.github_io import github_errors, pull_files, writers_among
from skillyard.errors import SkillyardError
from skillyard.format.pointer import POINTER_FILE, dump_pointer, parse_pointer, read_pointer_file

MAX_CLAIMS = 5000   # pointers claiming `verified: true` that one run re-proves
MAX_PULLS = 300     # distinct PRs they may name (two API calls each, plus one per approver)


def pointer_files(root: Path, skills_dir: str) -> list[str]:
    """Every `source.yaml` under the skills folder, at any depth (the build lists nested skill folders too; more
    than it lists is harmless here: a block is only ever taken back), links not followed."""
    out = []
    for folder, subfolders, files in os.walk(root / skills_dir, followlinks=False):
        subfolders.sort()
        if POINTER_FILE in files:
            out.append((Path(folder) / POINTER_FILE).relative_to(root).as_posix())
    return sorted(out)


def _claims(root: Path, skills_dir: str, pending: dict[str, str]) -> list[tuple[str, dict]]:
    """(path, pointer data) of every pointer in the checkout whose block says `verified: true`; `pending` holds
    texts the record step decided but has not written (a dry run). A file that is no valid pointer is left to
    `validate --strict`, which refuses it before anything is built."""
    out = []
    for path in pointer_files(root, skills_dir):
        text, problem = (pending[path], None) if path in pending else read_pointer_file(str(root / path))
        found, _ = parse_pointer(text) if problem is None else (None, [problem])
        if found is not None and verification.block_of(found.data).get("verified") is True:
            out.append((path, found.data))
    return out


class _Facts:
    """What the API says about the PRs the blocks name, each read once in this run."""

    def __init__(self, repo, root: Path):
        self.repo, self.root = repo, root
        self.pulls: dict[int, object] = {}
        self.writers: dict[str, bool] = {}
        self.merged: dict[int, bool] = {}

    def pull(self, number: int):
        if number not in self.pulls:
            from github import UnknownObjectException

            try:
                pr = self.repo.get_pull(number)
                reviews = tuple(decide.Review(r.state, r.commit_id or "", r.submitted_at,
                                              r.user.login if r.user else "") for r in pr.get_reviews())
            except UnknownObjectException:
                pr, reviews = None, ()
            self.pulls[number] = (pr, reviews)
        return self.pulls[number]

    def maintainers(self, login: str | None) -> frozenset[str]:
        if login and login not in self.writers:
            self.writers[login] = login in writers_among(self.repo, [login])
        return frozenset({login}) if login and self.writers[login] else frozenset()

    def merged_here(self, pr) -> bool:
        """Merged into the default branch: the API says so, and the merge commit is in the checkout's history."""
        if pr.number not in self.merged:
            merge = pr.merge_commit_sha or ""
            self.merged[pr.number] = bool(
                pr.merged and re.fullmatch(r"[0-9a-f]{40}", merge) and pr.base.ref == self.repo.default_branch
                and verification_git.git(self.root, "cat-file", "-e", f"{merge}^{{commit}}",
                                         check=False).returncode == 0
                and verification_git.is_ancestor(self.root, merge))
        return self.merged[pr.number]

    def start_of(self, pr, path: str, pin_merged) -> str:
        """Where the PR's change starts: the merge commit's first parent, or, when the pin did not change there
        and the commit may be the last of a rebase merge, the range `bot.verification_git` settles on."""
        merge = pr.merge_commit_sha
        first = f"{merge}^1"
        if verification.pin_of(verification_git.pointer_at(self.root, first, path)) != pin_merged:
            return first
        if (pr.commits or 0) > 1 and len(verification_git.parents(self.root, merge)) == 1:
            listed = pull_files(pr)[: decide.FILES_API_LIMIT]
            return verification_git.landed_range(self.root, pr.number, merge, commits=pr.commits, listed=listed,
                                                 total=pr.changed_files)
        return first


def why_not(facts: _Facts, path: str, data: dict) -> tuple[int | None, str | None]:
    """(the PR the block names, why its approval cannot be proved or None)."""
    block = verification.block_of(data)
    number = verification.pull_number_in(block.get("approved_in"))
    if number is None:
        return None, "approved_in names no pull request"
    pr, reviews = facts.pull(number)
    if pr is None:
        return number, f"PR #{number} does not exist in this repository"
    merged = facts.merged_here(pr)
    pin_now = verification.pin_of(data)
    pin_merged = pin_before = None
    if merged:
        pin_merged = verification.pin_of(verification_git.pointer_at(facts.root, pr.merge_commit_sha, path))
        start = facts.start_of(pr, path, pin_merged)
        pin_before = verification.pin_of(verification_git.pointer_at(facts.root, start, path))
    login = decide.normalise_handle(block.get("approved_by"))
    why = verification.disproof(block, pr_url=pr.html_url, merged=merged, author=pr.user.login if pr.user else "",
                                head_sha=pr.head.sha, reviews=reviews, maintainers=facts.maintainers(login),
                                pin_now=pin_now, pin_merged=pin_merged, pin_before=pin_before)
    return number, why


def prove_every_block(repo, root: Path, skills_dir: str, *, pending: dict[str, str] | None = None
                      ) -> tuple[dict, dict[str, str]]:
    """({"checked", "pulls", "revoked": [{pointer, pr, reason}]}, {path: new text} for the revoked ones)."""
    pending = pending or {}
    claims = _claims(root, skills_dir, pending)
    if len(claims) > MAX_CLAIMS:
        raise SkillyardError(f"{len(claims)} pointers claim `verified: true`; one run re-proves at most "
                             f"{MAX_CLAIMS}", "Report this: the registry outgrew the re-proof's bound.")
    numbers = {verification.pull_number_in(verification.block_of(d).get("approved_in")) for _, d in claims}
    if len(numbers - {None}) > MAX_PULLS:
        raise SkillyardError(f"the verified pointers name {len(numbers - {None})} PRs; one run re-proves at most "
                             f"{MAX_PULLS} (two API calls each, plus one per approver)",
                             "Report this: the registry outgrew the re-proof's bound.")
    facts = _Facts(repo, root)
    revoked, writes = [], {}
    for path, data in claims:
        try:
            number, why = why_not(facts, path, data)
        except github_errors() as exc:
            raise SkillyardError(f"cannot re-prove the verification of {path}: GitHub answered {exc.status}",
                                 "Nothing was published. Re-run publish; check that the token may read pull "
                                 "requests.") from None
        if why is None:
            continue
        revoked.append({"pointer": path, "pr": number, "reason": why})
        block = {"verified": False}
        checked = verification.block_of(data).get("checked_at")
        if isinstance(checked, str):
            block["checked_at"] = checked
        writes[path] = dump_pointer({**data, "verification": block})
    return {"checked": len(claims), "pulls": len(facts.pulls), "revoked": revoked}, writes
