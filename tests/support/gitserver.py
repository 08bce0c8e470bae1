"""A real HTTP server on 127.0.0.1 that serves real git repositories the way GitHub does.

Layouts:
- raw:      GET /<owner>/<repo>/<ref>/<path>   -> bytes of `git show <ref>:<path>` (ref = branch, tag or sha)
- codeload: GET /<owner>/<repo>/tar.gz/<ref>   -> `git archive --format=tar.gz --prefix=<repo>-<sha>/ <ref>`
            (or the bytes `serve_tarball` planted for that commit: hostile archives git cannot make;
            `serve_raw` likewise plants a raw file's bytes)
- REST API: GET /repos/<owner>/<repo>/commits/<ref> -> {"sha": ..., "commit": {"author": {"date"}, "committer":
                {"date"}}} (dates in UTC `...Z`, as GitHub writes them; 422 for an unknown ref, as GitHub answers),
            GET /repos/<owner>/<repo>                -> {"full_name", "default_branch", "license": {"spdx_id"}}
            GET /repos/<owner>/<repo>/commits?sha=<ref>&path=<folder>&per_page=<n> -> [{"sha": ...}, ...], newest
                first, only commits that changed the folder (`git log`'s own path filtering)
            GET /repos/<owner>/<repo>/compare/<base>...<head> -> {"status": ahead|behind|identical|diverged,
                "ahead_by", "behind_by", "merge_base_commit": {"sha"}} (404 when either commit is unknown)
            GET /repos/<owner>/<repo>/tags -> [{"name", "commit": {"sha"}}, ...]

Every response carries a strong ETag (If-None-Match -> 304) and is gzip-encoded when the client asks.
Tests inject faults (`fail_next`, `truncate_next`, `rate_limit_next`, `hang_next`, `require_token`,
`redirect_to`) and read `log` to see which headers each request carried; `api_requests()` counts the REST calls
(`answered=304` only the conditional ones that were answered "not modified").
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import subprocess
import threading
import time
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.support.loopback import LoopbackHTTPServer

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Fixture", "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
    "GIT_COMMITTER_NAME": "Fixture", "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent", "PATH": "/usr/bin:/bin:/usr/local/bin",
}


def git(repo: Path, *args: str, input: bytes | None = None) -> bytes:
    """Run git in `repo` with a fixed identity and no user config; raise with stderr on failure."""
    result = subprocess.run(["git", *args], cwd=repo, env=GIT_ENV, input=input, capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.decode(errors='replace')}")
    return result.stdout


@dataclass
class Request:
    """One logged request: what arrived and what was answered."""

    method: str
    path: str
    headers: dict[str, str]
    status: int = 0
    host: str = ""

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None


@dataclass
class _Fault:
    kind: str
    count: int
    match: str | None
    arg: object = None


@dataclass
class _State:
    repos: dict[tuple[str, str], Path] = field(default_factory=dict)
    faults: list[_Fault] = field(default_factory=list)
    tokens: dict[tuple[str, str], str] = field(default_factory=dict)
    redirects: list[tuple[str, str]] = field(default_factory=list)
    licenses: dict[tuple[str, str], str] = field(default_factory=dict)
    tarballs: dict[tuple[str, str, str], bytes] = field(default_factory=dict)
    raws: dict[tuple[str, str, str, str], bytes] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class GitServer:
    """Start with `GitServer(tmp_path).start()` (or as a context manager); `url` is `http://127.0.0.1:<port>`."""

    handler_attrs: dict = {}  # extra class attributes of the request handler (a subclass's own handler and state)
    handler_base: type | None = None  # None: _Handler

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.state = _State()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # ---- lifecycle ------------------------------------------------------------------------------------------
    def start(self) -> GitServer:
        handler = type("Handler", (self.handler_base or _Handler,), {"state": self.state, **self.handler_attrs})
        self._httpd = LoopbackHTTPServer(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening (the port refuses connections afterwards: a 'network down' for the client)."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> GitServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ---- repositories ---------------------------------------------------------------------------------------
    def create_repo(self, owner: str, repo: str, files: dict[str, str | bytes] | None = None,
                    message: str = "initial", branch: str = "main") -> str:
        """`git init` a repository served as <owner>/<repo>; commit `files` (if any) and return the sha."""
        path = self.root / "repos" / owner / repo
        path.mkdir(parents=True, exist_ok=False)
        git(path, "init", "-q", "-b", branch)
        self.state.repos[(owner, repo)] = path
        return self.commit(owner, repo, files or {}, message=message, allow_empty=not files)

    def commit(self, owner: str, repo: str, files: dict[str, str | bytes], *, delete: tuple[str, ...] = (),
               message: str = "update", allow_empty: bool = False, executable: tuple[str, ...] = ()) -> str:
        """Write `files` (repo-relative path -> content), delete `delete`, commit, return the new sha."""
        path = self.repo_path(owner, repo)
        for rel, content in files.items():
            target = path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode() if isinstance(content, str) else content)
            target.chmod(0o755 if rel in executable else 0o644)
        for rel in delete:
            (path / rel).unlink()
        git(path, "add", "-A")
        git(path, "commit", "-q", "--allow-empty", "-m", message)  # unchanged files still make a commit
        return self.sha(owner, repo)

    def sha(self, owner: str, repo: str, ref: str = "HEAD") -> str:
        return git(self.repo_path(owner, repo), "rev-parse", f"{ref}^{{commit}}").decode().strip()

    def repo_path(self, owner: str, repo: str) -> Path:
        return self.state.repos[(owner, repo)]

    def set_license(self, owner: str, repo: str, spdx: str) -> None:
        """What the REST API reports as the repository's licence."""
        self.state.licenses[(owner, repo)] = spdx

    def serve_tarball(self, owner: str, repo: str, sha: str, data: bytes) -> None:
        """Answer the codeload tarball of <owner>/<repo> at `sha` with `data` instead of `git archive`."""
        self.state.tarballs[(owner, repo, sha)] = data

    def serve_raw(self, owner: str, repo: str, ref: str, path: str, data: bytes) -> None:
        """Answer the raw file <owner>/<repo>/<ref>/<path> with `data` (a host serving other bytes than git holds)."""
        self.state.raws[(owner, repo, ref, path)] = data

    def raw_url(self, owner: str, repo: str, ref: str, path: str) -> str:
        return f"{self.url}/{owner}/{repo}/{ref}/{path}"

    # ---- faults ---------------------------------------------------------------------------------------------
    def _fault(self, kind: str, count: int, match: str | None, arg: object = None) -> None:
        with self.state.lock:
            self.state.faults.append(_Fault(kind, count, match, arg))

    def fail_next(self, count: int = 1, status: int = 500, match: str | None = None) -> None:
        """The next `count` requests (whose path contains `match`) get `status` with an empty body."""
        self._fault("status", count, match, status)

    def truncate_next(self, count: int = 1, match: str | None = None) -> None:
        """The next `count` responses announce a Content-Length larger than the bytes sent, then close."""
        self._fault("truncate", count, match)

    def rate_limit_next(self, count: int = 1, retry_after: int = 1, match: str | None = None) -> None:
        """The next `count` requests get 429 with `Retry-After: <retry_after>`."""
        self._fault("ratelimit", count, match, retry_after)

    def hang_next(self, count: int = 1, seconds: float = 5.0, match: str | None = None) -> None:
        """The next `count` requests sleep `seconds` before answering (longer than a client timeout)."""
        self._fault("hang", count, match, seconds)

    def require_token(self, owner: str, repo: str, token: str) -> None:
        """Make <owner>/<repo> private: `Authorization: token X` or `Bearer X` is required, else 401."""
        self.state.tokens[(owner, repo)] = token

    def redirect_to(self, prefix: str, other_base_url: str) -> None:
        """Answer requests whose path starts with `prefix` with a 302 to the same path on `other_base_url`."""
        self.state.redirects.append((prefix, other_base_url.rstrip("/")))

    def clear_faults(self) -> None:
        with self.state.lock:
            self.state.faults.clear()
            self.state.redirects.clear()

    # ---- request log ----------------------------------------------------------------------------------------
    @property
    def log(self) -> list[Request]:
        with self.state.lock:
            return list(self.state.log)

    def requests(self, contains: str = "") -> list[Request]:
        return [r for r in self.log if contains in r.path]

    def api_requests(self, answered: int | None = None) -> list[Request]:
        """The REST API requests logged so far (optionally only those answered with status `answered`)."""
        return [r for r in self.log if r.path.startswith("/repos/") and (answered is None or r.status == answered)]

    def clear_log(self) -> None:
        with self.state.lock:
            self.state.log.clear()


