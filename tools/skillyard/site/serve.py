"""Serve a built site on 127.0.0.1 (a preview; GitHub Pages serves the real thing)."""

from __future__ import annotations

import http.server
from functools import partial
from pathlib import Path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files only; logs one short line per request."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".json": "application/json",
                      ".md": "text/markdown; charset=utf-8", ".js": "text/javascript"}

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (signature fixed by http.server)
        print(f"{self.address_string()} {format % args}", flush=True)


def make_server(out: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), partial(QuietHandler, directory=str(out)))


def serve(out: Path, port: int) -> None:
    server = make_server(out, port)
    print(f"serving {out} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
