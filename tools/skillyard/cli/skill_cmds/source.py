"""skill source add|list|remove|refresh|priority: the registries the client reads."""

from __future__ import annotations

NAME = "source"
HELP = "add, list, remove, refresh or reorder registry sources"
DESCRIPTION = """\
A source is the URL of a registry.json. Sources added first have the highest priority: when two sources
have a skill with the same name, the higher one wins (pick another with NAME@SOURCE or --source).
For a private registry, pass --token-env with the NAME of an environment variable holding the token; the
token is read at request time and never written anywhere.

Out of the box the client reads the public Skillyard registry (source `skillyard`, marked built-in, priority 0:
below every source you add). `skill source remove skillyard` removes it for good; `skill source add URL --default`
puts your registry first and replaces it. remove, refresh and priority take a source's name or its URL.

examples:
  skill source add https://raw.githubusercontent.com/skillyard/registry/main/registry.json
  skill source add https://raw.githubusercontent.com/acme/skills/main/registry.json --name acme --token-env ACME_TOKEN
  skill source list
  skill source refresh acme
  skill source priority acme 200
  skill source remove acme
  skill source add https://skills.example.com/registry.json --name corp --default
"""


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="add a registry.json URL", description="Add a source and fetch its registry.")
    add.add_argument("url", help="URL of the registry.json (https; plain http only for 127.0.0.1/localhost)")
    add.add_argument("--name", help="short name used in NAME@SOURCE (default: the registry's own `name`, else "
                     "from the URL)")
    add.add_argument("--token-env", metavar="VAR", help="environment variable that holds the token")
    add.add_argument("--priority", type=int, help="higher wins; default: below every existing source")
    add.add_argument("--default", action="store_true",
                     help="make this the first source and replace the built-in default source")
    add.add_argument("--no-fetch", action="store_true", help="add without fetching the registry now")
    add.add_argument("--json", action="store_true", help="print the result as JSON")

    listing = sub.add_parser("list", help="show the sources, highest priority first")
    listing.add_argument("--json", action="store_true", help="print the sources as JSON")

    remove = sub.add_parser("remove", help="remove a source (by name or URL) and its cached registry")
    remove.add_argument("name", metavar="NAME|URL")
    remove.add_argument("--json", action="store_true", help="print the result as JSON")

    refresh = sub.add_parser("refresh", help="fetch the registries again (conditional GET)")
    refresh.add_argument("name", nargs="?", metavar="NAME|URL", help="only this source (its name or URL)")
    refresh.add_argument("--json", action="store_true", help="print the results as JSON")

    priority = sub.add_parser("priority", help="change a source's priority (higher wins)")
    priority.add_argument("name", metavar="NAME|URL")
    priority.add_argument("value", type=int)
    priority.add_argument("--json", action="store_true", help="print the result as JSON")


