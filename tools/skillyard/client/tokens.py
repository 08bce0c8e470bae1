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
    """The token, but only for a URL on the source's own origin — or, for a source on GitHub (or the configured
    GitHub Enterprise hosts), on one of those GitHub hosts (raw, codeload, api)."""
    token = token_for(source)
    if token is None:
        return None
    from skillyard.client.urls import origin  # lazily: reading the cache needs no URL parsing

    if origin(url) == origin(source.url):
        return token
    if config is not None:
        github = {origin(config.github_raw_url), origin(config.github_codeload_url), origin(config.github_api_url)}
        if origin(source.url) in github and origin(url) in github:
            return token
    return None
