"""Which URLs the client requests, and how they are shown: https anywhere, plain http only on loopback, no
credentials in a URL, nothing Python cannot parse; a URL in a message never shows user info, a query or escapes."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit, urlunsplit

from skillyard.errors import SkillyardError

MAX_URL_CHARS = 8192  # longer than any real URL; a Location header can be as long as a header line


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
    """Accept https anywhere and plain http only on loopback; refuse credentials embedded in the URL, and a URL
    Python cannot parse (`http://[::1`, a port out of range) as a clear error naming it."""
    problem = url_problem(url)
    if problem is not None:
        raise SkillyardError(f"{what} {safe_url(url)!r} is not a valid URL ({problem})",
                             "Use the https:// URL of the registry.json file.")
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


def url_problem(url: object) -> str | None:
    """Why `url` cannot be requested as it is, or None: not text, controls or spaces (http.client would refuse
    them mid-request), or what `urlsplit` and its `port` raise for (unclosed `[`, a bad IP literal, a port that is
    not a number in 0-65535). Every URL from outside passes here before anything parses it again."""
    if not isinstance(url, str):
        return f"not text but {type(url).__name__}"
    if len(url) > MAX_URL_CHARS:
        return f"{len(url):,} characters, over {MAX_URL_CHARS:,}"
    if any(ord(c) <= 32 or ord(c) == 127 for c in url):
        return "it contains a space or control character"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
        parts.hostname  # noqa: B018
    except ValueError as exc:
        return str(exc) or type(exc).__name__
    return None


def safe_url(url: str) -> str:
    """The URL without user info, query or fragment: safe to show in messages and logs. Never raises: a URL that
    does not parse is shown cut at its query, without user info, escapes visible and at most 200 characters."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except (ValueError, TypeError, AttributeError):
        text = str(url).split("?", 1)[0].split("#", 1)[0]
        scheme, sep, rest = text.partition("://")
        if sep:
            netloc, slash, path = rest.partition("/")
            text = f"{scheme}://{netloc.rsplit('@', 1)[-1]}{slash}{path}"
        return visible_url_text(text)
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{port}" if port else "")
    return visible_url_text(urlunsplit((parts.scheme, netloc, parts.path, "", "")))


def visible_url_text(text: str) -> str:
    from skillyard.format.safety import visible

    text = visible(text, one_line=True)
    return text if len(text) <= 200 else text[:199] + "…"


def origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port
