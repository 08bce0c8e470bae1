"""`skill publish`: send a local skill folder to a registry as a pull request, through the GitHub API only.

The plan (what would be sent) is computed without any network call, so `--dry-run` shows exactly the files,
modes, blob SHAs, branch, title and body. `execute` then forks the registry when needed, uploads blobs, builds
one tree on the registry's current default branch, commits it, points a branch at it and opens the PR.
PyGithub is imported by the caller (the command's `run`), never at import time.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError

DEFAULT_REGISTRY = "skillyard/registry"
SKILLS_DIR = "skills"
# Local state that `skill install` writes into an installed folder; never part of what is published.
LOCAL_ONLY = frozenset({"skill.lock.json"})
PUBLIC_HOSTS = frozenset({"github.com", "raw.githubusercontent.com", "api.github.com", "codeload.github.com"})
_SLUG = re.compile(r"^[A-Za-z0-9-]+/[A-Za-z0-9._-]+\Z")


def git_blob_sha(data: bytes) -> str:
    """The object id git (and GitHub) give these bytes, so the plan can name each blob before it is sent."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class PlannedFile:
    path: str               # repository-relative, e.g. skills/pdf-tools/SKILL.md
    local: Path
    mode: str               # 100644 or 100755
    size: int
    sha256: str
    git_sha: str

    def to_dict(self) -> dict:
        return {"path": self.path, "mode": self.mode, "size": self.size, "sha256": self.sha256,
                "git_sha": self.git_sha}


@dataclass
class PublishPlan:
    name: str
    version: str
    registry: str
    folder: str             # skills/<name>
    branch: str
    title: str
    body: str
    commit_message: str
    files: list[PlannedFile] = field(default_factory=list)
    private_reason: str | None = None
    hints: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "registry": self.registry, "folder": self.folder,
                "branch": self.branch, "title": self.title, "body": self.body,
                "commit_message": self.commit_message, "files": [f.to_dict() for f in self.files],
                "private_source": self.private_reason, "hints": self.hints}


def check_slug(slug: str) -> str:
    if not _SLUG.match(slug or ""):
        raise SkillyardError(f"--registry must be OWNER/NAME, not {slug!r}", "For example: --registry skillyard/registry.")
    return slug


def branch_name(name: str, version: str) -> str:
    safe_version = re.sub(r"[^A-Za-z0-9._-]+", "-", version).strip(".-") or "0"
    return f"skill/{name}-{safe_version}"


def pr_body(data: dict, name: str, files: list[PlannedFile]) -> str:
    """The PR description, from the skill's own metadata (plain facts; the bot adds its review)."""
    def listed(key: str) -> str:
        value = data.get(key)
        return ", ".join(map(str, value)) if isinstance(value, list) and value else "—"

    description = " ".join(str(data.get("description", "")).split())
    lines = [f"Publishes the skill **{name}** {data.get('version', '')}".rstrip() + ".", "",
             f"> {description}" if description else "", "",
             "| field | value |", "| --- | --- |",
             f"| license | {data.get('license', '—')} |",
             f"| author | {data.get('author', '—')} |",
             f"| maintainers | {listed('maintainers')} |",
             f"| tags | {listed('tags')} |",
             f"| capabilities | {listed('capabilities')} |",
             f"| files | {len(files)} ({sum(f.size for f in files):,} bytes) |", "",
             "Files:", ""]
    lines += [f"- `{f.path}`" + (" (executable)" if f.mode == "100755" else "") for f in files]
    lines += ["", "Opened with `skill publish`. After merge: `skill install " + name + "`.", "",
              "- [x] `skill validate` passes in strict mode",
              "- [ ] I am the author or a maintainer of this skill (see CONTRIBUTING.md)"]
    return "\n".join(line for line in lines if line is not None) + "\n"


def private_source(folder: Path, home: Path | None = None) -> str | None:
    """Why this skill counts as coming from a private source, or None.

    Rule (kept simple on purpose): the folder has a `skill.lock.json` (it was installed by `skill install`) and
    either its source is a configured source that needs a token (`token_env`), or its resolved URL is not on
    public GitHub. A folder without a lock is the author's own work and is not private by this rule.
    """
    lock_path = folder / "skill.lock.json"
    if not lock_path.is_file():
        return None
    try:
        from skillyard.client.lockfile import read_skill_lock

        lock = read_skill_lock(folder)
    except (SkillyardError, OSError, ValueError):
        return "its skill.lock.json cannot be read, so its source is unknown"
    source = lock.get("resolved_source", {})
    if source.get("type") == "local":
        return None
    name = source.get("source")
    if name:
        try:
            from skillyard.client.config import load_config

            for configured in load_config(home).sources:
                if configured.name == name and configured.token_env:
                    return f"it was installed from source {name!r}, which needs a token (${configured.token_env})"
        except SkillyardError:
            pass
    host = urllib.parse.urlsplit(source.get("url") or "").hostname
    if host and host not in PUBLIC_HOSTS:
        return f"it was installed from {host}, which is not public GitHub"
    return None


