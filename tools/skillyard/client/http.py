"""HTTP GET for the client, on the standard library: conditional requests, gzip, retries, clear failures.

`fetch(url, token=..., etag=..., last_modified=...)` returns a `Response`; a 304 comes back as
`not_modified=True` with an empty body. Failures raise `FetchError` (a SkillyardError) whose `kind` says what
happened ("network", "timeout", "truncated", "server", "auth", "not-found", "rate-limit", "http", "refused") and
whose message never contains the token.

Token rules: the token is sent as `Authorization: token <t>` only to the host (scheme + host + port) of the URL
asked for; a redirect to any other origin drops it, and a redirect to plain http outside loopback is refused.
Retries: 429 and 5xx (honouring `Retry-After` up to `max_retry_after` seconds), resets and truncated bodies,
with exponential backoff. Timeouts and refused connections are not retried: they mean the network is down,
and the caller falls back to its cache quickly.
"""

from __future__ import annotations

import email.utils
import gzip
import http.client
import ipaddress
import socket
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from skillyard import __version__
from skillyard.errors import SkillyardError

USER_AGENT = f"skillyard-client/{__version__}"
RETRY_STATUSES = {429, 500, 502, 503, 504}
CHUNK = 64 * 1024


class FetchError(SkillyardError):
    """A download that failed; `kind` classifies it, `status` is the HTTP status when there was one."""

    def __init__(self, message: str, fix: str | None = None, *, kind: str, url: str, status: int | None = None):
        super().__init__(message, fix)
        self.kind = kind
        self.url = url
        self.status = status

    @property
    def network(self) -> bool:
        """True when the host could not be reached or did not answer properly (a cached copy is the best bet)."""
        return self.kind in ("network", "timeout", "truncated", "server", "rate-limit")