class _Handler(BaseHTTPRequestHandler):
    state: _State
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # noqa: A002 - quiet test output
        pass

    def do_GET(self) -> None:  # noqa: N802
        record = Request("GET", self.path, dict(self.headers.items()), host=self.headers.get("Host", ""))
        with self.state.lock:
            self.state.log.append(record)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._serve(record)

    def _serve_repo_api(self, record: Request, parts: list[str]) -> None:
        """The REST API's `GET /repos/{owner}/{repo}`: the full name, default branch and licence."""
        if len(parts) != 2 or (parts[0], parts[1]) not in self.state.repos:
            self._send(record, 404, b'{"message": "Not Found"}', {"Content-Type": "application/json"})
            return
        owner, repo = parts
        branch = git(self.state.repos[(owner, repo)], "symbolic-ref", "--short", "HEAD").decode().strip()
        spdx = self.state.licenses.get((owner, repo))
        body = {"full_name": f"{owner}/{repo}", "default_branch": branch,
                "license": {"spdx_id": spdx} if spdx else None}
        self._send_api(record, body)

    def _send_api(self, record: Request, body: object) -> None:
        """A 200 JSON answer with a strong ETag, or 304 when the request's If-None-Match names it (GitHub does not
        count a 304 against the rate limit, which is why `external bump` asks conditionally)."""
        data = json.dumps(body).encode()
        etag = '"' + hashlib.sha256(data).hexdigest()[:40] + '"'
        if self.headers.get("If-None-Match") == etag:
            self._send(record, 304, headers={"ETag": etag})
            return
        self._send(record, 200, data, {"Content-Type": "application/json", "ETag": etag})

    def _resolve(self, owner: str, repo: str, ref: str) -> str | None:
        if ref.startswith("-"):
            return None
        try:
            return git(self.state.repos[(owner, repo)], "rev-parse", "--verify", f"{ref}^{{commit}}").decode().strip()
        except RuntimeError:
            return None

    def _serve_commit_list(self, record: Request, owner: str, repo: str, query: dict) -> None:
        """`GET /repos/{owner}/{repo}/commits?sha=&path=&per_page=`: newest first, filtered to the path."""
        sha = self._resolve(owner, repo, query.get("sha", "HEAD"))
        if sha is None:
            self._send(record, 404, b'{"message": "Not Found"}', {"Content-Type": "application/json"})
            return
        per_page = max(1, min(100, int(query.get("per_page", "30") or 30)))
        args = ["log", "--format=%H", f"-n{per_page}", sha]
        if query.get("path"):
            args += ["--", query["path"]]
        shas = git(self.state.repos[(owner, repo)], *args).decode().split()
        self._send_api(record, [{"sha": s, "url": f"/repos/{owner}/{repo}/commits/{s}"} for s in shas])

    def _serve_compare(self, record: Request, owner: str, repo: str, spec: str) -> None:
        """`GET /repos/{owner}/{repo}/compare/{base}...{head}`: how `head` relates to `base`, as GitHub reports."""
        base_ref, sep, head_ref = spec.partition("...")
        base = self._resolve(owner, repo, base_ref) if sep else None
        head = self._resolve(owner, repo, head_ref) if sep else None
        if base is None or head is None:
            self._send(record, 404, b'{"message": "Not Found"}', {"Content-Type": "application/json"})
            return
        path = self.state.repos[(owner, repo)]
        counts = git(path, "rev-list", "--left-right", "--count", f"{base}...{head}").decode().split()
        behind, ahead = int(counts[0]), int(counts[1])
        status = ("identical" if not ahead and not behind else "ahead" if not behind else
                  "behind" if not ahead else "diverged")
        try:
            merge_base = git(path, "merge-base", base, head).decode().strip()
        except RuntimeError:
            merge_base = None
        self._send_api(record, {"status": status, "ahead_by": ahead, "behind_by": behind,
                                "merge_base_commit": {"sha": merge_base} if merge_base else None})

    def _serve_tags(self, record: Request, owner: str, repo: str) -> None:
        """`GET /repos/{owner}/{repo}/tags`: every tag with the commit it names."""
        out = git(self.state.repos[(owner, repo)], "for-each-ref", "--format=%(refname:short) %(*objectname) "
                  "%(objectname)", "refs/tags").decode()
        tags = []
        for line in out.splitlines():
            name, *shas = line.split()
            tags.append({"name": name, "commit": {"sha": shas[0]}})
        self._send_api(record, tags)

    def _take_fault(self, path: str) -> _Fault | None:
        with self.state.lock:
            for fault in self.state.faults:
                if fault.count > 0 and (fault.match is None or fault.match in path):
                    fault.count -= 1
                    return fault
        return None

    def _send(self, record: Request, status: int, body: bytes = b"", headers: dict | None = None,
              *, content_length: int | None = None) -> None:
        record.status = status
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body) if content_length is None else content_length))
        self.end_headers()
        if body:
            self.wfile.write(body)
        self.wfile.flush()

    def _serve_commit_api(self, record: Request, owner: str, repo: str, ref: str) -> None:
        """The GitHub REST API's `GET /repos/{owner}/{repo}/commits/{ref}`: the commit's sha as plain text with
        `Accept: application/vnd.github.sha`, else a JSON object holding it; 422 for a ref that names nothing."""
        if (owner, repo) not in self.state.repos:
            self._send(record, 404, b'{"message": "Not Found"}', {"Content-Type": "application/json"})
            return
        try:
            if ref.startswith("-"):
                raise RuntimeError("not a ref")
            sha = git(self.state.repos[(owner, repo)], "rev-parse", "--verify", f"{ref}^{{commit}}").decode().strip()
        except RuntimeError:
            self._send(record, 422, b'{"message": "No commit found for SHA: ' + ref.encode() + b'"}',
                       {"Content-Type": "application/json"})
            return
        if self.headers.get("Accept") == "application/vnd.github.sha":
            self._send(record, 200, sha.encode(), {"Content-Type": "application/vnd.github.sha"})
        else:
            stamps = git(self.state.repos[(owner, repo)], "show", "-s", "--format=%at %ct", sha).decode().split()
            author, committer = (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(t))) for t in stamps)
            self._send_api(record, {"sha": sha, "commit": {"author": {"date": author},
                                                           "committer": {"date": committer}}})

    def _serve(self, record: Request) -> None:
        path = urlsplit(self.path).path
        for prefix, base in self.state.redirects:
            if path.startswith(prefix):
                self._send(record, 302, headers={"Location": base + self.path})
                return
        fault = self._take_fault(path)
        if fault and fault.kind == "hang":
            time.sleep(float(fault.arg))  # the client should have given up by now
        elif fault and fault.kind == "status":
            self._send(record, int(fault.arg), b"injected failure\n", {"Content-Type": "text/plain"})
            return
        elif fault and fault.kind == "ratelimit":
            self._send(record, 429, b"slow down\n", {"Retry-After": str(fault.arg), "Content-Type": "text/plain"})
            return

        parts = [unquote(p) for p in path.split("/")[1:]]
        known = parts[:1] == ["repos"] and len(parts) >= 4 and (parts[1], parts[2]) in self.state.repos
        if known and len(parts) == 4 and parts[3] == "commits":
            query = dict(parse_qsl(urlsplit(self.path).query))
            self._serve_commit_list(record, parts[1], parts[2], query)
            return
        if known and len(parts) >= 5 and parts[3] == "compare":
            self._serve_compare(record, parts[1], parts[2], "/".join(parts[4:]))
            return
        if known and len(parts) == 4 and parts[3] == "tags":
            self._serve_tags(record, parts[1], parts[2])
            return
        if parts[:1] == ["repos"] and len(parts) >= 5 and parts[3] == "commits":
            self._serve_commit_api(record, parts[1], parts[2], "/".join(parts[4:]))
            return
        if parts[:1] == ["repos"]:
            self._serve_repo_api(record, parts[1:])
            return
        if len(parts) < 4 or (parts[0], parts[1]) not in self.state.repos:
            self._send(record, 404, b"404: Not Found\n", {"Content-Type": "text/plain"})
            return
        owner, repo = parts[0], parts[1]
        token = self.state.tokens.get((owner, repo))
        if token is not None:
            auth = self.headers.get("Authorization", "")
            if auth not in (f"token {token}", f"Bearer {token}"):
                # GitHub answers 404 for private raw files; the fixture is explicit so tests can tell them apart.
                self._send(record, 401, b"401: Unauthorized\n", {"Content-Type": "text/plain"})
                return
        repo_path = self.state.repos[(owner, repo)]
        try:
            if parts[2] == "tar.gz" and len(parts) == 4:
                sha = git(repo_path, "rev-parse", f"{parts[3]}^{{commit}}").decode().strip()
                planted = self.state.tarballs.get((owner, repo, sha))
                body = planted if planted is not None else git(repo_path, "archive", "--format=tar.gz",
                                                                   f"--prefix={repo}-{sha}/", sha)
                ctype = "application/x-gzip"
            elif (owner, repo, parts[2], "/".join(parts[3:])) in self.state.raws:
                body = self.state.raws[(owner, repo, parts[2], "/".join(parts[3:]))]
                ctype = "text/plain; charset=utf-8"
            else:
                body = git(repo_path, "show", f"{parts[2]}:{'/'.join(parts[3:])}")
                ctype = "application/json" if path.endswith(".json") else "text/plain; charset=utf-8"
        except RuntimeError:
            self._send(record, 404, b"404: Not Found\n", {"Content-Type": "text/plain"})
            return

        etag = '"' + hashlib.sha256(body).hexdigest()[:40] + '"'
        headers = {"Content-Type": ctype, "ETag": etag, "Cache-Control": "max-age=300",
                   "Last-Modified": formatdate(1_700_000_000, usegmt=True)}
        if self.headers.get("If-None-Match") == etag:
            self._send(record, 304, headers={"ETag": etag})
            return
        if "gzip" in self.headers.get("Accept-Encoding", "") and parts[2] != "tar.gz":
            body = gzip.compress(body, mtime=0)
            headers["Content-Encoding"] = "gzip"
        if fault and fault.kind == "truncate":
            half = body[: max(1, len(body) // 2)]
            self._send(record, 200, half, headers, content_length=len(body))
            self.close_connection = True
            return
        self._send(record, 200, body, headers)
