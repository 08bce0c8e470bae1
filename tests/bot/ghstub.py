"""A GitHub REST stand-in on 127.0.0.1 for driving the real PyGithub code.

It implements only the endpoints the bot and `skill publish` call, over an in-memory state, and records every
request so tests can assert what was sent. Objects carry the `url` fields PyGithub follows.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import socket
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.support.loopback import LoopbackHTTPServer

PREFIX = "/api/v3"          # like GitHub Enterprise, so base_url path handling is exercised too
T0 = "2026-01-01T00:00:00Z"


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def fake_sha(*parts: object) -> str:
    return hashlib.sha1(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class Recorded:
    method: str
    path: str
    query: dict
    body: object


@dataclass
class Pull:
    number: int
    user: str
    head_sha: str
    head_ref: str = "feature"
    head_repo: str = ""
    base_ref: str = "main"
    files: list = field(default_factory=list)        # [(filename, status)] or [(filename, status, previous)]
    title: str = "A change"
    body: str = ""
    state: str = "open"
    merged: bool = False
    labels: list = field(default_factory=list)
    events: list = field(default_factory=list)       # [{"event", "label", "created_at", "actor"}]
    reviews: list = field(default_factory=list)      # [{"state", "commit_id", "submitted_at", "user"}]
    merge_commit_sha: str | None = None              # set by a merge (or by the test for a PR merged before)
    commits: int = 1                                 # how many commits the PR has (the API's `commits`)
    changed_files: int | None = None                 # the API's count; None: len(files) (past the 3,000 listed)


@dataclass
class Repo:
    owner: str
    name: str
    private: bool = False
    default_branch: str = "main"
    parent: str | None = None
    pulls: dict = field(default_factory=dict)
    comments: dict = field(default_factory=dict)     # id -> {"issue", "user", "body"}
    contents: dict = field(default_factory=dict)     # (ref, path) -> bytes
    commits: dict = field(default_factory=dict)      # sha -> {"date", "tree", "parents", "message"}
    checks: dict = field(default_factory=dict)       # sha -> [{"name", "status", "conclusion"}]
    statuses: dict = field(default_factory=dict)     # sha -> [{"context", "state"}]
    blobs: dict = field(default_factory=dict)        # sha -> bytes
    trees: dict = field(default_factory=dict)        # sha -> {path: {"mode", "type", "sha"}}
    refs: dict = field(default_factory=dict)         # "heads/main" -> sha
    permissions: dict = field(default_factory=dict)  # login -> admin | maintain | write | triage | read | none
    runs: dict = field(default_factory=dict)         # run id -> {"event", "head_sha", "head_branch", "head_repo",
                                                     #            "pull_requests": [numbers], "conclusion", "name",
                                                     #            "status", "suite"}
    artifacts: dict = field(default_factory=dict)    # artifact id -> {"run", "name", "data", "head_sha", "expired",
                                                     #   "size", "claims_run"} (data: the zip's bytes; head_sha,
                                                     #   size and claims_run override what the listing says)
    git_dir: object = None   # a bare repository backing it (the workflow harness): merges, commits, contents
    deployments: list = field(default_factory=list)  # Pages deployments: {"id", "artifact_id", "build_version"}
    releases: dict = field(default_factory=dict)     # id -> {"tag_name", "name", "author", "generate_release_notes",
                                                     #        "draft", "assets": {asset id: {"name", "data",
                                                     #        "uploader", "while_draft"}}}
    release_log: list = field(default_factory=list)  # what was done to releases, in order: (verb, id, tag, draft)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


class _NoBody:
    """A HEAD answer: the headers of the GET answer, its body dropped."""

    def __init__(self, raw):
        self.raw, self.headers_done = raw, False

    def write(self, data: bytes) -> int:
        if not self.headers_done:
            head, sep, _ = bytes(data).partition(b"\r\n\r\n")
            if sep:
                self.headers_done = True
                return self.raw.write(head + sep)
            return self.raw.write(data)
        return len(data)

    def __getattr__(self, name):
        return getattr(self.raw, name)


class StubError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def client_environ(client: tuple, server_port: int) -> dict[str, str] | None:
    """The environment of the local process that holds the TCP connection from `client` (host, port) to
    `server_port` on 127.0.0.1 (Linux /proc: the socket's inode in /proc/net/tcp, then the process with that
    socket open), or None when it cannot be found."""
    import os
    from pathlib import Path

    wanted = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote = fields[1].rsplit(":", 1)[1], fields[2].rsplit(":", 1)[1]
            if int(local, 16) == client[1] and int(remote, 16) == server_port:
                wanted = f"socket:[{fields[9]}]"
                break
        if wanted:
            break
    if wanted is None:
        return None
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") != wanted:
                    continue
                raw = Path(f"/proc/{pid}/environ").read_bytes()
            except OSError:
                continue
            return dict(item.decode(errors="replace").split("=", 1) for item in raw.split(b"\0") if b"=" in item)
    return None


class PerJob:
    """The scopes of one token that several jobs with different permissions use at the same time. act hands
    every job of a run the one GITHUB_TOKEN, where GitHub gives each job its own; so a request is matched to its
    job by the process that sent it: act sets GITHUB_WORKFLOW (the workflow's name, the called one's for a job of
    a reusable workflow) and GITHUB_JOB (the job's id) in every job's environment. A request that cannot be
    matched gets nothing (refused), never another job's permissions."""

    NOTHING: dict = {}

    def __init__(self, by_job: dict[tuple[str, str], dict]):
        self.by_job = by_job

    def for_client(self, client: tuple, server_port: int) -> dict:
        env = client_environ(client, server_port) or {}
        return self.by_job.get((env.get("GITHUB_WORKFLOW", ""), env.get("GITHUB_JOB", "")), self.NOTHING)


class GitHubStandIn:
    def __init__(self, tokens: dict[str, str] | None = None):
        self.tokens = tokens or {"bot-token": "skillyard-bot"}
        self.repos: dict[str, Repo] = {}
        self.requests: list[Recorded] = []
        self.lock = threading.RLock()
        self.ids = itertools.count(1000)
        self.user_endpoint_forbidden = False
        self.large_file_bytes = 1024 * 1024   # like GitHub: bigger files come without inline content
        self.blob_requests: list[dict] = []   # artifact downloads at the storage host: {"path", "authorization"}
        self.artifact_redirect: str | None = None  # where artifact downloads redirect to (default: this stub)
        # token -> the scopes of the job using it ({scope: none|read|write}); a token listed here is refused
        # (403) a request its scopes do not allow, as GitHub refuses a job's GITHUB_TOKEN. Absent: unchecked.
        self.scopes: dict[str, dict | None] = {}
        self.events: list[dict] = []          # what a client did that GitHub turns into events (take_events)
        self.oidc_issued: set[str] = set()
        self.refused: list[Recorded] = []     # requests refused for the token's scopes (403)
        self._token = ""                      # the token of the request being served (under the lock)
        handler = self._handler_class()
        self.server = LoopbackHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # ---- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> GitHubStandIn:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def base_url(self) -> str:
        return self.root + PREFIX

    # ---- state helpers for tests -------------------------------------------------------------------------------
    def add_repo(self, full_name: str, **kw) -> Repo:
        owner, name = full_name.split("/")
        repo = Repo(owner, name, **kw)
        self.repos[full_name] = repo
        return repo

    def add_commit(self, repo: Repo, date: str = T0, files: dict[str, bytes] | None = None, parents=()) -> str:
        tree = {}
        for path, data in (files or {}).items():
            sha = git_blob_sha(data)
            repo.blobs[sha] = data
            tree[path] = {"mode": "100644", "type": "blob", "sha": sha}
        tree_sha = fake_sha("tree", sorted(tree.items()))
        repo.trees[tree_sha] = tree
        sha = fake_sha("commit", tree_sha, list(parents), date, next(self.ids))
        repo.commits[sha] = {"date": date, "tree": tree_sha, "parents": list(parents), "message": "commit"}
        return sha

    def calls(self, method: str | None = None, pattern: str = "") -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if (method is None or r.method == method) and re.search(pattern, r.path)]

    def take_events(self) -> list[dict]:
        """The events requests caused since the last call (merges, dispatches, labels): {"event", "token", ...}."""
        with self.lock:
            out, self.events = self.events, []
        return out

    def writes(self) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if r.method != "GET"]

    # ---- JSON shapes -----------------------------------------------------------------------------------------
    def _user(self, login: str) -> dict:
        return {"login": login, "id": abs(hash(login)) % 10**6, "type": "User", "url": f"{self.base_url}/users/{login}"}

    def _repo_json(self, repo: Repo) -> dict:
        data = {"id": abs(hash(repo.full_name)) % 10**6, "name": repo.name, "full_name": repo.full_name,
                "owner": self._user(repo.owner), "private": repo.private, "default_branch": repo.default_branch,
                "url": f"{self.base_url}/repos/{repo.full_name}", "html_url": f"{self.root}/{repo.full_name}",
                "fork": repo.parent is not None}
        if repo.parent:
            data["parent"] = {"full_name": repo.parent, "url": f"{self.base_url}/repos/{repo.parent}"}
        return data

    def _pull_json(self, repo: Repo, pr: Pull) -> dict:
        api = f"{self.base_url}/repos/{repo.full_name}"
        head_repo = self.repos.get(pr.head_repo or repo.full_name, repo)
        return {"id": pr.number + 5000, "number": pr.number, "state": pr.state, "merged": pr.merged,
                "merge_commit_sha": pr.merge_commit_sha,
                "title": pr.title, "body": pr.body, "user": self._user(pr.user),
                "url": f"{api}/pulls/{pr.number}", "issue_url": f"{api}/issues/{pr.number}",
                "html_url": f"{self.root}/{repo.full_name}/pull/{pr.number}",
                "labels": [{"name": name} for name in pr.labels], "commits": pr.commits,
                "changed_files": len(pr.files) if pr.changed_files is None else pr.changed_files,
                "head": {"sha": pr.head_sha, "ref": pr.head_ref, "label": f"{head_repo.owner}:{pr.head_ref}",
                         "repo": self._repo_json(head_repo), "user": self._user(head_repo.owner)},
                "base": {"sha": repo.refs.get(f"heads/{pr.base_ref}", "0" * 40), "ref": pr.base_ref,
                         "label": f"{repo.owner}:{pr.base_ref}", "repo": self._repo_json(repo)}}

    def _head_label(self, repo: Repo, pr: Pull) -> str:
        return f"{(pr.head_repo or repo.full_name).split('/')[0]}:{pr.head_ref}"

    def _comment_json(self, repo: Repo, cid: int) -> dict:
        c = repo.comments[cid]
        return {"id": cid, "body": c["body"], "user": self._user(c["user"]),
                "url": f"{self.base_url}/repos/{repo.full_name}/issues/comments/{cid}",
                "html_url": f"{self.root}/{repo.full_name}/pull/{c['issue']}#issuecomment-{cid}",
                "created_at": T0, "updated_at": T0}

    def _tree_json(self, repo: Repo, sha: str) -> dict:
        entries = [{"path": p, **e} for p, e in sorted(repo.trees[sha].items())]
        return {"sha": sha, "url": f"{self.base_url}/repos/{repo.full_name}/git/trees/{sha}", "tree": entries,
                "truncated": False}

    def _git_commit_json(self, repo: Repo, sha: str) -> dict:
        c = repo.commits[sha]
        api = f"{self.base_url}/repos/{repo.full_name}"
        return {"sha": sha, "url": f"{api}/git/commits/{sha}", "message": c["message"],
                "tree": {"sha": c["tree"], "url": f"{api}/git/trees/{c['tree']}"},
                "parents": [{"sha": p, "url": f"{api}/git/commits/{p}"} for p in c["parents"]],
                "committer": {"name": "x", "email": "x@example.invalid", "date": c["date"]},
                "author": {"name": "x", "email": "x@example.invalid", "date": c["date"]}}

    def _ref_json(self, repo: Repo, ref: str) -> dict:
        api = f"{self.base_url}/repos/{repo.full_name}"
        return {"ref": f"refs/{ref}", "url": f"{api}/git/refs/{ref}",
                "object": {"sha": repo.refs[ref], "type": "commit", "url": f"{api}/git/commits/{repo.refs[ref]}"}}

    # ---- routing ---------------------------------------------------------------------------------------------
    def _repo(self, owner: str, name: str) -> Repo:
        repo = self.repos.get(f"{owner}/{name}")
        if repo is None:
            raise StubError(404, "Not Found")
        return repo

    def _pull(self, repo: Repo, number: str) -> Pull:
        pr = repo.pulls.get(int(number))
        if pr is None:
            raise StubError(404, "Not Found")
        return pr

    def dispatch(self, method: str, path: str, query: dict, body, login: str):  # noqa: C901 - a routing table
        m = re.match(r"^/repos/([^/]+)/([^/]+)(/.*)?$", path)
        if path == "/user" and method == "GET":
            if self.user_endpoint_forbidden:
                raise StubError(403, "Resource not accessible by integration")
            return 200, self._user(login)
        if not m:
            raise StubError(404, "Not Found")
        repo = self._repo(m.group(1), m.group(2))
        rest = m.group(3) or ""
        api = f"{self.base_url}/repos/{repo.full_name}"
        routes = [
            ("GET", r"", lambda: (200, self._repo_json(repo))),
            ("GET", r"/pulls", lambda: (200, [self._pull_json(repo, p) for p in repo.pulls.values()
                                             if query.get("state", "open") in ("all", p.state)
                                             and query.get("head") in (None, self._head_label(repo, p))])),
            ("POST", r"/pulls", lambda: self._create_pull(repo, body, login)),
            ("GET", r"/pulls/(\d+)", lambda n: (200, self._pull_json(repo, self._pull(repo, n)))),
            ("PATCH", r"/pulls/(\d+)", lambda n: self._edit_pull(repo, self._pull(repo, n), body)),
            ("GET", r"/pulls/(\d+)/files", lambda n: self._files(repo, self._pull(repo, n), query, path)),
            ("GET", r"/pulls/(\d+)/reviews", lambda n: (200, [
                {"id": i + 1, "state": r["state"], "commit_id": r["commit_id"], "submitted_at": r.get("submitted_at", T0),
                 "user": self._user(r.get("user", "maintainer")), "body": "",
                 "pull_request_url": f"{api}/pulls/{n}"}
                for i, r in enumerate(self._pull(repo, n).reviews)])),
            ("PUT", r"/pulls/(\d+)/merge", lambda n: self._merge(repo, self._pull(repo, n), body)),
            ("GET", r"/issues/(\d+)/comments", lambda n: (200, [
                self._comment_json(repo, cid) for cid, c in sorted(repo.comments.items()) if c["issue"] == int(n)])),
            ("POST", r"/issues/(\d+)/comments", lambda n: self._add_comment(repo, int(n), body, login)),
            ("PATCH", r"/issues/comments/(\d+)", lambda cid: self._edit_comment(repo, int(cid), body, login)),
            ("DELETE", r"/issues/comments/(\d+)", lambda cid: self._delete_comment(repo, int(cid), login)),
            ("GET", r"/issues/(\d+)/labels", lambda n: (200, [
                {"name": name, "url": f"{api}/labels/{name}", "color": "ededed"} for name in self._pull(repo, n).labels])),
            ("POST", r"/issues/(\d+)/labels", lambda n: self._add_labels(repo, self._pull(repo, n), body, login)),
            ("DELETE", r"/issues/(\d+)/labels/([^/]+)", lambda n, name: self._remove_label(repo, self._pull(repo, n), name)),
            ("GET", r"/issues/(\d+)/events", lambda n: (200, [
                {"id": i + 1, "event": e["event"], "created_at": e["created_at"],
                 "actor": self._user(e.get("actor", "maintainer")),
                 "label": {"name": e["label"], "color": "ededed"} if e.get("label") else None,
                 "url": f"{api}/issues/events/{i + 1}"}
                for i, e in enumerate(self._pull(repo, n).events)])),
            ("GET", r"/contents/(.+)", lambda p: self._contents(repo, urllib.parse.unquote(p), query)),
            ("GET", r"/commits/([0-9a-f]{40})", lambda sha: self._commit(repo, sha)),
            ("GET", r"/commits/([0-9a-f]{40})/check-runs", lambda sha: (200, {
                "total_count": len(repo.checks.get(sha, [])),
                "check_runs": [{"id": i + 1, "name": c["name"], "status": c["status"], "conclusion": c["conclusion"],
                                "head_sha": sha, "app": {"id": 15368, "slug": c.get("app", "github-actions"),
                                                         "name": c.get("app", "github-actions")},
                                "check_suite": {"id": c.get("suite", 0)},
                                "url": f"{api}/check-runs/{i + 1}"}
                               for i, c in enumerate(repo.checks.get(sha, []))]})),
            ("GET", r"/commits/([0-9a-f]{40})/status", lambda sha: (200, self._combined(repo, sha))),
            ("GET", r"/commits/([0-9a-f]{40})/pulls", lambda sha: (200, [
                self._pull_json(repo, p) for p in repo.pulls.values()
                if sha in (p.head_sha, p.merge_commit_sha)])),
            ("POST", r"/forks", lambda: self._fork(repo, login)),
            ("GET", r"/collaborators/([^/]+)/permission", lambda who: self._permission(repo, urllib.parse.unquote(who))),
            ("GET", r"/actions/runs", lambda: (200, self._runs(repo, query))),
            ("GET", r"/actions/runs/(\d+)", lambda rid: self._run(repo, int(rid))),
            ("GET", r"/actions/runs/(\d+)/artifacts", lambda rid: (200, self._run_artifacts(repo, int(rid), query.get("name")))),
            ("GET", r"/actions/artifacts/(\d+)/zip", lambda aid: self._artifact_zip(repo, int(aid))),
            ("GET", r"/branches/([^/]+)", lambda b: self._branch(repo, b)),
            ("GET", r"/git/commits/([0-9a-f]{40})", lambda sha: self._get_git_commit(repo, sha)),
            ("POST", r"/git/commits", lambda: self._create_git_commit(repo, body)),
            ("POST", r"/git/blobs", lambda: self._create_blob(repo, body)),
            ("GET", r"/git/blobs/([0-9a-f]{40})", lambda sha: (200, {
                "sha": sha, "encoding": "base64", "content": base64.b64encode(repo.blobs[sha]).decode(),
                "size": len(repo.blobs[sha]), "url": f"{api}/git/blobs/{sha}"})),
            ("POST", r"/git/trees", lambda: self._create_tree(repo, body)),
            ("GET", r"/git/trees/([0-9a-f]{40})", lambda sha: (200, self._tree_json(repo, sha)) if sha in repo.trees
             else (_ for _ in ()).throw(StubError(404, "Not Found"))),
            ("POST", r"/git/refs", lambda: self._create_ref(repo, body)),
            ("GET", r"/git/ref/(.+)", lambda ref: (200, self._ref_json(repo, ref)) if ref in repo.refs
             else (_ for _ in ()).throw(StubError(404, "Not Found"))),
            ("PATCH", r"/git/refs/(.+)", lambda ref: self._update_ref(repo, ref, body)),
            ("POST", r"/actions/workflows/([^/]+)/dispatches", lambda wf: self._dispatch_workflow(
                repo, urllib.parse.unquote(wf), body, login)),
            ("POST", r"/statuses/([0-9a-f]{40})", lambda sha: self._add_status(repo, sha, body)),
            ("GET", r"/commits/([0-9a-f]{40})/statuses", lambda sha: (200, [
                {"context": s["context"], "state": s["state"], "id": i + 1}
                for i, s in enumerate(repo.statuses.get(sha, []))])),
            ("POST", r"/check-runs", lambda: self._add_check_run(repo, body)),
            ("POST", r"/pages/deployments", lambda: self._deploy_pages(repo, body)),
            ("GET", r"/pages/deployments/(\d+)", lambda did: self._pages_deployment(repo, int(did))),
            ("GET", r"/releases/tags/(.+)", lambda tag: self._release_by_tag(repo, urllib.parse.unquote(tag))),
            ("HEAD", r"/releases/tags/(.+)", lambda tag: self._release_by_tag(repo, urllib.parse.unquote(tag))),
            ("GET", r"/releases", lambda: (200, [self._release_json(repo, rid) for rid in sorted(repo.releases,
                                                                                           reverse=True)])),
            ("POST", r"/releases", lambda: self._create_release(repo, body, login)),
            ("PATCH", r"/releases/(\d+)", lambda rid: self._update_release(repo, int(rid), body, login)),
            ("DELETE", r"/releases/(\d+)", lambda rid: self._delete_release(repo, int(rid), login)),
            ("GET", r"/releases/(\d+)/assets", lambda rid: (200, self._release_json(repo, int(rid))["assets"])),
            ("DELETE", r"/releases/assets/(\d+)", lambda aid: self._delete_asset(repo, int(aid))),
            ("GET", r"/pages", lambda: (200, {"url": f"{api}/pages", "status": "built", "build_type": "workflow",
                                             "html_url": self._pages_url(repo)})),
        ]
        for verb, pattern, handler in routes:
            hit = re.fullmatch(pattern, rest)
            if verb == method and hit:
                return handler(*hit.groups())
        raise StubError(404, f"Not Found: {method} {rest}")

    # ---- releases (gh release view / create / upload) -----------------------------------------------------------
    def _release_json(self, repo: Repo, rid: int) -> dict:
        rel = repo.releases.get(rid)
        if rel is None:
            raise StubError(404, "Not Found")
        api = f"{self.base_url}/repos/{repo.full_name}"
        return {"id": rid, "tag_name": rel["tag_name"], "name": rel["name"], "draft": rel.get("draft", False),
                "prerelease": False,
                "author": self._user(rel["author"]), "url": f"{api}/releases/{rid}",
                "html_url": f"{self.root}/{repo.full_name}/releases/tag/{rel['tag_name']}",
                "upload_url": f"{self.root}/uploads/repos/{repo.full_name}/releases/{rid}/assets{{?name,label}}",
                "assets": [{"id": aid, "name": a["name"], "size": len(a["data"]), "state": "uploaded",
                            "uploader": self._user(a["uploader"]), "url": f"{api}/releases/assets/{aid}"}
                           for aid, a in sorted(rel["assets"].items())]}

    def _release_by_tag(self, repo: Repo, tag: str):
        """GitHub's "get a release by tag name" finds published releases only (a draft has no tag yet)."""
        for rid, rel in repo.releases.items():
            if rel["tag_name"] == tag and not rel.get("draft"):
                return 200, self._release_json(repo, rid)
        raise StubError(404, "Not Found")

    def _create_release(self, repo: Repo, body: dict, login: str):
        tag = body.get("tag_name") or ""
        if any(rel["tag_name"] == tag for rel in repo.releases.values()):
            raise StubError(422, "Validation Failed: tag_name already_exists")
        rid = max(repo.releases, default=0) + 1
        repo.releases[rid] = {"tag_name": tag, "name": body.get("name") or tag, "author": login, "assets": {},
                              "generate_release_notes": bool(body.get("generate_release_notes")),
                              "target_commitish": body.get("target_commitish"), "draft": bool(body.get("draft"))}
        repo.release_log.append(("create", rid, tag, bool(body.get("draft"))))
        return 201, self._release_json(repo, rid)

    def _update_release(self, repo: Repo, rid: int, body: dict, login: str):
        """PATCH .../releases/ID: `draft: false` publishes a draft (gh does it after the uploads)."""
        rel = repo.releases.get(rid)
        if rel is None:
            raise StubError(404, "Not Found")
        if "draft" in body:
            rel["draft"] = bool(body["draft"])
        for key in ("name", "tag_name"):
            if body.get(key):
                rel[key] = body[key]
        repo.release_log.append(("update", rid, rel["tag_name"], rel["draft"]))
        return 200, self._release_json(repo, rid)

    def _delete_release(self, repo: Repo, rid: int, login: str):
        if repo.releases.pop(rid, None) is None:
            raise StubError(404, "Not Found")
        repo.release_log.append(("delete", rid, "", False))
        return 204, None

    def _delete_asset(self, repo: Repo, aid: int):
        for rel in repo.releases.values():
            if rel["assets"].pop(aid, None) is not None:
                return 204, None
        raise StubError(404, "Not Found")

    def upload_asset(self, token: str, path: str, query: dict, data: bytes,
                     client: tuple | None = None) -> tuple[int, dict]:
        """POST <root>/uploads/repos/o/r/releases/ID/assets?name=N (GitHub's uploads host): binary body."""
        m = re.fullmatch(r"/uploads(/repos/([^/]+)/([^/]+)/releases/(\d+)/assets)", path)
        login = self.tokens.get(token)
        if m is None:
            return 404, {"message": "Not Found"}
        if login is None:
            return 401, {"message": "Bad credentials"}
        if not self._allowed(token, "POST", m.group(1), client):
            self.refused.append(Recorded("POST", m.group(1), query, {}))
            return 403, {"message": "Resource not accessible by integration"}
        repo = self.repos.get(f"{m.group(2)}/{m.group(3)}")
        rel = repo.releases.get(int(m.group(4))) if repo else None
        name = query.get("name")
        if rel is None or not name:
            return 404, {"message": "Not Found"}
        if any(a["name"] == name for a in rel["assets"].values()):
            return 422, {"message": "Validation Failed: already_exists"}
        aid = max((a for r in repo.releases.values() for a in r["assets"]), default=0) + 1
        rel["assets"][aid] = {"name": name, "data": data, "uploader": login, "while_draft": bool(rel.get("draft"))}
        repo.release_log.append(("upload", int(m.group(4)), name, bool(rel.get("draft"))))
        return 201, {"id": aid, "name": name, "size": len(data), "state": "uploaded"}

    # ---- requests without a token -----------------------------------------------------------------------------
    def _anonymous(self, method: str, path: str, query: dict, body) -> tuple[int, dict | list | None, dict]:
        """A request with no Authorization header, answered as GitHub does: a read (GET/HEAD) of a public
        repository is served (GitHub only rate-limits it); a private repository is hidden (404, as if absent); a
        write, or anything outside /repos (`/user`), wants credentials (401 "Requires authentication"). A token
        GitHub does not know is a different case: 401 "Bad credentials" even for a public read."""
        m = re.match(r"^/repos/([^/]+)/([^/]+)(/.*)?$", path)
        if method not in ("GET", "HEAD") or m is None:
            return 401, {"message": "Requires authentication"}, {}
        repo = self.repos.get(f"{m.group(1)}/{m.group(2)}")
        if repo is None or repo.private:
            return 404, {"message": "Not Found"}, {}
        self._token = ""
        try:
            status, payload, *extra = self.dispatch("GET", path, query, body, "")
        except StubError as exc:
            return exc.status, {"message": exc.message}, {}
        return status, payload, (extra[0] if extra else {})

    # ---- the GITHUB_TOKEN's scopes -----------------------------------------------------------------------------
    NEEDS = [   # (methods, path under /repos/o/r, alternatives that allow it); the first match decides
        ("GET", r"/commits/[0-9a-f]{40}/pulls", [("pull-requests", "read")]),
        ("GET", r"/commits/[0-9a-f]{40}/check-runs", [("checks", "read")]),
        ("GET", r"/commits/[0-9a-f]{40}/status(es)?", [("statuses", "read")]),
        ("PUT", r"/pulls/\d+/merge", [("contents", "write")]),
        ("GET", r"/pulls(/.*)?", [("pull-requests", "read")]),
        ("POST PATCH", r"/pulls(/.*)?", [("pull-requests", "write")]),
        ("GET", r"/issues/.*", [("issues", "read"), ("pull-requests", "read")]),
        ("POST PATCH DELETE", r"/issues/.*", [("issues", "write"), ("pull-requests", "write")]),
        ("GET", r"/(contents|commits|git|branches)/.*", [("contents", "read")]),
        ("POST PATCH", r"/git/.*", [("contents", "write")]),
        ("POST", r"/check-runs", [("checks", "write")]),
        ("POST", r"/statuses/.*", [("statuses", "write")]),
        ("POST", r"/actions/workflows/[^/]+/dispatches", [("actions", "write")]),
        ("GET", r"/actions/.*", [("actions", "read")]),
        ("POST", r"/pages/deployments", [("pages", "write")]),
        ("GET", r"/releases(/.*)?", [("contents", "read")]),
        ("POST PATCH DELETE", r"/releases(/.*)?", [("contents", "write")]),
        ("GET", r"/pages(/.*)?", [("pages", "read")]),
    ]

    def granted(self, token: str, client: tuple | None = None, server_port: int | None = None) -> dict | None:
        """The scopes of `token` for a request from `client` (host, port) to `server_port` (default: this
        stand-in's): a PerJob entry (several jobs with different permissions running with one token) answers for
        the job whose process sent the request."""
        granted = self.scopes.get(token)
        if isinstance(granted, PerJob):
            port = server_port or self.server.server_address[1]
            return granted.for_client(client, port) if client else PerJob.NOTHING
        return granted

    def _allowed(self, token: str, method: str, path: str, client: tuple | None = None) -> bool:
        granted = self.granted(token, client)
        if granted is None:
            return True
        method = "GET" if method == "HEAD" else method
        m = re.match(r"^/repos/[^/]+/[^/]+(/.*)?$", path)
        rest = (m.group(1) or "") if m else None
        if rest is None:
            return True
        for methods, pattern, needs in self.NEEDS:
            if method in methods.split() and re.fullmatch(pattern, rest):
                levels = {"none": 0, "read": 1, "write": 2}
                return any(levels[granted.get(scope, "none")] >= levels[level] for scope, level in needs)
        return True   # metadata (the repository, collaborators' permission) is always readable

    # ---- a bare repository behind the stand-in (the workflow harness) ---------------------------------------
    def _git(self, repo: Repo, *args: str, check: bool = True) -> str:
        import subprocess

        proc = subprocess.run(["git", "-C", str(repo.git_dir), *args], capture_output=True, text=True,
                              env={"GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin",
                                   "GIT_AUTHOR_NAME": "GitHub", "GIT_AUTHOR_EMAIL": "noreply@github.com",
                                   "GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"})
        if check and proc.returncode:
            raise StubError(422, f"git {args[0]}: {proc.stderr.strip()}")
        return proc.stdout if not check else proc.stdout.strip()

    def _git_merge(self, repo: Repo, pr: Pull, body) -> str:
        """Merge the PR's head into the base branch of the bare repository, as GitHub's merge button does (a merge
        commit; `squash` keeps the merged tree on one parent), and move the branch."""
        base = self._git(repo, "rev-parse", f"refs/heads/{pr.base_ref}")
        tree = self._git(repo, "merge-tree", "--write-tree", base, pr.head_sha, check=False)
        lines = tree.splitlines()
        if not lines or not re.fullmatch(r"[0-9a-f]{40}", lines[0]) or len(lines) > 1:
            raise StubError(405, "Pull Request is not mergeable")
        title = body.get("commit_title") or f"Merge pull request #{pr.number} from {pr.head_ref}"
        parents = ["-p", base] if body.get("merge_method") in ("squash", "rebase") else ["-p", base, "-p", pr.head_sha]
        sha = self._git(repo, "commit-tree", lines[0], *parents, "-m", title)
        self._git(repo, "update-ref", f"refs/heads/{pr.base_ref}", sha, base)
        repo.refs[f"heads/{pr.base_ref}"] = sha
        return sha

    def _dispatch_workflow(self, repo: Repo, workflow: str, body, login: str):
        """POST .../actions/workflows/{file}/dispatches: GitHub checks the file exists on `ref` with a
        workflow_dispatch trigger and that the inputs are declared, answers 204 and starts the run."""
        ref = str(body.get("ref") or repo.default_branch)
        inputs = body.get("inputs") or {}
        if repo.git_dir is not None:
            import yaml

            short = ref.removeprefix("refs/heads/")
            text = self._git(repo, "show", f"refs/heads/{short}:.github/workflows/{workflow}", check=False)
            if not text:
                raise StubError(404, "Not Found")
            data = yaml.safe_load(text) or {}
            on = data.get("on", data.get(True))
            on = {on: None} if isinstance(on, str) else dict.fromkeys(on) if isinstance(on, list) else (on or {})
            if "workflow_dispatch" not in on:
                raise StubError(422, "Workflow does not have 'workflow_dispatch' trigger")
            declared = ((on.get("workflow_dispatch") or {}).get("inputs") or {})
            unexpected = sorted(set(inputs) - set(declared))
            if unexpected:
                raise StubError(422, f"Unexpected inputs provided: {unexpected}")
        self.events.append({"event": "workflow_dispatch", "workflow": workflow, "ref": ref, "inputs": inputs,
                            "login": login, "token": self._token})
        return 204, None

    def _add_status(self, repo: Repo, sha: str, body):
        repo.statuses.setdefault(sha, []).append({"context": body.get("context", "default"), "state": body["state"]})
        return 201, {"context": body.get("context", "default"), "state": body["state"]}

    def _add_check_run(self, repo: Repo, body):
        runs = repo.checks.setdefault(body["head_sha"], [])
        runs.append({"name": body["name"], "status": body.get("status", "queued"),
                     "conclusion": body.get("conclusion"), "app": "github-actions"})
        return 201, {"id": len(runs), "name": body["name"], "head_sha": body["head_sha"]}

    def _pages_url(self, repo: Repo) -> str:
        return f"http://{repo.owner}.github.localhost/{repo.name}/"

    def _deploy_pages(self, repo: Repo, body):
        """POST .../pages/deployments: wants an OIDC token this stand-in issued (a job with `id-token: write`)
        and an artifact id (deploy-pages sends the id the artifact service gave it; act's artifact server numbers
        them itself, so the harness checks the artifact from its files after the run)."""
        if body.get("oidc_token") not in self.oidc_issued:
            raise StubError(400, "The OIDC token is missing or was not issued for this run")
        if not str(body.get("artifact_id") or "").isdigit():
            raise StubError(422, "artifact_id must name the run's Pages artifact")
        did = next(self.ids)
        repo.deployments.append({"id": did, "artifact_id": int(body["artifact_id"]),
                                 "build_version": body.get("pages_build_version")})
        api = f"{self.base_url}/repos/{repo.full_name}"
        return 200, {"id": did, "status_url": f"{api}/pages/deployments/{did}", "page_url": self._pages_url(repo)}

    def _pages_deployment(self, repo: Repo, did: int):
        if not any(d["id"] == did for d in repo.deployments):
            raise StubError(404, "Not Found")
        return 200, {"status": "succeed"}

    def _oidc_token(self, token: str, client: tuple | None = None) -> tuple[int, dict]:
        """The runtime's OIDC endpoint (ACTIONS_ID_TOKEN_REQUEST_URL): only a job granted `id-token: write`."""
        granted = self.granted(token, client)
        if token not in self.tokens or granted is None or granted.get("id-token") != "write":
            return 403, {"message": "id-token: write is not granted to this job"}
        value = f"oidc-{next(self.ids)}"
        self.oidc_issued.add(value)
        return 200, {"value": value}

    # ---- endpoint bodies -------------------------------------------------------------------------------------
    def _add_comment(self, repo: Repo, number: int, body, login: str):
        self._pull(repo, str(number))
        cid = next(self.ids)
        repo.comments[cid] = {"issue": number, "user": login, "body": body["body"]}
        return 201, self._comment_json(repo, cid)

    def _edit_comment(self, repo: Repo, cid: int, body, login: str):
        if cid not in repo.comments:
            raise StubError(404, "Not Found")
        if repo.comments[cid]["user"] != login:
            raise StubError(403, "not your comment")
        repo.comments[cid]["body"] = body["body"]
        return 200, self._comment_json(repo, cid)

    def _delete_comment(self, repo: Repo, cid: int, login: str):
        if repo.comments.get(cid, {}).get("user") != login:
            raise StubError(403, "not your comment")
        del repo.comments[cid]
        return 204, None

    def _add_labels(self, repo: Repo, pr: Pull, body, login: str):
        names = body["labels"] if isinstance(body, dict) else body
        for name in names:
            if name.casefold() not in {n.casefold() for n in pr.labels}:
                pr.labels.append(name)
                pr.events.append({"event": "labeled", "label": name, "created_at": T0, "actor": login})
                self.events.append({"event": "pull_request", "action": "labeled", "number": pr.number,
                                    "label": name, "login": login, "token": self._token})
        return 200, [{"name": n, "url": f"{self.base_url}/repos/{repo.full_name}/labels/{n}"} for n in pr.labels]

    def _remove_label(self, repo: Repo, pr: Pull, name: str):
        name = urllib.parse.unquote(name)
        same = [n for n in pr.labels if n.casefold() == name.casefold()]  # GitHub ignores letter case here
        if not same:
            raise StubError(404, "Label does not exist")
        pr.labels.remove(same[0])
        name = same[0]
        pr.events.append({"event": "unlabeled", "label": name, "created_at": T0})
        return 200, [{"name": n} for n in pr.labels]

    FILES_LIMIT = 3000   # GitHub lists at most 3,000 files of a PR

    def _files(self, repo: Repo, pr: Pull, query: dict, path: str):
        """Paginated like GitHub (per_page up to 100, a Link header to the next page), cut at 3,000 files."""
        per_page = min(int(query.get("per_page", 30)), 100)
        page = max(int(query.get("page", 1)), 1)
        listed = pr.files[: self.FILES_LIMIT]
        chunk = listed[(page - 1) * per_page: page * per_page]
        out = []
        for entry in chunk:
            filename, status, *rest = entry
            item = {"filename": filename, "status": status, "sha": fake_sha(filename), "additions": 1,
                    "deletions": 0, "changes": 1}
            if rest and rest[0]:
                item["previous_filename"] = rest[0]
            out.append(item)
        headers = {}
        if page * per_page < len(listed):
            nxt = urllib.parse.urlencode({**query, "page": page + 1, "per_page": per_page})
            headers["Link"] = f'<{self.root}{PREFIX}{path}?{nxt}>; rel="next"'
        return 200, out, headers

    def _permission(self, repo: Repo, login: str):
        permission = repo.permissions.get(login, "read")
        legacy = {"maintain": "write", "triage": "read"}.get(permission, permission)
        return 200, {"permission": legacy, "role_name": permission, "user": self._user(login)}

    def _runs(self, repo: Repo, query: dict) -> dict:
        """Workflow runs, newest first, filtered like GitHub by `head_sha` and `event`."""
        found = [self._run(repo, rid)[1] for rid in sorted(repo.runs, reverse=True)
                 if query.get("head_sha") in (None, repo.runs[rid]["head_sha"])
                 and query.get("event") in (None, repo.runs[rid].get("event", "pull_request"))]
        return {"total_count": len(found), "workflow_runs": found}

    def _artifact_json(self, repo: Repo, aid: int) -> dict:
        a = repo.artifacts[aid]
        api = f"{self.base_url}/repos/{repo.full_name}"
        run = repo.runs.get(a["run"], {})
        return {"id": aid, "node_id": f"A{aid}", "name": a.get("name", "validate-report"),
                "size_in_bytes": a.get("size", len(a["data"])), "expired": a.get("expired", False),
                "url": f"{api}/actions/artifacts/{aid}", "archive_download_url": f"{api}/actions/artifacts/{aid}/zip",
                "created_at": T0, "updated_at": T0, "expires_at": "2026-12-31T00:00:00Z",
                "workflow_run": {"id": a.get("claims_run", a["run"]), "head_sha": a.get("head_sha", run.get("head_sha")),
                                 "head_branch": run.get("head_branch", "feature"), "repository_id": 2,
                                 "head_repository_id": 1}}

    def _run_artifacts(self, repo: Repo, run_id: int, name: str | None = None) -> dict:
        """A run's artifacts; like GitHub, `?name=` keeps only those of that exact name (download-artifact asks so)."""
        if run_id not in repo.runs:
            raise StubError(404, "Not Found")
        found = [self._artifact_json(repo, aid) for aid in sorted(repo.artifacts) if repo.artifacts[aid]["run"] == run_id
                 and name in (None, repo.artifacts[aid].get("name", "validate-report"))]
        return {"total_count": len(found), "artifacts": found}

    def _artifact_zip(self, repo: Repo, aid: int):
        """Like GitHub: a redirect to a short-lived storage URL, which wants no token."""
        if aid not in repo.artifacts:
            raise StubError(404, "Not Found")
        return 302, None, {"Location": self.artifact_redirect or f"{self.root}/blob/{repo.full_name}/{aid}?sig=signed"}

    def _serve_blob(self, path: str) -> bytes | None:
        m = re.fullmatch(r"/blob/([^/]+)/([^/]+)/(\d+)", path)
        repo = self.repos.get(f"{m.group(1)}/{m.group(2)}") if m else None
        artifact = repo.artifacts.get(int(m.group(3))) if repo else None
        return None if artifact is None else artifact["data"]

    def _run(self, repo: Repo, run_id: int):
        run = repo.runs.get(run_id)
        if run is None:
            raise StubError(404, "Not Found")
        api = f"{self.base_url}/repos/{repo.full_name}"
        head_repo = self.repos[run.get("head_repo") or repo.full_name]
        pulls = []
        for number in run.get("pull_requests", []):
            pr = self._pull(repo, str(number))
            pulls.append({"url": f"{api}/pulls/{number}", "id": number + 5000, "number": number,
                          "head": {"ref": pr.head_ref, "sha": pr.head_sha,
                                   "repo": {"id": 1, "url": f"{self.base_url}/repos/{head_repo.full_name}",
                                            "name": head_repo.name}},
                          "base": {"ref": pr.base_ref, "sha": "0" * 40,
                                   "repo": {"id": 2, "url": api, "name": repo.name}}})
        return 200, {"id": run_id, "name": run.get("name", "validate"), "event": run.get("event", "pull_request"),
                     "status": run.get("status", "completed"), "conclusion": run.get("conclusion", "success"),
                     "check_suite_id": run.get("suite", 0), "run_attempt": 1,
                     "artifacts_url": f"{api}/actions/runs/{run_id}/artifacts",
                     "head_sha": run["head_sha"], "head_branch": run.get("head_branch", "feature"),
                     "head_repository": self._repo_json(head_repo), "repository": self._repo_json(repo),
                     "pull_requests": pulls, "url": f"{api}/actions/runs/{run_id}",
                     "html_url": f"{self.root}/{repo.full_name}/actions/runs/{run_id}"}

    def _merge(self, repo: Repo, pr: Pull, body):
        if body.get("sha") and body["sha"] != pr.head_sha:
            raise StubError(409, "Head branch was modified. Review and try the merge again.")
        if pr.state != "open":
            raise StubError(405, "Pull Request is not mergeable")
        if repo.git_dir is not None:
            pr.merge_commit_sha = self._git_merge(repo, pr, body)
            self.events.append({"event": "push", "ref": f"refs/heads/{pr.base_ref}", "after": pr.merge_commit_sha,
                                "token": self._token, "login": self.tokens.get(self._token)})
        else:
            pr.merge_commit_sha = fake_sha("merge", pr.number)
        pr.merged, pr.state = True, "closed"
        return 200, {"sha": pr.merge_commit_sha, "merged": True, "message": "Pull Request successfully merged"}

    def _contents(self, repo: Repo, path: str, query: dict):
        ref = query.get("ref", repo.default_branch)
        data = repo.contents.get((ref, path))
        if data is None and repo.git_dir is not None:
            import subprocess

            proc = subprocess.run(["git", "-C", str(repo.git_dir), "show", f"{ref}:{path}"], capture_output=True)
            data = proc.stdout if proc.returncode == 0 else None
        if data is None:
            raise StubError(404, "Not Found")
        large = len(data) > self.large_file_bytes
        return 200, {"type": "file", "encoding": "none" if large else "base64",
                     "content": "" if large else base64.b64encode(data).decode(),
                     "size": len(data), "name": path.rsplit("/", 1)[-1], "path": path, "sha": git_blob_sha(data),
                     "url": f"{self.base_url}/repos/{repo.full_name}/contents/{path}?ref={ref}"}

    def _commit(self, repo: Repo, sha: str):
        if (sha not in repo.commits and repo.git_dir is not None
                and self._git(repo, "cat-file", "-t", sha, check=False).strip() == "commit"):
            repo.commits[sha] = {"date": T0, "tree": fake_sha("tree", sha), "parents": [],
                                 "message": self._git(repo, "log", "-1", "--format=%B", sha)}
        if sha not in repo.commits:
            raise StubError(404, "No commit found")
        return 200, {"sha": sha, "url": f"{self.base_url}/repos/{repo.full_name}/commits/{sha}",
                     "commit": self._git_commit_json(repo, sha), "files": [], "parents": []}

    def _combined(self, repo: Repo, sha: str) -> dict:
        statuses = repo.statuses.get(sha, [])
        states = {s["state"] for s in statuses}
        state = ("failure" if states & {"failure", "error"} else "pending" if "pending" in states or not statuses
                 else "success")
        return {"state": state, "total_count": len(statuses), "sha": sha,
                "statuses": [{"context": s["context"], "state": s["state"], "id": i + 1} for i, s in enumerate(statuses)],
                "url": f"{self.base_url}/repos/{repo.full_name}/commits/{sha}/status"}

    def _fork(self, repo: Repo, login: str):
        name = f"{login}/{repo.name}"
        fork = self.repos.get(name)
        if fork is None:
            fork = self.add_repo(name, parent=repo.full_name, default_branch=repo.default_branch)
            # GitHub forks share the object store of their network; copy it here.
            fork.commits, fork.trees, fork.blobs = repo.commits, repo.trees, repo.blobs
            fork.refs = dict(repo.refs)
        return 202, self._repo_json(fork)

    def _branch(self, repo: Repo, branch: str):
        sha = repo.refs.get(f"heads/{branch}")
        if sha is None:
            raise StubError(404, "Branch not found")
        return 200, {"name": branch, "protected": False,
                     "commit": {"sha": sha, "url": f"{self.base_url}/repos/{repo.full_name}/commits/{sha}"}}

    def _get_git_commit(self, repo: Repo, sha: str):
        if sha not in repo.commits:
            raise StubError(404, "Not Found")
        return 200, self._git_commit_json(repo, sha)

    def _create_git_commit(self, repo: Repo, body):
        if body["tree"] not in repo.trees or any(p not in repo.commits for p in body.get("parents", [])):
            raise StubError(422, "Tree or parent SHA does not exist")
        sha = fake_sha("commit", body, next(self.ids))
        repo.commits[sha] = {"date": T0, "tree": body["tree"], "parents": body.get("parents", []),
                             "message": body["message"]}
        return 201, self._git_commit_json(repo, sha)

    def _create_blob(self, repo: Repo, body):
        data = base64.b64decode(body["content"]) if body.get("encoding") == "base64" else body["content"].encode()
        sha = git_blob_sha(data)
        repo.blobs[sha] = data
        return 201, {"sha": sha, "url": f"{self.base_url}/repos/{repo.full_name}/git/blobs/{sha}"}

    def _create_tree(self, repo: Repo, body):
        tree = dict(repo.trees[body["base_tree"]]) if body.get("base_tree") else {}
        for entry in body["tree"]:
            if entry.get("sha") is None:
                tree.pop(entry["path"], None)
                continue
            if entry["sha"] not in repo.blobs:
                raise StubError(422, f"blob {entry['sha']} does not exist")
            tree[entry["path"]] = {"mode": entry["mode"], "type": entry["type"], "sha": entry["sha"]}
        sha = fake_sha("tree", sorted(tree.items()))
        repo.trees[sha] = tree
        return 201, self._tree_json(repo, sha)

    def _create_ref(self, repo: Repo, body):
        ref = body["ref"].removeprefix("refs/")
        if ref in repo.refs:
            raise StubError(422, "Reference already exists")
        if body["sha"] not in repo.commits:
            raise StubError(422, "Object does not exist")
        repo.refs[ref] = body["sha"]
        return 201, self._ref_json(repo, ref)

    def _update_ref(self, repo: Repo, ref: str, body):
        if ref not in repo.refs:
            raise StubError(422, "Reference does not exist")
        repo.refs[ref] = body["sha"]
        return 200, self._ref_json(repo, ref)

    def _edit_pull(self, repo: Repo, pr: Pull, body):
        pr.title = body.get("title", pr.title)
        pr.body = body.get("body", pr.body)
        return 200, self._pull_json(repo, pr)

    def _create_pull(self, repo: Repo, body, login: str):
        owner, _, branch = body["head"].partition(":")
        head_repo = self.repos.get(f"{owner}/{repo.name}") if branch else repo
        branch = branch or body["head"]
        if head_repo is None or f"heads/{branch}" not in head_repo.refs:
            raise StubError(422, "Validation Failed: head does not exist")
        for pr in repo.pulls.values():
            if pr.state == "open" and pr.head_repo == head_repo.full_name and pr.head_ref == branch:
                raise StubError(422, f"A pull request already exists for {body['head']}.")
        number = max(repo.pulls, default=0) + 1
        pr = Pull(number, login, head_repo.refs[f"heads/{branch}"], head_ref=branch, head_repo=head_repo.full_name,
                  base_ref=body["base"], title=body["title"], body=body.get("body") or "")
        repo.pulls[number] = pr
        return 201, self._pull_json(repo, pr)

    # ---- HTTP ------------------------------------------------------------------------------------------------
    def _handler_class(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def setup(self):
                super().setup()
                # Headers and body go out in two writes; without this, Nagle + delayed ACK add ~40 ms a request.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _serve(self):
                parts = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw and not parts.path.startswith("/uploads/") else {}
                query = dict(urllib.parse.parse_qsl(parts.query))
                path = parts.path
                status, payload, headers = 404, {"message": "Not Found"}, {}
                with stub.lock:
                    if path == "/_oidc/token":   # the runner's OIDC endpoint, for deploy-pages
                        auth = self.headers.get("Authorization", "")
                        stub.requests.append(Recorded(self.command, path, query, body))
                        status, payload = stub._oidc_token(auth.split(" ", 1)[-1], self.client_address)
                        self._send_json(status, payload)
                        return
                    if path.startswith("/uploads/"):   # the uploads host: a release asset's bytes, not JSON
                        auth = self.headers.get("Authorization", "")
                        token = auth.split(" ", 1)[1] if " " in auth else ""
                        stub.requests.append(Recorded(self.command, path, query, {}))
                        status, payload = stub.upload_asset(token, path, query, raw, self.client_address)
                        self._send_json(status, payload)
                        return
                    if path.startswith("/blob/"):  # the artifact storage host: no token wanted
                        stub.blob_requests.append({"path": path, "authorization": self.headers.get("Authorization")})
                        self._send_bytes(stub._serve_blob(path))
                        return
                    stub.requests.append(Recorded(self.command, path.removeprefix(PREFIX), query, body))
                    auth = self.headers.get("Authorization", "")
                    token = auth.split(" ", 1)[1] if " " in auth else ""
                    login = stub.tokens.get(token)
                    anonymous = not auth.strip()
                    if not path.startswith(PREFIX + "/"):
                        status, payload = 404, {"message": "wrong base path"}
                    elif anonymous:
                        status, payload, headers = stub._anonymous(self.command, path.removeprefix(PREFIX), query,
                                                                   body)
                    elif login is None:
                        status, payload = 401, {"message": "Bad credentials"}
                    elif not stub._allowed(token, self.command, path.removeprefix(PREFIX), self.client_address):
                        status, payload = 403, {"message": "Resource not accessible by integration"}
                        stub.refused.append(Recorded(self.command, path.removeprefix(PREFIX), query, body))
                    else:
                        stub._token = token
                        try:
                            status, payload, *extra = stub.dispatch(self.command, path.removeprefix(PREFIX), query,
                                                                    body, login)
                            headers = extra[0] if extra else {}
                        except StubError as exc:
                            status, payload = exc.status, {"message": exc.message}
                data = b"" if payload is None else json.dumps(payload).encode()
                self.send_response(status)
                if data:  # like GitHub, an empty answer (a redirect, a 204) is not labelled JSON: clients parse it
                    self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _send_json(self, status: int, payload) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send_bytes(self, data: bytes | None):
                self.send_response(404 if data is None else 200)
                self.send_header("Content-Type", "application/zip")
                self.send_header("Content-Length", str(len(data or b"")))
                self.end_headers()
                self.wfile.write(data or b"")

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

            def do_HEAD(self):   # GitHub answers HEAD like GET, without the body (gh asks whether a release exists)
                raw, self.wfile = self.wfile, _NoBody(self.wfile)
                try:
                    self._serve()
                finally:
                    self.wfile = raw

        return Handler
