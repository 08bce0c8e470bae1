"""Serve a built site on 127.0.0.1 (a preview; GitHub Pages serves the real thing)."""

from __future__ import annotations

import errno
import http.server
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.site.csp import header_policy, policy

_META_POLICY = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="([^"<>]*)">')
_HEAD_BYTES = 16_384  # the policy is the first element of <head> (csp.add_policy)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files only; logs one short line per request.

    An HTML page is sent with its policy as a `Content-Security-Policy` header too, plus what only a header can
    carry (`frame-ancestors 'none'`: no other site can frame the page): the header is how a host we control serves
    the policy in full (see site/pages/security.md)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".json": "application/json",
                      ".md": "text/markdown; charset=utf-8", ".js": "text/javascript"}
    _page: str | None = None

    def guess_type(self, path) -> str:
        kind = super().guess_type(path)
        self._page = str(path) if kind == "text/html" else None
        return kind

    def end_headers(self) -> None:
        if self._page is not None:
            self.send_header("Content-Security-Policy", page_header_policy(Path(self._page)))
            self._page = None
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    to_stderr = False  # the request log's stream: stderr when stdout carries JSON for a program

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (signature fixed by http.server)
        print(f"{self.address_string()} {format % args}", flush=True, file=sys.stderr if self.to_stderr else None)


def page_header_policy(page: Path) -> str:
    """The header policy of an HTML file: its own <meta> policy (the theme's script hashes) with the header-only
    directives; a page without one gets the policy with no inline script allowed."""
    try:
        with page.open("rb") as file:
            head = file.read(_HEAD_BYTES)
    except OSError:
        head = b""
    found = _META_POLICY.search(head)
    return header_policy(found.group(1).decode("ascii", "replace") if found else policy([]))


class StderrHandler(QuietHandler):
    to_stderr = True


def make_server(out: Path, port: int = 0, *, log_to_stderr: bool = False) -> http.server.ThreadingHTTPServer:
    """The server on 127.0.0.1:port; a port that is taken or not ours to open is said so, with how to pick another."""
    handler = StderrHandler if log_to_stderr else QuietHandler
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), partial(handler, directory=str(out)))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise SkillyardError(f"port {port} on 127.0.0.1 is busy: another program is listening there",
                                 "Choose another port with --port (e.g. --port 8001; --port 0 picks a free one), "
                                 "or stop the program using it.") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise SkillyardError(f"port {port} on 127.0.0.1 may not be opened by this user (ports below 1024 "
                                 "need privileges)", "Choose a port from 1024 up with --port, e.g. --port 8000.") from None
        raise


def serve(out: Path, port: int, ready: Callable[[str], None] | None = None) -> None:
    """Serve until Ctrl-C. `ready` (for --json) is given the URL once the server listens, and the human lines go to
    stderr instead of stdout."""
    server = make_server(out, port, log_to_stderr=ready is not None)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    if ready is not None:
        ready(url)
        sys.stdout.flush()
    print(f"serving {out} at {url} (Ctrl-C stops)", flush=True, file=sys.stderr if ready is not None else None)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
