"""Managing sources (the registry.json URLs the client reads): adding, naming, ordering and removing them.

Their tokens are found at request time by client/tokens.py.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from skillyard.client import config as config_mod
from skillyard.client.config import Config, Source
from skillyard.errors import SkillyardError, UsageError

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}\Z")
ENV_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


def default_name(url: str) -> str:
    """A short name from the URL: the repository for raw GitHub URLs, else the folder holding registry.json,
    else the host."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    if segments and segments[-1].endswith(".json"):
        segments = segments[:-1]
    if len(segments) >= 2 and segments[-1] == "sparse":  # a sparse index root: name it after the site
        segments = segments[:-1]
    candidate = ""
    if len(segments) >= 2 and (parts.hostname or "").startswith("raw."):
        candidate = segments[1]
    elif segments:
        candidate = segments[-1]
    if not candidate or candidate in ("main", "master"):
        candidate = segments[1] if len(segments) >= 2 else (parts.hostname or "source")
    from skillyard.format.paths import component_problem

    name = re.sub(r"[^a-z0-9._-]+", "-", candidate.lower()).strip("-.") or "source"
    name = re.sub(r"\.{2,}", ".", name)[:64].rstrip("-.") or "source"
    return name if not component_problem(name) else f"{name[:57]}-source"


def validate_name(name: str) -> str:
    from skillyard.format.paths import component_problem

    if not NAME_RE.match(name) or component_problem(name):
        raise UsageError(f"source name {name!r} is not allowed",
                         "Use lowercase letters, digits, '.', '_' or '-' (it is used as `skill@source`).")
    return name


def refuse_credentials(url: str) -> None:
    """A URL with `user:password@` would put the secret into config.yaml and `source list`: refuse it, without
    repeating it."""
    try:
        parts = urlsplit(url)
        has_userinfo = parts.username is not None or parts.password is not None
    except ValueError:
        has_userinfo = "@" in url.split("/", 3)[2] if url.count("/") >= 2 else False
    if has_userinfo:
        raise UsageError("the source URL carries a user name or password (`user:secret@host`); a secret is never "
                         "stored in config.yaml",
                         "Put the token in an environment variable and pass its NAME: "
                         "`export ACME_TOKEN=...`, then `skill source add URL --token-env ACME_TOKEN`.")


# Shapes of well-known tokens that are also valid variable names (GitHub, Hugging Face, npm, Stripe, AWS key ids).
SECRET_SHAPE = re.compile(r"^(gh[pousr]_|github_pat_|hf_|npm_|sk_(live|test)_|(AKIA|ASIA)[A-Z0-9]{16}\Z)")


def looks_like_secret(var: str) -> bool:
    """True when a would-be variable name is more likely a token: a known token shape, the value of a variable
    that is set (8 characters or more: `LANG=C` must not make `C` a secret), or long and mixed-case with digits (variable names are UPPER_CASE by convention)."""
    if SECRET_SHAPE.match(var):
        return True
    if len(var) >= 8 and any(value == var for key, value in os.environ.items() if key != var):
        return True
    return len(var) >= 24 and any(c.islower() for c in var) and any(c.isupper() for c in var) and \
        any(c.isdigit() for c in var)


def validate_token_env(var: str) -> str:
    if ENV_RE.match(var) and looks_like_secret(var):
        raise UsageError("--token-env takes the NAME of an environment variable, not its value, and the value "
                         "given looks like a token (it is not shown or stored)",
                         "Pass the variable's name, e.g. `--token-env ACME_TOKEN`; the token is now in your shell "
                         "history, so consider revoking it.")
    if not ENV_RE.match(var):
        raise UsageError(f"--token-env takes the NAME of an environment variable, not its value; the "
                         f"{len(var)} characters given are not a variable name (letters, digits and _, not starting "
                         "with a digit; the value itself is not shown)",
                         "Export the token, e.g. `export ACME_TOKEN=...`, then pass `--token-env ACME_TOKEN`.")
    return var


