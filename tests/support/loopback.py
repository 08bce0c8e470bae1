"""The tests' HTTP servers: a ThreadingHTTPServer whose listening socket never blocks in accept().

socketserver's loop accepts after select() says a connection waits; a client that resets in between (a test's
client timing out or aborting on purpose) leaves accept() blocking, and shutdown() then waits forever for the loop
(seen once as a whole CI run hanging in a fixture's teardown). Non-blocking, that accept raises BlockingIOError,
which the loop already ignores. Accepted connections stay blocking, as before."""

from __future__ import annotations

from http.server import ThreadingHTTPServer


class LoopbackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def server_activate(self) -> None:
        super().server_activate()
        self.socket.setblocking(False)
