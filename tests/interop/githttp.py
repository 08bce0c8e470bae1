"""Git's smart HTTP protocol on 127.0.0.1: `git http-backend` (git's own CGI program) behind a tiny server, serving
the repositories of a GitHub stand-in (tests/support/gitserver.py) at `http://127.0.0.1:PORT/<owner>/<repo>.git`.

Claude Code clones a plugin's `github` source with `git clone --depth 1` then `git fetch --depth 1 origin <sha>`:
shallow clones need the smart protocol (the dumb one cannot), and fetching a bare sha needs
`uploadpack.allowAnySHA1InWant`, which `serve` sets in each repository. `redirect_github(gitconfig, url)` writes the
`url.<base>.insteadOf https://github.com/` a client's git then reads through GIT_CONFIG_GLOBAL, so a clone of
`https://github.com/<owner>/<repo>.git` reaches this server and nothing leaves the machine."""

from __future__ import annotations

import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.support.gitserver import GIT_ENV, GitServer, git
from tests.support.loopback import serve_in_thread

MAX_BODY = 16 * 1024 * 1024


def _handler(server: GitServer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        log: list[str] = []

        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            self._backend(b"")

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = b""
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    body += self.rfile.read(size)
                    self.rfile.readline()
                    if len(body) > MAX_BODY:
                        break
            else:
                body = self.rfile.read(min(length, MAX_BODY))
            self._backend(body)

        def _backend(self, body: bytes) -> None:
            path, _, query = self.path.partition("?")
            Handler.log.append(f"{self.command} {path}")
            parts = path.split("/")  # /<owner>/<repo>.git/... -> the stand-in's working repository <owner>/<repo>
            if len(parts) > 2 and parts[2].endswith(".git"):
                parts[2] = parts[2][:-4]
            path = "/".join(parts)
            env = {**GIT_ENV, "GIT_PROJECT_ROOT": str(server.root / "repos"), "GIT_HTTP_EXPORT_ALL": "1",
                   "REQUEST_METHOD": self.command, "PATH_INFO": path, "QUERY_STRING": query,
                   "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                   "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            done = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, timeout=120)
            head, _, payload = done.stdout.partition(b"\r\n\r\n")
            status, headers = 200, []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def serve(server: GitServer):
    """Serve `server`'s repositories over smart HTTP: returns (httpd, base URL, request log)."""
    for path in server.state.repos.values():
        git(path, "config", "uploadpack.allowAnySHA1InWant", "true")
        git(path, "config", "http.receivepack", "false")
    handler = _handler(server)
    httpd, url = serve_in_thread(handler)
    return httpd, url, handler.log


def redirect_github(gitconfig: Path, base_url: str) -> Path:
    """A global git config that sends https://github.com/<owner>/<repo>(.git) to `base_url`/<owner>/<repo>(.git)."""
    gitconfig.write_text(f'[url "{base_url}/"]\n\tinsteadOf = https://github.com/\n'
                         "[protocol]\n\tversion = 2\n", encoding="utf-8")
    return gitconfig
