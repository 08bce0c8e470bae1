"""`skill mcp --http`: the same server over streamable HTTP, on loopback only, behind a bearer token.

Anything on the machine can open a loopback port, and a web page can make a browser send requests to one, so
three locks: the socket is bound to 127.0.0.1 (never a wider address); every HTTP request must carry
`Authorization: Bearer <token>` with the random token printed once at start (compared in constant time; anything
else is 401 before the MCP layer sees it); and the SDK's DNS-rebinding guard checks Host and Origin.
"""

from __future__ import annotations

import hmac
import json
import secrets
import socket

import anyio

HOST = "127.0.0.1"
PATH = "/mcp"


def new_token() -> str:
    """256 random bits, URL-safe: a header value with nothing to escape."""
    return secrets.token_urlsafe(32)


class BearerGate:
    """ASGI middleware: HTTP requests without the right bearer token get 401; lifespan events pass."""

    def __init__(self, app, token: str):
        self.app = app
        self.expected = f"Bearer {token}".encode("ascii")

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = [value for key, value in scope.get("headers", []) if key.lower() == b"authorization"]
        if len(given) == 1 and hmac.compare_digest(given[0], self.expected):
            await self.app(scope, receive, send)
            return
        why = "missing bearer token" if not given else "wrong bearer token"
        body = json.dumps({"error": "unauthorized", "detail": f"{why}: send `Authorization: Bearer <token>` with "
                                                               "the token `skill mcp --http` printed at start"})
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer"),
                                (b"content-length", str(len(body)).encode("ascii"))]})
        await send({"type": "http.response.body", "body": body.encode("utf-8")})


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


async def serve(server, sock: socket.socket, token: str, background=None) -> None:
    """Serve `server` (an MCPServer) on `sock` until interrupted; `background()` runs beside it (the live poll)."""
    import uvicorn

    app = BearerGate(server.streamable_http_app(streamable_http_path=PATH, host=HOST), token)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        if background is not None:
            group.start_soon(background)
        await web.serve(sockets=[sock])
        group.cancel_scope.cancel()


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://{host}:{port}{PATH}"
