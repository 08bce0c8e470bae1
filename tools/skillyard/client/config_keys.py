"""Every key of the `skill` client's config.yaml: its environment override, default, kind and valid range.

One table for `skill config get|set|unset|list` (cli/skill_cmds/config.py) and the README's "Client configuration"
table (tests/client_core/test_config_cmd.py keeps the two in step). `parse(key, text)` turns what a user typed into
the value stored in config.yaml, or raises a SkillyardError naming the key, what was wrong and a command that fixes
it. Pure: nothing here reads a file or the environment except `origin` (which reads the environment).
"""

from __future__ import annotations

import os
import re

from skillyard.errors import SkillyardError

MIB = 1024 * 1024
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
INPUT_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")


class Key:
    """One setting: `kind` is url | seconds | count | bytes | bool | targets | choice | text | env-name | ms;
    numbers must lie in [low, high]; `example` is a valid value, shown in fixes."""

    __slots__ = ("name", "env", "default", "kind", "low", "high", "choices", "example", "meaning")

    def __init__(self, name: str, kind: str, default=None, *, env: str | None = None, low: float | None = None,
                 high: float | None = None, choices: tuple[str, ...] = (), example: str = "", meaning: str = ""):
        self.name, self.kind, self.default, self.env = name, kind, default, env
        self.low, self.high, self.choices, self.example, self.meaning = low, high, choices, example, meaning


_DAY = 86400.0
KEYS: dict[str, Key] = {k.name: k for k in (
    Key("github.raw_url", "url", "https://raw.githubusercontent.com", env="SKILL_GITHUB_RAW_URL",
        example="https://raw.githubusercontent.com", meaning="raw file host (GitHub Enterprise, tests)"),
    Key("github.codeload_url", "url", "https://codeload.github.com", env="SKILL_GITHUB_CODELOAD_URL",
        example="https://codeload.github.com", meaning="tarballs for github:owner/repo@ref installs"),
    Key("github.api_url", "url", "https://api.github.com", env="SKILL_GITHUB_API_URL",
        example="https://api.github.com", meaning="API for skill publish"),
    Key("http.timeout", "seconds", 15.0, env="SKILL_HTTP_TIMEOUT", low=0.1, high=3600, example="15",
        meaning="seconds without an answer before a request fails"),
    Key("http.retries", "count", 3, env="SKILL_HTTP_RETRIES", low=0, high=20, example="3",
        meaning="retries of 429/5xx answers and dropped connections"),
    Key("http.backoff", "seconds", 0.5, env="SKILL_HTTP_BACKOFF", low=0, high=60, example="0.5",
        meaning="first wait between retries (doubles each time)"),
    Key("http.deadline", "seconds", 120.0, env="SKILL_HTTP_DEADLINE", low=1, high=_DAY, example="120",
        meaning="limit for a whole download, retries included"),
    Key("cache.ttl", "seconds", 600, env="SKILL_CACHE_TTL", low=0, high=30 * _DAY, example="600",
        meaning="seconds a fetched registry (or an unreachable source) is remembered before asking again"),
    Key("registry.max_bytes", "bytes", 50 * MIB, env="SKILL_REGISTRY_MAX_BYTES", low=1024, high=4096 * MIB,
        example=str(50 * MIB), meaning="largest registry.json accepted"),
    Key("install.max_total_bytes", "bytes", 25 * MIB, env="SKILL_INSTALL_MAX_TOTAL_BYTES", low=1, high=4096 * MIB,
        example=str(25 * MIB), meaning="largest skill installed, all files together"),
    Key("install.max_file_bytes", "bytes", 10 * MIB, env="SKILL_INSTALL_MAX_FILE_BYTES", low=1, high=4096 * MIB,
        example=str(10 * MIB), meaning="largest single file in an installed skill"),
    Key("install.max_files", "count", 1000, env="SKILL_INSTALL_MAX_FILES", low=1, high=1_000_000, example="1000",
        meaning="most files one installed skill may hold"),
    Key("install.max_download_bytes", "bytes", 10 * MIB, env="SKILL_INSTALL_MAX_DOWNLOAD_BYTES", low=1,
        high=4096 * MIB, example=str(10 * MIB), meaning="largest download of one install"),
    Key("install.strict", "bool", False, env="SKILL_INSTALL_STRICT", example="true",
        meaning="refuse standard violations runtimes tolerate, instead of warning"),
    Key("install.target", "targets", "claude-code", example="claude-code,codex",
        meaning="default --target (one or more target names, comma-separated)"),
    Key("mcp_hub.endpoint", "url", None, example="http://127.0.0.1:8090",
        meaning="MCP hub where mcp_deps are checked"),
    Key("mcp_hub.timeout", "ms", 5000, low=1, high=600_000, example="5000", meaning="milliseconds to wait for the hub"),
    Key("mcp_hub.type", "choice", None, choices=("hub", "mcp"), example="mcp",
        meaning="hub (GET /tools/list) or mcp (an MCP server); unset: guessed from the endpoint"),
    Key("generate.base_url", "url", None, example="https://api.openai.com/v1",
        meaning="OpenAI-compatible endpoint for skill generate"),
    Key("generate.model", "text", None, example="gpt-4o-mini", meaning="model name for skill generate"),
    Key("generate.api_key_env", "env-name", None, example="OPENAI_API_KEY",
        meaning="the environment variable holding the API key (never the key)"),
    Key("generate.timeout", "seconds", 120.0, low=1, high=600, example="120", meaning="seconds for skill generate"),
)}
INPUTS_PREFIX = "inputs."
MANAGED = {"sources": "skill source add|remove|priority", "default_source": "skill source add|remove"}


