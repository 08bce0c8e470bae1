"""skill search: find skills across every configured source."""

from __future__ import annotations

NAME = "search"
HELP = "search the skills of every source (name, tags, description)"
DESCRIPTION = """\
Search the cached registries of all sources. Names weigh more than tags, tags more than descriptions;
words match as prefixes and with small typos, and Chinese/Japanese/Korean text matches inside phrases.
Works offline from the cache (--offline, or automatically with a warning when the network fails).
KIND says where a skill's files live: `own` (in the registry's repository), or `pointer` (in the skill's own
repository, pinned by the registry) marked `verified` when a maintainer of the registry approved the pin and
`unverified` when not (`skill install --require-verified` refuses those). --json gives `pointer` (true/false) and
`verified` (true/false; null for own skills).

examples:
  skill search invoice
  skill search inv --limit 5
  skill search 发票 --json
"""


def add_arguments(parser) -> None:
    parser.add_argument("query", nargs="+", help="words to look for")
    parser.add_argument("--limit", type=int, default=20, help="show at most this many results (default 20)")
    parser.add_argument("--source", help="search only this source")
    parser.add_argument("--offline", action="store_true", help="use only the cache, never the network")
    parser.add_argument("--refresh", action="store_true", help="ask the servers for changes first")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")


def run(args) -> int:
    from skillyard.client.config import load_config
    from skillyard.client.search import search

    text = " ".join(args.query)
    hits = search(load_config(), text, limit=max(1, args.limit), source=args.source, offline=args.offline,
                  refresh=args.refresh)
    if args.json:
        from skillyard.cli.common import print_json

        print_json({"query": text, "results": [h.to_dict() for h in hits]})
        return 0
    if not hits:
        print(f"no skills match {text!r}")
        return 0
    from skillyard.client.display import clean, table

    rows = [["NAME", "VERSION", "SOURCE", "KIND", "DESCRIPTION"]]
    for hit in hits:
        source = hit.source + (" (shadowed)" if hit.shadowed else "")
        kind = "own" if not hit.pointer else "pointer, verified" if hit.verified else "pointer, unverified"
        rows.append([clean(hit.name), clean(hit.version), source, kind, clean(hit.description)])
    print("\n".join(table(rows)))
    return 0
