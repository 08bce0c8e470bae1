"""HTTP GET for the client, on the standard library: conditional requests, gzip, retries, clear failures.

`fetch(url, token=..., etag=..., last_modified=...)` returns a `Response`; a 304 comes back as
`not_modified=True` with an empty body. Failures raise `FetchError` (a SkillyardError) whose `kind` says what
happened ("network", "timeout", "truncated", "server", "auth", "not-found", "rate-limit", "http", "refused",
"too-large") and
whose message never contains the token.

Token rules: the token is sent as `Authorization: Bearer <t>` (the form GitHub, GitHub Enterprise and any OAuth2-style
static host accept) only to the host (scheme + host + port) of the URL
asked for; a redirect to any other origin drops it, and a redirect to plain http outside loopback is refused.
Retries: 429 and 5xx (honouring `Retry-After` up to `max_retry_after` seconds), resets and truncated bodies,
with exponential backoff. Timeouts and refused connections are not retried: they mean the network is down,
and the caller falls back to its cache quickly.

Bounds (a server is untrusted): `timeout` is the idle limit of one socket operation; `deadline` bounds the whole
call — headers, body, redirects and retries — because a server dripping one byte a second never trips an idle
timeout. `max_bytes` caps the body both as sent and after Content-Encoding is undone, checked while streaming,
so neither a lying Content-Length nor a gzip bomb can make the client hold more than `max_bytes`.
"""

from __future__ import annotations

import email.utils
import http.client
import socket
import time
import urllib.error
import urllib.request
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from skillyard import __version__
from skillyard.client.deadline import DeadlineHTTP, DeadlineHTTPS, DeadlinePassed
from skillyard.client.urls import (  # noqa: F401 - part of this module's interface
    MAX_URL_CHARS,
    check_url,
    is_loopback,
    origin,
    safe_url,
    url_problem,
    visible_url_text,
)
from skillyard.errors import SkillyardError

