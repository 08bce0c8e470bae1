"""The origin as GitHub serves it to a job: git's smart HTTP over TLS (`git http-backend`), with GitHub's token rules.

GITHUB_SERVER_URL is `https://github.localhost:PORT` (git's libcurl resolves *.localhost to 127.0.0.1 itself;
the session's own CA is in the jobs' git config). A job that pushes does what our workflows do on GitHub:
`https://x-access-token:<GITHUB_TOKEN>@<server>/<owner>/<repo>.git`. The server answers

- a push (`git-receive-pack`) without credentials: 401, as GitHub asks for them;
- a token the API stand-in does not know: 401;
- a job's token whose permissions (the stand-in's `scopes`, set while act runs that job) lack `contents: write`:
  403 "Permission to <repo>.git denied to github-actions[bot]." (GitHub's words), recorded in `refused`;
- a fetch (`git-upload-pack`) with a job's token: the token needs `contents: read` (403 otherwise), as GitHub holds
  a job's token on a private repository -- the rule our reusable workflows must meet, since private registries call
  them; actions/checkout fetches this way (its token in an `http.<server>/.extraheader`);
- a fetch without credentials (pip's `git+<server>/<repo>@<sha>`): allowed while the repository is public, as
  skillyard/skillyard is; the stand-in's `Repo.private` makes it GitHub's 401 "Authentication required" instead.

Every fetch and push of the jobs comes here; nothing reaches the bare origin around it."""

from __future__ import annotations

import base64
import os
import ssl
import subprocess
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

LEVELS = {"none": 0, "read": 1, "write": 2}


def make_certificate(folder: Path, host: str) -> tuple[Path, Path]:
    """A self-signed certificate for `host` (the jobs' git trusts it through http.sslCAInfo)."""
    cert, key = folder / "server-cert.pem", folder / "server-key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "2", "-subj", f"/CN={host}", "-addext", f"subjectAltName=DNS:{host}",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


class SmartHTTPOrigin:
    """`https://<host>:<port>/<slug>(.git)/...` -> `git http-backend` over the bare repository `git_dir`."""

    def __init__(self, git_dir: Path, slug: str, standin, folder: Path, host: str = "github.localhost"):
        self.git_dir, self.slug, self.standin, self.host = git_dir, slug, standin, host
        self.cert, key = make_certificate(folder, host)
        self.refused: list[dict] = []      # pushes / fetches refused for the token's permissions
        self.pushes: list[dict] = []       # accepted pushes: {"login", "token"}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                outer._handle(self)

            def do_POST(self):
                outer._handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"https://{self.host}:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # ---- one request --------------------------------------------------------------------------------------------
    def _answer(self, handler, status: int, text: str, headers: dict | None = None) -> None:
        data = text.encode()
        handler.send_response(status)
        for name, value in {"Content-Type": "text/plain", "Content-Length": str(len(data)), **(headers or {})}.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _body(self, handler) -> bytes:
        if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += handler.rfile.read(size)
                handler.rfile.readline()
        length = int(handler.headers.get("Content-Length") or 0)
        return handler.rfile.read(length) if length else b""

    def _handle(self, handler) -> None:
        parts = urllib.parse.urlsplit(handler.path)
        prefix = f"/{self.slug}"
        rest = parts.path[len(prefix):] if parts.path.startswith(prefix) else None
        body = self._body(handler) if handler.command == "POST" else b""
        if rest is None:
            return self._answer(handler, 404, "Repository not found.\n")
        rest = rest.removeprefix(".git")
        query = dict(urllib.parse.parse_qsl(parts.query))
        service = query.get("service") if rest == "/info/refs" else rest.lstrip("/")
        if service not in ("git-upload-pack", "git-receive-pack"):
            return self._answer(handler, 404, "Not found.\n")
        push = service == "git-receive-pack"
        auth = handler.headers.get("Authorization", "")
        token = login = None
        if auth.lower().startswith("basic "):
            user, _, password = base64.b64decode(auth.split(" ", 1)[1]).decode().partition(":")
            token = password or user
            login = self.standin.tokens.get(token)
            if login is None:
                return self._answer(handler, 401, "Invalid username or token.\n",
                                    {"WWW-Authenticate": 'Basic realm="GitHub"'})
        elif push or self._private():
            if not push:
                self.refused.append({"service": service, "login": None, "token": None})
            return self._answer(handler, 401, "Authentication required.\n",
                                {"WWW-Authenticate": 'Basic realm="GitHub"'})
        if token is not None:
            granted = self.standin.granted(token, handler.client_address, self.server.server_address[1])
            needed = "write" if push else "read"
            if granted is not None and LEVELS[granted.get("contents", "none")] < LEVELS[needed]:
                self.refused.append({"service": service, "login": login, "token": token,
                                     "contents": granted.get("contents", "none")})
                self._record_refusal(service)
                return self._answer(handler, 403, f"Permission to {self.slug}.git denied to {login}.\n")
            if granted is None and push and self._repo_permission(login) not in ("write", "maintain", "admin"):
                self.refused.append({"service": service, "login": login, "token": token})
                return self._answer(handler, 403, f"Permission to {self.slug}.git denied to {login}.\n")
        self._cgi(handler, rest, parts.query, body, login or "anonymous")
        if push and handler.command == "POST":
            self.pushes.append({"login": login, "token": token})

    def _private(self) -> bool:
        repo = self.standin.repos.get(self.slug) if hasattr(self.standin, "repos") else None
        return bool(getattr(repo, "private", False))

    def _repo_permission(self, login: str) -> str:
        """A person's token (not a job's): the repository permission the stand-in gives them; the Actions bot
        outside a job (no scopes recorded) is not checked here."""
        repo = self.standin.repos.get(self.slug) if hasattr(self.standin, "repos") else None
        if repo is None or login.endswith("[bot]"):
            return "write"
        return getattr(repo, "permissions", {}).get(login, "read")

    def _record_refusal(self, service: str) -> None:
        try:
            from tests.bot.ghstub import Recorded

            self.standin.refused.append(Recorded("POST", f"/{self.slug}.git/{service}", {}, {}))
        except Exception:   # the stand-in's record is a convenience; `refused` here is the source
            pass

    def _cgi(self, handler, rest: str, query: str, body: bytes, user: str) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": str(self.git_dir.parent),
               "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": f"/{self.git_dir.name}{rest}", "QUERY_STRING": query,
               "REQUEST_METHOD": handler.command, "CONTENT_TYPE": handler.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": user, "REMOTE_ADDR": "127.0.0.1",
               "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(self.git_dir.parent)}
        if handler.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = handler.headers["Content-Encoding"]
        if handler.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = handler.headers["Git-Protocol"]
        proc = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=120)
        head, _, payload = proc.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = proc.stdout.partition(b"\n\n")
        status, headers = 200, {}
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers[name.strip()] = value.strip()
        if proc.returncode and not proc.stdout:
            return self._answer(handler, 500, proc.stderr.decode(errors="replace"))
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
