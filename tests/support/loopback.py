"""The tests' HTTP servers: a ThreadingHTTPServer whose listening socket never blocks in accept().

socketserver's loop accepts after select() says a connection waits; a client that resets in between (a test's
client timing out or aborting on purpose) leaves accept() blocking, and shutdown() then waits forever for the loop
(seen once as a whole CI run hanging in a fixture's teardown). Non-blocking, that accept raises BlockingIOError,
which the loop already ignores. Accepted connections stay blocking, as before."""

from __future__ import annotations

from http.server import ThreadingHTTPServer


class LoopbackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog is 5: a client that fetches a few hundred files at once (npx skills does)
    # would see refused connections on a busy machine, as no real static host refuses them.
    request_queue_size = 256

    def server_activate(self) -> None:
        super().server_activate()
        self.socket.setblocking(False)


def serve_in_thread(handler: type) -> tuple[LoopbackHTTPServer, str]:
    """A server for `handler` on a free port of 127.0.0.1, answering from a daemon thread; returns it and its origin
    (`http://127.0.0.1:PORT`). Stop it with shutdown() and server_close()."""
    import threading

    httpd = LoopbackHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"