def _summary(source, entry=None, meta=None) -> dict:
    import os
    import time

    from skillyard.client.sources import public_dict

    data = public_dict(source)
    if data.get("token_env"):
        data["token_set"] = bool(os.environ.get(source.token_env))
    meta = meta if meta is not None else (entry.meta if entry else None)
    if meta:
        data["checked_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(meta.get("checked_at", 0))))
    if entry is not None:
        data["status"] = entry.status
        data["skills"] = len(entry.registry().get("skills", []))
    return data


def _add(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.client import cache, sources
    from skillyard.client.config import load_config

    config = load_config()
    if args.default and args.priority is not None:
        from skillyard.errors import UsageError

        raise UsageError("--default and --priority cannot be combined", "--default puts the source first; drop one.")
    source = sources.new_source(config, args.url, name=args.name, token_env=args.token_env, priority=args.priority,
                                default=args.default)
    entry = None
    if not args.no_fetch:
        try:
            entry = cache.refresh_source(config, source)
        except BaseException:
            cache.discard(config, source)
            raise
        if args.name is None:  # named after the registry's own `name`, as its owner calls it
            source = sources.named_after_registry(config, source, entry.registry(), default=args.default)
    replaced = sources.add_source(source, replace_builtin=args.default)
    summary = _summary(source, entry)
    if args.json:
        print_json({"ok": True, "source": summary, **({"replaced": replaced.name} if replaced else {})})
    else:
        count = f": {summary['skills']} skills" if entry else " (not fetched yet)"
        print(f"added source {source.name!r} (priority {source.priority}){count}")
        if replaced is not None:
            print(f"it replaces the built-in default source {replaced.name!r} ({replaced.url})")
        if source.token_env and not summary.get("token_set"):
            print(f"note: ${source.token_env} is not set in this shell")
    return 0


def _list(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.client import cache
    from skillyard.client.config import load_config
    from skillyard.client.display import table

    config = load_config()
    rows = [_summary(s, meta=cache.read_meta(config, s)) for s in config.sources]
    if args.json:
        print_json({"sources": rows})
        return 0
    if not rows:
        print("no sources; add one with `skill source add URL`")
        return 0
    lines = [["NAME", "PRIORITY", "TOKEN", "CHECKED", "URL"]]
    for row in rows:
        env = "-" if not row.get("token_env") else f"${row['token_env']}" + ("" if row["token_set"] else " (unset)")
        if row.get("token_env_problem"):
            env = "INVALID (see below)"
        name = row["name"] + (" (built-in)" if row.get("builtin") else "")
        lines.append([name, str(row["priority"]), env, row.get("checked_at", "never"), row["url"]])
    print("\n".join(table(lines, last_flexible=False)))
    for row in rows:
        if row.get("token_env_problem"):
            print(f"warning: {row['name']}: {row['token_env_problem']}")
    return 0


def _remove(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.client import sources

    source = sources.remove_source(args.name)
    shown = sources.public_dict(source)
    if args.json:
        print_json({"ok": True, "removed": shown})
    else:
        print(f"removed source {source.name!r} ({shown['url']})")
        if source.builtin:
            print("the built-in default source stays off; add it back with "
                  f"`skill source add {shown['url']} --name {source.name}`")
    return 0


def _refresh(args) -> int:
    from skillyard.cli.common import Progress, print_json
    from skillyard.client import cache
    from skillyard.client.config import load_config
    from skillyard.errors import SkillyardError

    config = load_config()
    chosen = [config.source(args.name)] if args.name else config.sources
    if not chosen:
        raise SkillyardError("no sources are configured", "Add one with `skill source add URL`.")
    results, failed = [], 0
    with Progress("refreshing sources", len(chosen), enabled=False if args.json else None) as progress:
        for source in chosen:
            cached = cache.sync(config, offline=True, sources=[source])[0] if cache.read_meta(config, source) else None
            try:
                entry = cache.refresh_source(config, source, cached=cached)
                results.append(_summary(source, entry))
            except SkillyardError as exc:
                failed += 1
                row = {**_summary(source), "status": "failed", "error": exc.message, "cache_kept": cached is not None}
                if exc.fix:
                    row["fix"] = exc.fix
                results.append(row)
            progress.advance()
    if args.json:
        print_json({"ok": not failed, "sources": results})
    else:
        from skillyard.cli.common import say

        for row in results:
            if row["status"] == "failed":  # the error may quote what the server said
                kept = " (cached copy kept)" if row["cache_kept"] else ""
                say(f"{row['name']}: failed: {row['error']}{kept}")
                if row.get("fix"):
                    say(f"  fix: {row['fix']}")
            else:
                word = {"updated": "updated", "not-modified": "not modified"}.get(row["status"], row["status"])
                print(f"{row['name']}: {word} ({row['skills']} skills)")
    return 1 if failed else 0


def _priority(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.client import sources

    source = sources.set_priority(args.name, args.value)
    if args.json:
        print_json({"ok": True, "source": sources.public_dict(source)})
    else:
        print(f"source {source.name!r} now has priority {source.priority}")
    return 0


def run(args) -> int:
    return {"add": _add, "list": _list, "remove": _remove, "refresh": _refresh, "priority": _priority}[args.action](args)
