"""skill config get|set|unset|list: read and change the client's settings (config.yaml), one checked key at a time."""

from __future__ import annotations

NAME = "config"
HELP = "get, set, unset or list the client's settings (config.yaml), each value checked"
DESCRIPTION = """\
Read and change `skill`'s settings in $SKILLCLI_HOME/config.yaml (default ~/.skillcli/config.yaml). Every key of
the README's "Client configuration" table can be set; a value is checked before anything is written (numbers and
their range, URLs: https, or plain http only to 127.0.0.1/localhost; target names; true/false; variable names),
and the file is replaced atomically under a lock. Keys this command does not know are kept as they are.
config.yaml is rewritten by PyYAML, which keeps values and unknown keys but NOT comments or key order: a comment
you wrote in config.yaml is lost on the first `skill config set` or `unset`.

`list` shows each key's effective value and where it comes from: default, config.yaml, or an environment variable
(which wins over the file). Sources are managed with `skill source`, not here.

examples:
  skill config list
  skill config set mcp_hub.endpoint http://127.0.0.1:8090
  skill config set install.target claude-code,codex
  skill config set inputs.invoice-processor.currency EUR
  skill config get cache.ttl --json
  skill config unset mcp_hub.endpoint
"""


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    get = sub.add_parser("get", help="print one key's effective value", description="Print one key's value.")
    get.add_argument("key", metavar="KEY")
    get.add_argument("--json", action="store_true", help="print value and origin as JSON")
    put = sub.add_parser("set", help="check and store a value", description="Check a value and store it in "
                         "config.yaml (comments in the file are not kept).")
    put.add_argument("key", metavar="KEY")
    put.add_argument("value", metavar="VALUE")
    put.add_argument("--json", action="store_true", help="print the result as JSON")
    unset = sub.add_parser("unset", help="remove a key from config.yaml (its default applies again)",
                           description="Remove a key from config.yaml (comments in the file are not kept).")
    unset.add_argument("key", metavar="KEY")
    unset.add_argument("--json", action="store_true", help="print the result as JSON")
    listing = sub.add_parser("list", help="show every key, its value and where it comes from",
                             description="Show every key, its value and where it comes from.")
    listing.add_argument("--json", action="store_true", help="print the keys as JSON")


def _stored(config, key: str):
    node: object = config.data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def describe(config, key: str) -> dict:
    """{key, value, origin, env?, default}: the effective value of one key (the environment wins over the file)."""
    from skillyard.client import config_keys, config_values

    spec = config_values.lookup(key)
    stored = _stored(config, key)
    env = config_keys.env_value(key)
    value = env if env else stored if stored is not None else spec.default
    out = {"key": key, "value": value, "origin": config_keys.origin(key, stored, env), "default": spec.default}
    if spec.env:
        out["env"] = spec.env
    if env and stored is not None:
        out["overridden"] = stored  # what config.yaml says, hidden by the environment
    return out


def _unknown_keys(data: dict) -> list[str]:
    """Dotted keys in config.yaml that no spec names (kept as they are, shown by `list`)."""
    from skillyard.client import config_keys

    out = []

    def walk(node, prefix):
        for name, value in node.items():
            key = f"{prefix}{name}"
            if key in config_keys.KEYS or key in config_keys.MANAGED or key == "inputs":
                continue
            if isinstance(value, dict) and any(k.startswith(key + ".") for k in config_keys.KEYS):
                walk(value, key + ".")
            else:
                out.append(key)

    walk(data, "")
    return out


def _inputs(data: dict) -> list[str]:
    inputs = data.get("inputs")
    if not isinstance(inputs, dict):
        return []
    return [f"inputs.{skill}.{name}" for skill, values in sorted(inputs.items(), key=lambda kv: str(kv[0]))
            if isinstance(values, dict) for name in sorted(values, key=str)]


def _shown(value) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def _get(args, config) -> int:
    from skillyard.cli.common import print_json, say

    info = describe(config, args.key)
    if args.json:
        print_json(info)
    elif info["value"] is None:
        import sys

        print(f"{args.key} is not set", file=sys.stderr)
    else:
        say(_shown(info["value"]))
    return 0


def _change(args, value) -> dict:
    """Store (or with value None, remove) one key under the config lock; the result as printed."""
    from skillyard.client import config as config_mod

    with config_mod.edit() as config:
        before = _stored(config, args.key)
        config.set(args.key, value)
        if value is None:
            _prune(config.data, args.key.split("."))
        path = config.path
    info = describe(config, args.key)
    return {"ok": True, "key": args.key, "previous": before, "value": value, "path": str(path),
            "effective": info["value"], "origin": info["origin"]}


def _prune(data: dict, parts: list[str]) -> None:
    """Drop mappings left empty by an unset (`inputs: {x: {}}` says nothing)."""
    for depth in range(len(parts) - 1, 0, -1):
        node = data
        for part in parts[:depth - 1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get(parts[depth - 1]) == {}:
            node.pop(parts[depth - 1])


def _set(args) -> int:
    from skillyard.cli.common import print_json, say
    from skillyard.client import config_values

    value = config_values.parse(args.key, args.value)
    result = _change(args, value)
    if args.json:
        print_json(result)
        return 0
    say(f"{args.key} = {_shown(value)}  (in {result['path']})")
    _note_env(args.key)
    return 0


def _unset(args) -> int:
    from skillyard.cli.common import print_json, say
    from skillyard.client import config_values

    config_values.lookup(args.key)
    result = _change(args, None)
    if args.json:
        print_json(result)
        return 0
    if result["previous"] is None:
        say(f"{args.key} was not set in {result['path']}; nothing changed")
    else:
        say(f"{args.key} removed; now {_shown(result['effective'])} ({result['origin']})")
    _note_env(args.key)
    return 0


def _note_env(key: str) -> None:
    import sys

    from skillyard.client import config_keys

    if config_keys.env_value(key):
        print(f"note: ${config_keys.KEYS[key].env} is set in this shell and wins over config.yaml", file=sys.stderr)


def _list(args, config) -> int:
    from skillyard.cli.common import print_json, say
    from skillyard.client import config_keys
    from skillyard.client.display import table

    rows = [describe(config, key) for key in [*config_keys.KEYS, *_inputs(config.data)]]
    unknown = _unknown_keys(config.data)
    if args.json:
        print_json({"path": str(config.path), "keys": rows,
                    "unknown": [{"key": k, "value": _stored(config, k)} for k in unknown]})
        return 0
    lines = [["KEY", "VALUE", "FROM"]]
    lines += [[row["key"], _shown(row["value"]), row["origin"]] for row in rows]
    lines += [[key, _shown(_stored(config, key)), "config.yaml (unknown key, kept)"] for key in unknown]
    for line in table(lines, last_flexible=False):
        say(line)
    print(f"file: {config.path}; sources: `skill source list`")
    return 0


def run(args) -> int:
    from skillyard.client.config import load_config

    if args.action == "set":
        return _set(args)
    if args.action == "unset":
        return _unset(args)
    config = load_config()
    return _get(args, config) if args.action == "get" else _list(args, config)
