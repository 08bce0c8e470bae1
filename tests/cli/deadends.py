"""Endpoints that fail in each way a real network can: nothing listening, a server that accepts and hangs up,
one answering 500, and one answering 200 with garbage. All on 127.0.0.1."""

from __future__ import annotations

import contextlib
import socket
import threading
from http.server import BaseHTTPRequestHandler

from tests.support.loopback import LoopbackHTTPServer

KINDS = ("refused", "hangup", "error500", "garbage")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Answer(BaseHTTPRequestHandler):
    status = 500
    body = b"<html>internal error</html>"

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))
        self.send_response(self.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _answer

    def log_message(self, *args):  # quiet
        pass


class _Garbage(_Answer):
    status = 200
    body = b"\x00\xffnot json {{{"


@contextlib.contextmanager
def dead_endpoint(kind: str):
    """Yield the base URL (`http://127.0.0.1:PORT`) of an endpoint failing the `kind` way."""
    if kind == "refused":
        yield f"http://127.0.0.1:{free_port()}"
        return
    if kind == "hangup":
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        stop = threading.Event()

        def serve():
            listener.settimeout(0.1)
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except OSError:
                    continue
                conn.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{listener.getsockname()[1]}"
        finally:
            stop.set()
            thread.join()
            listener.close()
        return
    server = LoopbackHTTPServer(("127.0.0.1", 0), _Answer if kind == "error500" else _Garbage)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