USER_AGENT = f"skillyard-client/{__version__}"
RETRY_STATUSES = {429, 500, 502, 503, 504}
CHUNK = 64 * 1024
DEFAULT_DEADLINE = 120.0
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 5


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


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follow redirects, re-attaching the token only when the redirect stays on the original origin."""

    max_redirections = MAX_REDIRECTS
    max_repeats = 2

    def __init__(self, token_origin: tuple | None, token: str | None):
        self.token_origin = token_origin
        self.token = token

    def http_error_302(self, req, fp, code, msg, headers):
        """Check the Location a server sends before urllib parses it: a malformed one (`http://[::1`, a port out of
        range, a scheme other than http(s), a control character) is a clear refusal naming both URLs, never a
        ValueError from deep inside urllib. No Location: the 3xx itself is reported (see `_once`)."""
        location = headers.get("location") or headers.get("uri")
        if location is not None:
            try:
                target = urljoin(req.full_url, location)
            except ValueError as exc:
                target, problem = location, str(exc) or type(exc).__name__
            else:
                problem = url_problem(target)
                if problem is None and urlsplit(target).scheme not in ("http", "https"):
                    problem = f"its scheme {urlsplit(target).scheme!r} is not http(s)"
                elif problem is None and not urlsplit(target).hostname:
                    problem = "it names no host"
            if problem is not None:
                raise FetchError(f"{safe_url(req.full_url)}: the server redirected (HTTP {code}) to "
                                 f"`{safe_url(target)}`, which cannot be followed: {problem}",
                                 "Report it to the host; check the URL.", kind="http", url=safe_url(req.full_url),
                                 status=code)
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

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
            new.add_unredirected_header("Authorization", f"Bearer {self.token}")
        return new


def header_number(value: str | None, *, most_digits: int = 18) -> int | None:
    """A header's non-negative integer, or None: ASCII digits only, at most `most_digits` of them. str.isdigit also
    says yes to "²" (which int() refuses) and to other scripts' digits (which int() reads), so a server's header
    could crash the client or slip past a bound; int() alone takes "1_000", " 7" and "+7"."""
    value = (value or "").strip()
    if not value or len(value) > most_digits or not (value.isascii() and value.isdigit()):
        return None
    return int(value)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    seconds = header_number(value)
    if seconds is not None:
        return float(seconds)
    try:  # a date outside datetime's range (year 1 in a far time zone) overflows on the way to a timestamp
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def _http_error(url: str, status: int, headers, *, token: bool, waited_out: bool = False) -> FetchError:
    shown = safe_url(url)
    remaining = headers.get("X-RateLimit-Remaining") if headers else None
    if status == 429 or (status == 403 and remaining == "0"):
        reset = header_number(headers.get("X-RateLimit-Reset") if headers else None)
        clock = _clock(reset) if reset is not None else None
        after = _retry_after(headers.get("Retry-After") if headers else None)  # seconds, or an HTTP date
        when = f" (retry after {after:.0f} s)" if after is not None else f" (resets at {clock})" if clock else ""
        fix = (f"Wait and try again ({OFFLINE_HINT})." +
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
                          f"Try again later ({OFFLINE_HINT}).", kind="server", url=shown,
                          status=status)
    return FetchError(f"{shown}: unexpected HTTP {status}", "Check the URL.", kind="http", url=shown, status=status)


def _too_big(url: str, what: str, limit: int) -> FetchError:
    return FetchError(f"{safe_url(url)}: the {what} is larger than the limit of {limit:,} bytes; nothing was kept",
                      "The host sends more than the client accepts for this download; report it to the host.",
                      kind="too-large", url=safe_url(url))


class _Decoder:
    """Undo Content-Encoding chunk by chunk, never producing more than `limit` bytes in total (gzip/deflate bombs)."""

    def __init__(self, url: str, encoding: str, limit: int):
        encoding = encoding.strip().lower()
        self.url, self.limit, self.size = url, limit, 0
        if encoding in ("", "identity"):
            self.inflater = None
        elif encoding in ("gzip", "x-gzip"):
            self.inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self.inflater = zlib.decompressobj(zlib.MAX_WBITS)
        else:
            raise FetchError(f"{safe_url(url)}: unsupported Content-Encoding {encoding!r}", "Report it to the host.",
                             kind="http", url=safe_url(url))

    def feed(self, chunk: bytes) -> bytes:
        if self.inflater is None:
            return self._count(chunk)
        try:
            # one byte past the room left is enough to know the limit is crossed
            return self._count(self.inflater.decompress(chunk, self.limit - self.size + 1))
        except zlib.error:
            raise self._damaged() from None

    def finish(self, received: int) -> bytes:
        if self.inflater is None or received == 0:
            return b""
        try:
            out = self._count(self.inflater.flush())
        except zlib.error:
            raise self._damaged() from None
        if not self.inflater.eof:
            raise self._damaged()
        return out

    def _count(self, out: bytes) -> bytes:
        self.size += len(out)
        if self.size > self.limit:
            raise _too_big(self.url, "decompressed body", self.limit)
        return out

    def _damaged(self) -> FetchError:
        return FetchError(f"{safe_url(self.url)}: the compressed body is damaged", "Try again.", kind="truncated",
                          url=safe_url(self.url))


def _once(url: str, *, token, etag, last_modified, timeout, progress, accept, deadline: float,
          max_bytes: int, json_body: bytes | None = None) -> Response:
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "gzip"}
    if json_body is not None:
        headers["Content-Type"] = "application/json"
    if accept:
        headers["Accept"] = accept
    if etag:
        headers["If-None-Match"] = etag
    if last_modified:
        headers["If-Modified-Since"] = last_modified
    request = urllib.request.Request(url, data=json_body, headers=headers)
    if token:
        request.add_unredirected_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(_RedirectHandler(origin(url) if token else None, token),
                                         DeadlineHTTP(deadline), DeadlineHTTPS(deadline))
    try:
        resp = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        with exc:
            if exc.code == 304:
                return Response(304, b"", {k.lower(): v for k, v in exc.headers.items()},
                                _validator(exc.headers.get("ETag")) or etag,
                                _validator(exc.headers.get("Last-Modified")) or last_modified, True,
                                exc.geturl() or url)
            if 300 <= exc.code < 400 and not (exc.headers and (exc.headers.get("location") or exc.headers.get("uri"))):
                raise FetchError(f"{safe_url(url)}: HTTP {exc.code}, a redirect without a Location",
                                 "Check the URL; report it to the host if it persists.", kind="http",
                                 url=safe_url(url), status=exc.code) from None
            if 300 <= exc.code < 400:
                raise FetchError(f"{safe_url(url)}: redirected more than {MAX_REDIRECTS} times or in a loop",
                                 "Check the URL; the server's redirects never reach a file.", kind="http",
                                 url=safe_url(url), status=exc.code) from None
            raise _HTTPStatus(exc.code, exc.headers) from None
    with resp:
        resp_headers = {k.lower(): v for k, v in resp.headers.items()}
        total = header_number(resp_headers.get("content-length"))
        decoder = _Decoder(url, resp_headers.get("content-encoding", ""), max_bytes)
        # compressing incompressible bytes adds a little (deflate's stored blocks, the gzip header): allow for it
        wire_cap = max_bytes if decoder.inflater is None else max_bytes + max_bytes // 100 + 1024
        if total is not None and total > wire_cap:
            raise _too_big(url, f"body ({total:,} bytes announced)", max_bytes)
        chunks = []
        received = 0
        while True:
            chunk = resp.read1(CHUNK)
            if not chunk:
                break
            received += len(chunk)
            if received > wire_cap:
                raise _too_big(url, "body", max_bytes)
            chunks.append(decoder.feed(chunk))
            if progress:
                progress(received, total)
        if total is not None and received < total:
            raise FetchError(f"{safe_url(url)}: the download was cut off ({received} of {total} bytes)",
                             "Try again; the cached copy (if any) was kept.", kind="truncated", url=safe_url(url))
        chunks.append(decoder.finish(received))
        return Response(resp.status, b"".join(chunks), resp_headers, _validator(resp_headers.get("etag")),
                        _validator(resp_headers.get("last-modified")), False, resp.geturl())


def _validator(value: str | None) -> str | None:
    """An ETag or Last-Modified worth sending back (If-None-Match, If-Modified-Since), or None: printable ASCII of a
    sane length. Anything else would be stored in the cache and make the next request fail (http.client refuses
    control characters in a header), so the validator is dropped and the next fetch is a plain GET."""
    if value is None or len(value) > 1024 or not value.isascii() or not value.isprintable():
        return None
    return value


class _HTTPStatus(Exception):
    def __init__(self, status: int, headers):
        self.status = status
        self.headers = headers


def _clock(epoch: int) -> str | None:
    """HH:MM:SS of a server's epoch-seconds timestamp, or None when the platform's clock cannot show it."""
    try:
        return time.strftime("%H:%M:%S", time.localtime(epoch))
    except (OverflowError, OSError, ValueError):
        return None


# The commands that take --offline: advice that names the flag names them too (tests/cli/test_offline_advice.py
# checks that each one has it), since `skill update` or `skill source refresh` cannot work without the network.
OFFLINE_COMMANDS = ("install", "search", "info", "outdated", "doctor")
OFFLINE_HINT = ("`skill " + "`, `skill ".join(OFFLINE_COMMANDS) + "` also work with --offline, from what is "
                "already on this machine")


def _network_error(url: str, exc: BaseException, timeout: float, deadline: float | None = None) -> FetchError:
    shown = safe_url(url)
    reason = getattr(exc, "reason", exc)
    if isinstance(reason, DeadlinePassed) or isinstance(exc, DeadlinePassed):
        return _deadline_error(url, deadline)
    if isinstance(reason, TimeoutError | socket.timeout) or isinstance(exc, TimeoutError | socket.timeout):
        return FetchError(f"{shown}: no answer within {timeout:g} s (timed out)",
                          f"Check your connection or raise http.timeout in config.yaml ({OFFLINE_HINT}).",
                          kind="timeout", url=shown)
    if isinstance(reason, FetchError):
        return reason
    if isinstance(reason, ConnectionRefusedError | socket.gaierror | OSError) and not isinstance(
            reason, ConnectionResetError | http.client.RemoteDisconnected):
        text = getattr(reason, "strerror", None) or str(reason)
        return FetchError(f"{shown}: cannot connect ({text})", f"Check your connection ({OFFLINE_HINT}).",
                          kind="network", url=shown)
    if isinstance(reason, http.client.HTTPException) and not isinstance(
            reason, http.client.RemoteDisconnected | http.client.IncompleteRead):
        return FetchError(f"{shown}: the server's answer is not valid HTTP ({type(reason).__name__}: "
                          f"{str(reason)[:80]})", "Check the URL; report the host if it persists.", kind="http",
                          url=shown)
    return FetchError(f"{shown}: connection lost ({type(reason).__name__})", f"Try again ({OFFLINE_HINT}).",
                      kind="reset", url=shown)


def _deadline_error(url: str, deadline: float | None) -> FetchError:
    limit = f" of {deadline:g} s" if deadline else ""
    return FetchError(f"{safe_url(url)}: the transfer did not finish within its deadline{limit}; nothing was kept",
                      "The server is too slow or stalling on purpose; try again later, or raise http.deadline in "
                      "config.yaml.", kind="timeout", url=safe_url(url))


def settings(config) -> dict:
    """fetch() keyword arguments from the client config (timeouts, retries, deadline)."""
    if config is None:
        return {}
    return {"timeout": config.http_timeout, "retries": config.http_retries, "backoff": config.http_backoff,
            "deadline": config.http_deadline}


def fetch(url: str, *, token: str | None = None, etag: str | None = None, last_modified: str | None = None,
          timeout: float = 15.0, retries: int = 3, backoff: float = 0.5, max_retry_after: float = 60.0,
          progress: Callable[[int, int | None], None] | None = None, accept: str | None = None,
          sleep: Callable[[float], None] = time.sleep, deadline: float = DEFAULT_DEADLINE,
          max_bytes: int = DEFAULT_MAX_BYTES, json_body: bytes | None = None) -> Response:
    """GET `url`; see the module docstring. `progress(done_bytes, total_or_None)` is called while reading.

    `deadline` (seconds) bounds the whole call including redirects and retries; `max_bytes` the body.
    `json_body` makes it a POST of that JSON (an API call, e.g. `skill generate`), under the same bounds.
    """
    check_url(url)
    attempt = 0
    ends = time.monotonic() + deadline
    while True:
        wait: float | None = None
        try:
            return _once(url, token=token, etag=etag, last_modified=last_modified, timeout=timeout,
                         progress=progress, accept=accept, deadline=ends, max_bytes=max_bytes, json_body=json_body)
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
        except (ValueError, OverflowError) as exc:  # what the standard library raises for an answer it cannot parse
            raise FetchError(f"{safe_url(url)}: the server's answer cannot be read ({type(exc).__name__}: "
                             f"{visible_url_text(str(exc))[:120]})", "Check the URL; report the host if it persists.",
                             kind="http", url=safe_url(url)) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            error = _network_error(url, exc, timeout, deadline)
            if error.kind != "reset":
                raise error from None
            error.kind = "network"
        if attempt >= retries:
            raise error from None
        pause = wait if wait is not None else backoff * (2 ** attempt)
        if time.monotonic() + pause >= ends:
            raise _deadline_error(url, deadline) from error
        sleep(pause)
        attempt += 1
