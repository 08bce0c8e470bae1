"""A skill's `inputs`: pick each value (`--input k=v` > per-skill config > default) and type-check it.

Pure: declarations and values in, values or a SkillyardError out. Runs before anything is written, so a required
input with no value stops the install with nothing on disk. Rendering is `skillyard.format.inputs` (shared with
the site), re-exported here.
"""

from __future__ import annotations

import json
import re

from skillyard.errors import SkillyardError
from skillyard.format.inputs import PLACEHOLDER, render, render_bytes
from skillyard.format.inputs import spell as _spell

__all__ = ["PLACEHOLDER", "coerce", "parse_assignments", "render", "render_bytes", "resolve"]
TRUE_WORDS = {"true", "yes", "on", "1"}
FALSE_WORDS = {"false", "no", "off", "0"}


INPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}\Z")  # the format's input `name` rule
MAX_VALUE = 64 * 1024  # characters: a value is rendered into SKILL.md, which a model reads whole


def parse_assignments(pairs: list[str] | None) -> dict[str, str]:
    """`["k=v", ...]` from the command line → {k: v}; the value may itself contain `=`.

    The name must be an input name; the value may hold newlines and tabs, but no control or invisible characters
    (they would be written into SKILL.md where a reader cannot see them) and at most MAX_VALUE characters."""
    from skillyard.format.safety import CONTROL, INVISIBLE

    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SkillyardError(f"--input {pair[:80]!r} is not of the form name=value.",
                                 "Write it as --input name=value.")
        if not INPUT_NAME.match(key):
            raise SkillyardError(f"--input {key[:80]!r}: an input name is 1-64 letters, digits and _, not starting "
                                 "with a digit.", "Check the input names with `skill info <skill>`.")
        bad = CONTROL.search(value) or INVISIBLE.search(value) or re.search("[\r\u2028\u2029]", value)
        if bad:
            raise SkillyardError(f"--input {key}: the value contains U+{ord(bad.group()[0]):04X}, a control or "
                                 "invisible character.", "Type the value without it (newlines and tabs are fine).")
        if len(value) > MAX_VALUE:
            raise SkillyardError(f"--input {key}: the value is {len(value)} characters; the limit is {MAX_VALUE}.",
                                 "Shorten it, or point the skill at a file instead.")
        out[key] = value
    return out


def coerce(decl: dict, value: object, *, origin: str, skill: str) -> object:
    """Turn a value into the declared type (strings from the command line are parsed); raise if it does not fit."""
    name, kind = decl["name"], decl.get("type", "string")

    def bad(why: str) -> SkillyardError:
        return SkillyardError(f"Input `{name}` of skill {skill} ({origin}) {why}.",
                              f"Give a valid value: --input {name}=<{kind}>.")

    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        raise bad(f"must be a string, not {value!r}")
    if kind == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                number = float(value)
            except ValueError:
                raise bad(f"must be a number, not {value!r}") from None
            if number != number or number in (float("inf"), float("-inf")):
                raise bad(f"must be a finite number, not {value!r}")
            return int(number) if number.is_integer() and re.fullmatch(r"\s*[-+]?\d+\s*", value) else number
        raise bad(f"must be a number, not {value!r}")
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
            return value.strip().lower() in TRUE_WORDS
        raise bad(f"must be true or false, not {value!r}")
    if kind == "enum":
        choices = decl.get("enum") or []
        for choice in choices:
            if choice == value and isinstance(choice, bool) == isinstance(value, bool):
                return choice
        if isinstance(value, str):
            for choice in choices:
                if _spell(choice) == value:
                    return choice
        raise bad(f"must be one of {', '.join(_spell(c) for c in choices)}, not {value!r}")
    if kind == "json":
        if isinstance(value, str) and origin == "--input":
            try:
                return json.loads(value)
            except (ValueError, RecursionError) as exc:  # also an integer past 4,300 digits, or deep nesting
                raise bad(f"is not valid JSON ({getattr(exc, 'msg', str(exc)[:120])})") from None
        return value
    raise bad(f"has an unknown type {kind!r}")


def resolve(declared: list[dict] | None, *, cli: dict[str, str] | None = None, configured: dict | None = None,
            skill: str) -> dict:
    """Every declared input's value, from the first of: command line, per-skill config, default."""
    declared = declared or []
    cli, configured = cli or {}, configured or {}
    names = {d["name"] for d in declared}
    unknown = sorted(set(cli) - names)
    if unknown:
        known = ", ".join(sorted(names)) or "none"
        raise SkillyardError(f"Skill {skill} has no input named {', '.join(unknown)} (its inputs: {known}).",
                             "Check the spelling with `skill info " + skill + "`.")
    values: dict = {}
    missing = []
    for decl in declared:
        name = decl["name"]
        if name in cli:
            values[name] = coerce(decl, cli[name], origin="--input", skill=skill)
        elif name in configured:
            values[name] = coerce(decl, configured[name], origin="config", skill=skill)
        elif "default" in decl:
            values[name] = decl["default"]
        elif decl.get("required"):
            missing.append(decl)
    if missing:
        first = missing[0]
        what = ", ".join(f"`{d['name']}`" for d in missing)
        hint = f" ({first['description']})" if first.get("description") else ""
        raise SkillyardError(f"Skill {skill} needs a value for the required input {what}{hint}; nothing was installed.",
                             f"Pass --input {first['name']}=<{first.get('type', 'string')}>, or save it as the "
                             f"key `inputs.{skill}.{first['name']}` in the client's config.yaml "
                             f"($SKILLCLI_HOME, default ~/.skillcli): "
                             f"`inputs: {{{skill}: {{{first['name']}: <value>}}}}`.")
    return values
