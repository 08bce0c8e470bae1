"""`skillyard external refresh-findings`: rewrite the findings pointers record, after the scanner's rules changed.

A pointer records the findings of the Skillyard that wrote it. When the rules change, `external verify` reports
the difference as a warning and names this command; a maintainer runs it and opens the rewritten source.yaml files
as a PR, so the change of verdict is reviewed like any other (a subcommand of `external`, in its own module)."""

from __future__ import annotations

import argparse

HELP = "rewrite pointers' recorded findings as today's rules find them (after a scanner change)"
DESCRIPTION = """Re-fetch each pointer's pinned commit (as verify does), judge the files with today's rules, and
rewrite only the `findings` the pointer records; every other byte of source.yaml stays. Open the result as a PR:
the diff is the change of verdict, for a reviewer.

Nothing is written for a pointer whose files or metadata differ from what it records (a broken pin or a bump:
`external verify` and `external bump` are for that), or whose files today's rules block: a new blocking finding is a
maintainer's decision (a reviewed exception with `external add … --allow`, or removing the pointer), never a
refresh. Exit 0 when every named pointer is refreshed or already current; 1 when one could not be checked or its
files differ; 3 when nothing differs but today's rules block one.

examples:
  skillyard external refresh-findings
  skillyard external refresh-findings skill-scanner --dry-run
  skillyard external refresh-findings brainstorming agents-md --json
"""


def add_parser(sub) -> None:
    refresh = sub.add_parser("refresh-findings", help=HELP, description=DESCRIPTION,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    refresh.add_argument("names", nargs="*", metavar="NAME", help="pointer entries to refresh (default: all)")
    refresh.add_argument("--dry-run", action="store_true", help="say what would change, write nothing")
    refresh.add_argument("--token-env", metavar="VAR", help="environment variable holding a GitHub token "
                         "(default: GITHUB_TOKEN)")
    refresh.add_argument("--root", default=".", help="registry root holding pyproject.toml (default: .)")
    refresh.add_argument("--json", action="store_true", help="print each pointer's outcome as JSON")


def run(args, config, get, hosts) -> int:
    from skillyard.cli.common import print_json, say
    from skillyard.format.safety import visible
    from skillyard.registry import external_verify as ev

    get = ev.remembering(get)
    outcomes = [ev.refresh_findings(folder, config, get, hosts, write=not args.dry_run)
                for folder in ev.select(config, args.names, None)]
    failed = sum(o["status"] == "failed" for o in outcomes)
    blocked = sum(o["status"] == "blocked" for o in outcomes)
    written = [o["name"] for o in outcomes if o["status"] in ("refreshed", "would-refresh")]
    if args.json:
        print_json({"ok": not failed and not blocked, "dry_run": args.dry_run, "refreshed": len(written),
                    "failed": failed, "blocked": blocked, "pointers": outcomes})
    else:
        for o in outcomes:
            at = f" at {o['commit'][:12]}" if o.get("commit") else ""
            if o["status"] in ("refreshed", "would-refresh", "unchanged"):
                say(f"{o['status']:<9} {o['name']}{at}" + (f": {len(o['added'])} finding(s) added, {len(o['removed'])}"
                                                         " removed" if o["status"] != "unchanged" else ""))
            else:
                say(f"{o['status'].upper():<9} {o['name']}{at}: {visible(o.get('reason') or '', one_line=True)}")
        verb = "would be rewritten" if args.dry_run else "rewritten"
        say(f"{len(written)} of {len(outcomes)} pointers' findings {verb}"
            + (f", {failed} failed" if failed else "") + (f", {blocked} blocked by today's rules" if blocked else "")
            + ("; open the change as a PR" if written and not args.dry_run else ""))
    return ev.EXIT_FAILED if failed else ev.EXIT_BLOCKED if blocked else 0
