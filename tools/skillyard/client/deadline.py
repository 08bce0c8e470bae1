"""Sockets that keep a whole request inside its deadline: connect, TLS handshake, every send and every read (status
line, headers, body) get the idle timeout, but never more than the time left — a server dripping one byte a second
never trips an idle timeout alone."""

from __future__ import annotations

import io
import time
import urllib.request


class DeadlineReader(io.RawIOBase):
    """A socket reader that gives each receive the idle timeout, but never past the whole-request deadline."""

    def __init__(self, sock, idle: float, deadline: float):
        self.sock, self.idle, self.deadline = sock, idle, deadline
        self.raw = sock.makefile("rb", buffering=0)  # keeps the socket open until this reader is closed

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed()
        self.sock.settimeout(min(self.idle, left))
        try:
            return self.raw.readinto(buffer)
        except TimeoutError:
            if time.monotonic() >= self.deadline:
                raise DeadlinePassed() from None
            raise

    def close(self) -> None:
        self.raw.close()
        super().close()


class DeadlineSocket:
    """Wraps a connected socket so every read http.client makes (status line, headers, body) obeys the deadline."""

    def __init__(self, sock, idle: float, deadline: float):
        self._sock, self._idle, self._deadline = sock, idle, deadline

    def makefile(self, mode="rb", *args, **kwargs):
        if "r" not in mode:
            return self._sock.makefile(mode, *args, **kwargs)
        return io.BufferedReader(DeadlineReader(self._sock, self._idle, self._deadline))

    def sendall(self, data, *args):
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed()
        self._sock.settimeout(min(self._idle, left))
        return self._sock.sendall(data, *args)

    def __getattr__(self, name):
        return getattr(self._sock, name)


class DeadlinePassed(TimeoutError):
    """The whole-request deadline passed (distinct from an idle timeout)."""


def deadline_connection(base: type, deadline: float) -> type:
    """`base` (HTTP or HTTPS connection) whose connect, TLS handshake and every read and send end by `deadline`.

    The TLS handshake needs nothing more: the ssl module bounds a whole handshake by the socket's timeout, which
    is never longer than what is left."""

    class Connection(base):
        def connect(self):
            left = deadline - time.monotonic()
            if left <= 0:
                raise DeadlinePassed()
            clamped = self.timeout is None or self.timeout >= left
            if clamped:
                self.timeout = left
            try:
                super().connect()
            except TimeoutError:
                if clamped:  # the timeout that expired was the time left before the deadline
                    raise DeadlinePassed() from None
                raise
            self.sock = DeadlineSocket(self.sock, self.timeout, deadline)

    return Connection


class DeadlineHTTP(urllib.request.HTTPHandler):
    def __init__(self, deadline: float):
        super().__init__()
        self.deadline = deadline

    def do_open(self, http_class, req, **kwargs):
        return super().do_open(deadline_connection(http_class, self.deadline), req, **kwargs)


class DeadlineHTTPS(urllib.request.HTTPSHandler):
    def __init__(self, deadline: float):
        super().__init__()
        self.deadline = deadline

    def do_open(self, http_class, req, **kwargs):
        return super().do_open(deadline_connection(http_class, self.deadline), req, **kwargs)