def plan_publish(folder: str | os.PathLike, registry: str = DEFAULT_REGISTRY, *, home: Path | None = None) -> PublishPlan:
    """Validate the folder strictly and describe the PR that would publish it. No network."""
    from skillyard.format import Policy, load_skill

    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise SkillyardError(f"{folder} is not a folder", "Pass the skill's folder (the one holding SKILL.md).")
    check_slug(registry)
    package = load_skill(folder, Policy(strict=True))
    if not package.valid:
        # A non-portable folder is refused, not converted on the fly: the PR must hold exactly the files the author
        # has reviewed, and `skillyard migrate --to-standard` shows its diff and keeps a backup.
        first = package.errors[:5]
        detail = "; ".join(f"{f.file or 'SKILL.md'}{':' + str(f.line) if f.line else ''}: {f.message}" for f in first)
        fix = f"Run `skill validate {folder}` and fix every error before publishing."
        if any(f.rule == "not-portable" for f in package.errors):
            fix = (f"Run `skillyard migrate --to-standard {folder}` (it writes the portable SKILL.md + skill.yaml), "
                   "then " + fix[0].lower() + fix[1:])
        raise SkillyardError(f"{folder.name} is not valid in strict mode ({len(package.errors)} error(s)): {detail}",
                             fix)
    name = package.name
    version = str(package.data.get("version", "0.0.0"))
    target = f"{SKILLS_DIR}/{name}"
    files = []
    for entry in package.files:
        if entry.path in LOCAL_ONLY:
            continue
        data = (folder / entry.path).read_bytes()
        files.append(PlannedFile(f"{target}/{entry.path}", folder / entry.path,
                                 "100755" if entry.executable else "100644", len(data),
                                 hashlib.sha256(data).hexdigest(), git_blob_sha(data)))
    hints = [f"{f.file}: {f.message}" for f in package.findings if f.severity == "warning"][:10]
    return PublishPlan(name=name, version=version, registry=registry, folder=target,
                       branch=branch_name(name, version), title=f"skill: {name} {version}",
                       body=pr_body(package.data, name, files), commit_message=f"skills/{name}: publish {version}",
                       files=files, private_reason=private_source(folder, home), hints=hints)


def _is_loopback(api_url: str) -> bool:
    import ipaddress

    host = urllib.parse.urlsplit(api_url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def connect(token: str, api_url: str):
    """A PyGithub client (imported here, at run time). A loopback stand-in gets no throttling or retries."""
    from github import Auth, Github

    api_url = api_url.rstrip("/")
    if _is_loopback(api_url):
        return Github(auth=Auth.Token(token), base_url=api_url, retry=None, timeout=10,
                      seconds_between_requests=None, seconds_between_writes=None)
    return Github(auth=Auth.Token(token), base_url=api_url, timeout=30)


def _wait_for(fn, *, attempts: int = 8, delay: float = 1.0):
    """Forks are created asynchronously: retry a read a few times before giving up."""
    from github import GithubException

    for attempt in range(attempts):
        try:
            return fn()
        except GithubException as exc:
            if exc.status not in (404, 409) or attempt == attempts - 1:
                raise
            time.sleep(delay * (attempt + 1))
    return None


def execute(plan: PublishPlan, gh, *, to_public: bool = False, fork_wait: float = 1.0) -> dict:
    """Send the plan: fork if needed, blobs -> tree -> commit -> branch, then open (or find) the PR."""
    from github import GithubException, InputGitTreeElement

    me = gh.get_user().login
    upstream = gh.get_repo(plan.registry)
    if plan.private_reason and not upstream.private and not to_public:
        raise SkillyardError(f"{plan.name} looks private ({plan.private_reason}) and {plan.registry} is public",
                             "Re-run with --to-public if you may publish it, or choose a private --registry.")
    base_branch = upstream.default_branch
    base_commit = upstream.get_git_commit(upstream.get_branch(base_branch).commit.sha)
    own = upstream.owner.login.lower() == me.lower()
    target = upstream if own else upstream.create_fork()
    if not own:
        _wait_for(lambda: target.get_branch(base_branch), delay=fork_wait)

    wanted = {f.path for f in plan.files}
    existing = upstream.get_git_tree(base_commit.tree.sha, recursive=True).tree
    stale = sorted(e.path for e in existing if e.type == "blob" and e.path.startswith(plan.folder + "/")
                   and e.path not in wanted)
    elements = []
    for planned in plan.files:
        data = planned.local.read_bytes()
        if hashlib.sha256(data).hexdigest() != planned.sha256:
            raise SkillyardError(f"{planned.local} changed while publishing", "Run `skill publish` again.")
        blob = target.create_git_blob(base64.b64encode(data).decode("ascii"), "base64")
        if blob.sha != planned.git_sha:
            raise SkillyardError(f"the server stored {planned.path} as {blob.sha}, expected {planned.git_sha}",
                                 "Check --api-url; retry later.")
        elements.append(InputGitTreeElement(planned.path, planned.mode, "blob", sha=blob.sha))
    elements += [InputGitTreeElement(path, "100644", "blob", sha=None) for path in stale]
    tree = target.create_git_tree(elements, base_tree=base_commit.tree)
    commit = target.create_git_commit(plan.commit_message, tree, [base_commit])
    try:
        target.create_git_ref(f"refs/heads/{plan.branch}", commit.sha)
    except GithubException as exc:
        if exc.status != 422:
            raise
        ref = target.get_git_ref(f"heads/{plan.branch}")
        _ = ref.object  # load it, so edit() goes to the ref's canonical URL
        ref.edit(commit.sha, force=True)
    head = plan.branch if own else f"{target.owner.login}:{plan.branch}"
    created = True
    try:
        pr = upstream.create_pull(title=plan.title, body=plan.body, base=base_branch, head=head)
    except GithubException as exc:
        if exc.status != 422:
            raise
        open_prs = list(upstream.get_pulls(state="open", head=head))
        if not open_prs:
            raise
        pr, created = open_prs[0], False
    return {"ok": True, "url": pr.html_url, "number": pr.number, "created": created, "branch": plan.branch,
            "head": head, "commit": commit.sha, "fork": None if own else target.full_name,
            "files": len(plan.files), "removed": stale}
