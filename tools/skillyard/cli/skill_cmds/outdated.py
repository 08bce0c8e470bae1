"""skill outdated: the installed skills whose source has a newer version (as `npm outdated` / `brew outdated`)."""

from __future__ import annotations

NAME = "outdated"
HELP = "list installed skills that have a newer version in their source"
DESCRIPTION = """\
Compare each installed skill's version with the newest version the source it came from lists (its registry.json
is asked for again, conditionally; a server that cannot be reached leaves the cached copy in use, with a warning). Versions compare as SemVer: 1.10.0 is newer than 1.9.0, a
pre-release is older than its release. A skill installed from GitHub is compared by commit: the commit its
tracked ref (the branch or tag it was installed from, else the default branch) names now, asked of the GitHub API
(github.api_url, $SKILL_GITHUB_API_URL), against the installed commit; INSTALLED and LATEST show the two commits.
Skills installed from a folder or an archive have no version list: they are shown as unknown (`skill update`
compares their files). --json for programs (a GitHub row has `commits`; `checked` is false where no fresh
answer could be had).

exit status (as `npm outdated`, so scripts can tell):
  0  every installed skill was checked and none has an update
  1  at least one skill has an update
  3  none has a known update, but some could not be checked (offline, a server or the GitHub API unreachable,
     a source with no cached registry): they are named, and "up to date" is not claimed
Both scopes are read by default (--user or --project for one), as `skill list` and `skill update --all` do.

examples:
  skill outdated
  skill outdated --project --json
  skill source refresh && skill update --all
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    _scopes.add_arguments(parser, project_help="only the current project's skills", user_help="only your home's skills")
    parser.add_argument("--all", action="store_true", help="also list skills that are up to date or unknown")
    parser.add_argument("--offline", action="store_true", help="use only the cached registries, never the network")
    parser.add_argument("--json", action="store_true", help="print every installed skill's state as JSON")


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.cli.skill_cmds.list import installed
    from skillyard.client import update
    from skillyard.client.cache import stderr_warn
    from skillyard.client.config import load_config
    from skillyard.client.display import clean, table

    items = installed(args)
    config = load_config()
    wanted = {i["source"].get("source") for i in items if i["source"].get("type") == "registry"}
    stale: set[str] = set()
    registries = update.known_registries(config, wanted, offline=args.offline, strict=True, refresh=not args.offline,
                                         warn=stderr_warn, stale=stale) if wanted else {}
    states = [update.github_known(item, config, offline=args.offline) if item["source"].get("type") == "github"
              else update.newest_known(item, registries, stale) for item in items]
    scopes = _scopes.chosen(args)
    status = exit_status(states)
    if args.json:
        print_json({"scope": _scopes.names(scopes), "skills": [s.to_dict() for s in states]})
        return status
    print(_scopes.line(scopes))
    unchecked = [s for s in states if not s.checked]
    shown = states if args.all else [s for s in states if s.state == "outdated" or not s.checked]
    if not shown:
        print("no skills installed" if not states else "every installed skill is up to date"
              + (" (some could not be compared; see --all)" if any(s.state == "unknown" for s in states) else ""))
        return status
    rows = [["NAME", "SCOPE", "INSTALLED", "LATEST", "SOURCE", "STATE"]]
    for s in shown:
        state = s.state if s.checked else f"{s.state}, not checked"
        rows.append([clean(s.name), s.scope, clean(s.installed), clean(s.latest or "-"), clean(s.source),
                     state + (f" ({s.reason})" if s.reason else "")])
    print("\n".join(table(rows)))
    if any(s.state == "outdated" for s in shown):
        flags = _scopes.flags(args)
        print(f"update with `skill update NAME{flags}` (or `skill update --all{flags}`)")
    if unchecked:
        stderr_warn(f"{len(unchecked)} of {len(states)} skill(s) could not be checked now "
                    f"({', '.join(clean(s.name) for s in unchecked[:10])}): see STATE; run again when the network "
                    "is back, without --offline")
    return status


def exit_status(states) -> int:
    """1 when an update exists, else 3 when some skill could not be checked, else 0 (see DESCRIPTION)."""
    if any(s.state == "outdated" for s in states):
        return 1
    return 3 if any(not s.checked for s in states) else 0