def new_source(config: Config, url: str, *, name: str | None = None, token_env: str | None = None,
               priority: int | None = None, default: bool = False) -> Source:
    """A checked Source ready to add (not yet saved): URL policy, name rules, unique name and URL. With
    `default`, it goes above every other source (and `add_source(..., replace_builtin=True)` retires the built-in
    one)."""
    from skillyard.client.urls import check_url

    refuse_credentials(url)  # first: a later error message may quote the URL
    check_url(url, what="source URL")
    chosen = validate_name(name) if name is not None else default_name(url)
    replaced = config.builtin_source if default else None
    existing = {s.name for s in config.sources if s != replaced}
    if name and name in existing:
        raise SkillyardError(f"a source named {name!r} already exists",
                             f"Pick another --name, or `skill source remove {name}` first.")
    chosen = _unique(chosen, existing)
    for source in config.sources:
        if source.url == url and source != replaced:
            raise SkillyardError(f"{url} is already configured as source {source.name!r}",
                                 "Nothing to do; `skill source list` shows it.")
    if priority is None:
        priority = config.top_priority() if default else config.next_priority()
    return Source(chosen, url, validate_token_env(token_env) if token_env is not None else None, int(priority))


def _unique(name: str, existing: set[str]) -> str:
    base, n = name, 2
    while name in existing:
        name = f"{base}-{n}"
        n += 1
    return name


def slug(text: str) -> str | None:
    """A source name made of a registry's own `name` ("Acme Skills" -> acme-skills), or None when nothing usable
    is left of it."""
    from skillyard.format.paths import component_problem

    name = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower()).strip("-._")
    name = re.sub(r"\.{2,}", ".", name)[:64].rstrip("-.")
    return name if name and NAME_RE.match(name) and not component_problem(name) else None


def named_after_registry(config: Config, source: Source, registry: dict, *, default: bool = False) -> Source:
    """The source renamed after the registry's own top-level `name` (unique among the configured sources), its
    fetched cache moved along; the URL-derived name stays when the registry's name gives nothing usable."""
    raw = registry.get("name")
    better = slug(raw) if isinstance(raw, str) else None
    replaced = config.builtin_source if default else None
    existing = {s.name for s in config.sources if s != replaced}
    if better is None or better == source.name:
        return source
    better = _unique(better, existing)
    registries = config.cache_dir / "registries"  # as client/cache.source_dir (importing it would be circular)
    old, new = registries / source.name, registries / better
    if old.exists():
        import shutil

        shutil.rmtree(new, ignore_errors=True)  # a leftover of a removed source of that name
        os.replace(old, new)
    return Source(better, source.url, source.token_env, source.priority)


def public_dict(source: Source) -> dict:
    """What may be shown of a source: `to_dict()` without anything that could be a secret. A config.yaml written
    by an older client (which took `--token` for `--token-env`) may hold a token where the variable's name belongs,
    or in the URL; neither is ever printed."""
    from skillyard.client.lockfile import strip_credentials

    data = source.to_dict()
    data["url"] = strip_credentials(source.url)
    if source.token_env and (not ENV_RE.match(source.token_env) or looks_like_secret(source.token_env)):
        data.pop("token_env", None)
        data["token_env_problem"] = ("`token_env` in config.yaml is not a variable name (it may be a token); "
                                     f"run `skill source remove {source.name}` and add it again with "
                                     "--token-env VAR, then revoke that token")
    return data


def add_source(source: Source, home=None, *, replace_builtin: bool = False) -> Source | None:
    """Save a new source; with `replace_builtin`, also retire the built-in default source (returned, if it was on)."""
    with config_mod.edit(home) as cfg:
        replaced = cfg.builtin_source if replace_builtin else None
        if replaced is not None:
            cfg.remove_source(replaced.name)
        cfg.put_source(source)
    if replaced is not None and replaced.name != source.name:
        from skillyard.client.cache import discard

        discard(cfg, replaced.name)
    return replaced


def remove_source(name: str, home=None) -> Source:
    """Remove a source by name or URL, and its cached registry."""
    with config_mod.edit(home) as cfg:
        source = cfg.remove_source(name)
    from skillyard.client.cache import discard

    discard(cfg, source.name)
    return source


def set_priority(name: str, priority: int, home=None) -> Source:
    """Change a source's priority (the built-in one becomes a stored source with the same URL)."""
    with config_mod.edit(home) as cfg:
        source = cfg.source(name)
        updated = Source(source.name, source.url, source.token_env, int(priority))
        cfg.put_source(updated)
    return updated
