"""The tests' servers never hang a run: their accept() returns when the connection select() saw is gone."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.loopback import LoopbackHTTPServer


def _returns_with_nothing_waiting(server_class) -> bool:
    server = server_class(("127.0.0.1", 0), BaseHTTPRequestHandler)
    done = threading.Event()
    threading.Thread(target=lambda: (server._handle_request_noblock(), done.set()), daemon=True).start()
    returned = done.wait(3)
    if not returned:  # unblock the plain server's accept so its thread ends
        socket.create_connection(server.server_address, timeout=3).close()
        done.wait(3)
    server.server_close()
    return returned


def test_an_accept_with_nothing_waiting_returns_instead_of_blocking():
    assert _returns_with_nothing_waiting(LoopbackHTTPServer)
    assert not _returns_with_nothing_waiting(ThreadingHTTPServer)  # the hang this class prevents
