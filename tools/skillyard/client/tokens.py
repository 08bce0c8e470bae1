"""Finding a source's token at request time.

A token is read from the environment variable named by `Source.token_env` each time a request is made; it is
never stored in config.yaml, the cache, a lockfile, a log or an error message. Its own module because the fetching
modules (cache, sparse, resolve) need it and managing sources (sources.py) needs the cache: one module for both
made an import circle.
"""

from __future__ import annotations

import os

from skillyard.client.config import Config, Source


def token_for(source: Source) -> str | None:
    """The source's token from its environment variable (None when it has none, or the variable is unset)."""
    if not source.token_env:
        return None
    value = os.environ.get(source.token_env, "").strip()
    return value or None


def token_for_url(source: Source, url: str, config: Config | None = None) -> str | None:
    """The token, but only where it is needed. A source on GitHub (github.com, raw, codeload, api, or the configured
    GitHub Enterprise hosts) sends it only for its own repository's paths on those hosts, never for another
    repository's files (a pointer entry's upstream needs its own token: `upstream_token`); any other source sends
    it only to its own origin."""
    token = token_for(source)
    if token is None:
        return None
    from skillyard.client.urls import origin  # lazily: reading the cache needs no URL parsing

    own = repositories(source.url, config)
    if own:
        return token if own & repositories(url, config) else None
    return token if origin(url) == origin(source.url) else None


GITHUB_WEB = "https://github.com"


def _github_bases(config: Config | None) -> list[tuple[str, bool]]:
    """(base URL, whether its paths start with /repos/) of every GitHub host the client talks to."""
    from skillyard.client.config_keys import KEYS

    defaults = {k.name: str(k.default).rstrip("/") for k in KEYS.values() if k.name.startswith("github.")}
    raw = config.github_raw_url if config is not None else defaults.get("github.raw_url", "")
    codeload = config.github_codeload_url if config is not None else defaults.get("github.codeload_url", "")
    api = config.github_api_url if config is not None else defaults.get("github.api_url", "")
    return [(GITHUB_WEB, False), (raw, False), (codeload, False), (api, True)]


def repositories(url: str, config: Config | None) -> set[tuple[str, str]]:
    """The GitHub repositories (owner, name; lower case) `url` can be a path of, one per GitHub host layout it
    matches (a stand-in or an Enterprise server may serve several layouts on one origin); empty when none."""
    from urllib.parse import unquote, urlsplit

    from skillyard.client.urls import origin

    try:
        parts = urlsplit(url)
        target = origin(url)
    except ValueError:
        return set()
    found = set()
    for base, api in _github_bases(config):
        if not base:
            continue
        prefix = urlsplit(base).path.rstrip("/")
        if origin(base) != target or not (parts.path == prefix or parts.path.startswith(prefix + "/")):
            continue
        segments = [unquote(p) for p in parts.path[len(prefix):].split("/") if p]
        if api:
            segments = segments[1:] if segments[:1] == ["repos"] else []
        if len(segments) >= 2 and segments[0] not in (".", "..") and segments[1] not in (".", ".."):
            found.add((segments[0].lower(), segments[1].removesuffix(".git").lower()))
    return found


UPSTREAM_TOKEN_VARS = ("SKILL_GITHUB_TOKEN", "GITHUB_TOKEN")


def upstream_token(url: str, config: Config | None) -> str | None:
    """The user's own GitHub token (`SKILL_GITHUB_TOKEN`, else `GITHUB_TOKEN`, as `github:` installs read) for a
    pointer entry's upstream file on a GitHub host: a private upstream is reached with the user's token, never
    with the registry's."""
    if not repositories(url, config):
        return None
    for name in UPSTREAM_TOKEN_VARS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None
