"""What one mkdocs run needs around it: its warnings collected, an environment variable (SOURCE_DATE_EPOCH) set for
the run only, and the site's name and description from registry.json when the registry has no mkdocs.yml."""

from __future__ import annotations

import contextlib
import html
import logging
import os
import re


class Collect(logging.Handler):
    """Keeps the warnings mkdocs logs during one build."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def env(name: str, value: str):
    """`name`=`value` in os.environ while the block runs, the old value (or none) after."""
    old = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


_PLAIN_URL = re.compile(r"https?://[^\s\"'<>`\\]+")


def registry_settings(registry: dict) -> dict:
    """The default config names no registry: take its name, description and homepage from registry.json. mkdocs
    puts these into every page's head and header without escaping, so they are escaped here (they come from the
    registry, not from a maintainer's mkdocs.yml), and the homepage is used only when it is a plain http(s) URL."""
    settings = {"site_name": html.escape(str(registry["name"]), quote=True)}
    if registry.get("description"):
        settings["site_description"] = html.escape(str(registry["description"]), quote=True)
    homepage = registry.get("homepage")
    if isinstance(homepage, str) and _PLAIN_URL.fullmatch(homepage):
        settings["site_url"] = homepage
    return settings
