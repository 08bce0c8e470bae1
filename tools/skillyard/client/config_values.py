"""Checking a value for a config key (client/config_keys.py) as `skill config set` stores it: numbers and their
range, URLs (client/http.check_url), target names, true/false, environment variable names, `inputs.<skill>.<input>`
keys. Every refusal names the key, what was wrong, and the `skill config` command that fixes it."""

from __future__ import annotations

import re

from skillyard.client.config_keys import INPUTS_PREFIX, KEYS, MANAGED, Key, fix_for
from skillyard.errors import SkillyardError

ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
INPUT_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}\Z")


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