def fix_for(key: str) -> str:
    spec = KEYS.get(key)
    example = spec.example if spec is not None else "VALUE"
    return f"Run `skill config set {key} {example}`, or `skill config unset {key}` for the default."


def lookup(key: str) -> Key:
    """The key's spec (an `inputs.<skill>.<input>` key gets a text spec); a clear error for unknown keys."""
    if key in KEYS:
        return KEYS[key]
    if key.startswith(INPUTS_PREFIX):
        parts = key.split(".")
        if len(parts) != 3 or not parts[1] or not INPUT_NAME_RE.match(parts[2]):
            raise SkillyardError(f"config key {key!r} is not `inputs.<skill>.<input>`",
                                 "Name a skill and one of its inputs, e.g. "
                                 "`skill config set inputs.invoice-processor.currency EUR`.", exit_code=2)
        from skillyard.client.store import check_name

        check_name(parts[1])
        return Key(key, "text", None, example="VALUE", meaning="an input value for one skill")
    if key in MANAGED:
        raise SkillyardError(f"config key {key!r} is managed by `{MANAGED[key]}`, not by `skill config`",
                             "See `skill source --help`.", exit_code=2)
    import difflib

    close = difflib.get_close_matches(key, list(KEYS), n=3, cutoff=0.6)
    hint = f"Did you mean {' or '.join(close)}? " if close else ""
    raise SkillyardError(f"unknown config key {key!r}",
                         f"{hint}`skill config list` shows every key.", exit_code=2)


def parse(key: str, text: str):
    """The value to store for `key` from the text a user typed (numbers as numbers, booleans as booleans)."""
    spec = lookup(key)
    raw = text.strip()
    if spec.kind in ("seconds", "count", "bytes", "ms"):
        return _number(spec, raw)
    if spec.kind == "bool":
        value = as_bool(raw)
        if value is None:
            raise SkillyardError(f"{key}: {text!r} is not true or false", fix_for(key), exit_code=2)
        return value
    if not raw:
        raise SkillyardError(f"{key}: an empty value is not allowed", fix_for(key), exit_code=2)
    if spec.kind == "url":
        from skillyard.client.http import check_url

        try:
            check_url(raw, what=key)
        except SkillyardError as exc:
            raise SkillyardError(exc.message, "Give an https:// URL (plain http only to 127.0.0.1 or localhost): "
                                 + fix_for(key), exit_code=2) from None
        return raw
    if spec.kind == "choice":
        if raw.lower() not in spec.choices:
            raise SkillyardError(f"{key}: {text!r} is not one of {', '.join(spec.choices)}", fix_for(key), exit_code=2)
        return raw.lower()
    if spec.kind == "targets":
        return _targets(key, raw)
    if spec.kind == "env-name":
        return _env_name(key, raw)
    if any(ord(c) < 32 or ord(c) == 127 for c in raw) or len(raw) > 4096:
        raise SkillyardError(f"{key}: the value holds a control character or is over 4096 characters",
                             fix_for(key), exit_code=2)
    return raw


def as_bool(raw) -> bool | None:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    return True if text in ("1", "true", "yes", "on") else False if text in ("0", "false", "no", "off") else None


def _number(spec: Key, raw: str):
    whole = spec.kind in ("count", "bytes", "ms")
    noun = "a whole number" if whole else "a number"
    unit = {"seconds": " seconds", "bytes": " bytes", "ms": " milliseconds"}.get(spec.kind, "")
    try:
        value = int(raw, 10) if whole else float(raw)
    except ValueError:
        raise SkillyardError(f"{spec.name}: {raw!r} is not {noun}{unit and ' of' + unit}", fix_for(spec.name),
                             exit_code=2) from None
    if value != value or value in (float("inf"), float("-inf")) or not spec.low <= value <= spec.high:
        raise SkillyardError(f"{spec.name}: {raw!r} is out of range ({_g(spec.low)} to {_g(spec.high)}{unit})",
                             fix_for(spec.name), exit_code=2)
    if not whole and value == int(value) and isinstance(spec.default, int):
        return int(value)
    return value


def _g(number: float) -> str:
    return f"{number:g}" if isinstance(number, float) else str(number)


def _targets(key: str, raw: str) -> str:
    from skillyard.client.target_lookup import all_targets

    names = [n for n in raw.replace(",", " ").split() if n]
    known = all_targets()
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise SkillyardError(f"{key}: unknown target(s) {', '.join(unknown) or raw!r}",
                             f"Choose from: {', '.join(known)} (`skill adapter list`), e.g. "
                             f"`skill config set {key} claude-code`.", exit_code=2)
    return ",".join(dict.fromkeys(names))


def _env_name(key: str, raw: str) -> str:
    from skillyard.client.sources import looks_like_secret

    if not ENV_NAME_RE.match(raw):
        raise SkillyardError(f"{key}: the value is not an environment variable's name (letters, digits and _; "
                             "the value itself is not shown)", fix_for(key), exit_code=2)
    if looks_like_secret(raw):
        raise SkillyardError(f"{key} takes the NAME of an environment variable, and the value given looks like a "
                             "secret (it is not shown or stored)",
                             f"{fix_for(key)} Consider revoking the key: it is now in your shell history.",
                             exit_code=2)
    return raw


def origin(key: str, data_value, env_value: str | None) -> str:
    """Where a key's effective value comes from: `environment ($VAR)`, `config.yaml` or `default`."""
    spec = KEYS.get(key)
    if spec is not None and spec.env and env_value:
        return f"environment (${spec.env})"
    return "config.yaml" if data_value is not None else "default"


def env_value(key: str) -> str | None:
    spec = KEYS.get(key)
    return os.environ.get(spec.env) or None if spec is not None and spec.env else None