@dataclass
class Response:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False
    url: str = ""


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str, *, what: str = "URL") -> None:
    """Accept https anywhere and plain http only on loopback; refuse credentials embedded in the URL."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SkillyardError(f"{what} {safe_url(url)!r} is not an http(s) URL",
                             "Use the https:// URL of the registry.json file.")
    if parts.username or parts.password:
        raise SkillyardError(f"{what} contains a user name or password; credentials are never stored in URLs",
                             "Remove them and pass --token-env VAR naming an environment variable instead.")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise SkillyardError(f"{what} {safe_url(url)!r} uses plain http to a non-local host",
                             "Use https:// (plain http is allowed only for 127.0.0.1/localhost).")


def safe_url(url: str) -> str:
    """The URL without user info, query or fragment: safe to show in messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follow redirects, re-attaching the token only when the redirect stays on the original origin."""

    def __init__(self, token_origin: tuple | None, token: str | None):
        self.token_origin = token_origin
        self.token = token

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is None:
            return None
        parts = urlsplit(new.full_url)
        if parts.scheme == "http" and not is_loopback(parts.hostname):
            raise FetchError(f"{safe_url(req.full_url)} redirected to plain http at {parts.hostname}; refused",
                             "Ask the registry owner to serve it over https.", kind="refused",
                             url=safe_url(req.full_url))
        for name in list(new.headers):
            if name.lower() == "authorization":
                del new.headers[name]
        new.unredirected_hdrs.pop("Authorization", None)
        if self.token and origin(new.full_url) == self.token_origin:
            new.add_unredirected_header("Authorization", f"token {self.token}")
        return new


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _http_error(url: str, status: int, headers, *, token: bool, waited_out: bool = False) -> FetchError:
    shown = safe_url(url)
    remaining = headers.get("X-RateLimit-Remaining") if headers else None
    if status == 429 or (status == 403 and remaining == "0"):
        reset = headers.get("X-RateLimit-Reset") if headers else None
        after = headers.get("Retry-After") if headers else None
        when = (f" (retry after {after} s)" if after else
                f" (resets at {time.strftime('%H:%M:%S', time.localtime(int(reset)))})" if reset and reset.isdigit()
                else "")
        fix = ("Wait and try again, or use the cache with --offline." +
               ("" if token else " An authenticated source (--token-env) gets a higher limit."))
        return FetchError(f"{shown}: rate limited by the server{when}", fix, kind="rate-limit", url=shown,
                          status=status)
    if status in (401, 403):
        if token:
            fix = "The token was refused: check that the environment variable holds a valid token with read access."
        else:
            fix = ("This source needs a token: `skill source add URL --token-env VAR` and export VAR, "
                   "or check the URL.")
        word = "authentication required" if status == 401 else "access denied"
        return FetchError(f"{shown}: HTTP {status}, {word}", fix, kind="auth", url=shown, status=status)
    if status == 404:
        return FetchError(f"{shown}: HTTP 404, not found",
                          "Check the URL (branch, path) — private repositories also answer 404 without a token.",
                          kind="not-found", url=shown, status=status)
    if status >= 500:
        return FetchError(f"{shown}: HTTP {status}, server error" + (" after retries" if waited_out else ""),
                          "Try again later, or use the cache with --offline.", kind="server", url=shown,
                          status=status)
    return FetchError(f"{shown}: unexpected HTTP {status}", "Check the URL.", kind="http", url=shown, status=status)


def _decode(url: str, raw: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return raw
    try:
        if encoding in ("gzip", "x-gzip"):
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
    except (OSError, EOFError, zlib.error):
        raise FetchError(f"{safe_url(url)}: the compressed body is damaged", "Try again.", kind="truncated",
                         url=safe_url(url)) from None
    raise FetchError(f"{safe_url(url)}: unsupported Content-Encoding {encoding!r}", "Report it to the host.",
                     kind="http", url=safe_url(url))


def _once(url: str, *, token, etag, last_modified, timeout, progress, accept) -> Response:
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"}
    if accept:
        headers["Accept"] = accept
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    request = urllib.request.Request(url, headers=headers)
    if token:
        request.add_unredirected_header("Authorization", f"token {token}")
    opener = urllib.request.build_opener(_RedirectHandler(origin(url) if token else None, token))
    try:
        resp = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        with exc:
            if exc.code == 304:
                return Response(304, b"", {k.lower(): v for k, v in exc.headers.items()},
                                exc.headers.get("ETag") or etag, exc.headers.get("Last-Modified") or last_modified,
                                True, exc.geturl() or url)
            raise _HTTPStatus(exc.code, exc.headers) from None
    with resp:
        resp_headers = {k.lower(): v for k, v in resp.headers.items()}
        expected = resp_headers.get("content-length")
        total = int(expected) if expected and expected.isdigit() else None
        chunks = []
        received = 0
        while True:
            chunk = resp.read(CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            received += len(chunk)
            if progress:
                progress(received, total)
        if total is not None and received < total:
            raise FetchError(f"{safe_url(url)}: the download was cut off ({received} of {total} bytes)",
                             "Try again; the cached copy (if any) was kept.", kind="truncated", url=safe_url(url))
        body = _decode(url, b"".join(chunks), resp_headers.get("content-encoding", ""))
        return Response(resp.status, body, resp_headers, resp_headers.get("etag"),
                        resp_headers.get("last-modified"), False, resp.geturl())


class _HTTPStatus(Exception):
    def __init__(self, status: int, headers):
        self.status = status
        self.headers = headers


def _network_error(url: str, exc: BaseException, timeout: float) -> FetchError:
    shown = safe_url(url)
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, TimeoutError | socket.timeout) or isinstance(exc, TimeoutError | socket.timeout):
        return FetchError(f"{shown}: no answer within {timeout:g} s (timed out)",
                          "Check your connection, raise http.timeout in config.yaml, or use --offline.",
                          kind="timeout", url=shown)
    if isinstance(reason, FetchError):
        return reason
    if isinstance(reason, ConnectionRefusedError | socket.gaierror | OSError) and not isinstance(
            reason, ConnectionResetError | http.client.RemoteDisconnected):
        text = getattr(reason, "strerror", None) or str(reason)
        return FetchError(f"{shown}: cannot connect ({text})", "Check your connection, or use --offline.",
                          kind="network", url=shown)
    return FetchError(f"{shown}: connection lost ({type(reason).__name__})", "Try again, or use --offline.",
                      kind="reset", url=shown)


def fetch(url: str, *, token: str | None = None, etag: str | None = None, last_modified: str | None = None,
          timeout: float = 15.0, retries: int = 3, backoff: float = 0.5, max_retry_after: float = 60.0,
          progress: Callable[[int, int | None], None] | None = None, accept: str | None = None,
          sleep: Callable[[float], None] = time.sleep) -> Response:
    """GET `url`; see the module docstring. `progress(done_bytes, total_or_None)` is called while reading."""
    check_url(url)
    attempt = 0
    while True:
        wait: float | None = None
        try:
            return _once(url, token=token, etag=etag, last_modified=last_modified, timeout=timeout,
                         progress=progress, accept=accept)
        except _HTTPStatus as exc:
            error = _http_error(url, exc.status, exc.headers, token=bool(token), waited_out=attempt >= retries)
            if exc.status not in RETRY_STATUSES:
                raise error from None
            wait = _retry_after(exc.headers.get("Retry-After") if exc.headers else None)
            if wait is not None and wait > max_retry_after:
                raise error from None
        except FetchError as exc:
            if exc.kind != "truncated":
                raise
            error = exc
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            error = _network_error(url, exc, timeout)
            if error.kind != "reset":
                raise error from None
            error.kind = "network"
        if attempt >= retries:
            raise error from None
        sleep(wait if wait is not None else backoff * (2 ** attempt))
        attempt += 1
