"""skill list: the installed skills, per scope, with version, source, targets, local edits and whether a newer
version is known."""

from __future__ import annotations

NAME = "list"
HELP = "list installed skills (your home's and the current project's)"
DESCRIPTION = """\
List the skills installed in your home (user scope) and in the current project (project scope), with their
version, where they came from, which agents they were placed for, whether files were edited since, and whether
the cached registry of their source knows a newer version ("outdated"; `skill outdated` asks the server first).

By default both scopes are listed (--user or --project for one); the first line says which were read, and --json
has them in `scope`.

examples:
  skill list
  skill list --project --json
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    _scopes.add_arguments(parser, project_help="list only the current project's skills",
                          user_help="list only your home's skills")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


def collect(scope: str, root) -> list[dict]:
    from skillyard.client import lockfile, store

    out = []
    for name in store.installed_names(root):
        folder = store.canonical_dir(root, name)
        lock = lockfile.read_skill_lock(folder)
        source = lock["resolved_source"]
        out.append({
            "name": name, "version": lock["version"], "scope": scope, "path": str(folder),
            "source": source, "targets": [t["target"] for t in lock.get("targets", [])],
            "inputs": lock.get("resolved_inputs", {}),
            "edited": store.edited_files(folder, lock.get("files", [])),
        })
    return out


def scopes_of(args) -> list[tuple[str, object]]:
    """The (scope, root) pairs --user / --project / --project-dir select (both by default; cli/skill_cmds/_scopes.py)."""
    from skillyard.cli.skill_cmds import _scopes

    return _scopes.chosen(args)


def installed(args) -> list[dict]:
    return [item for name, root in scopes_of(args) for item in collect(name, root)]


def add_outdated(skills: list[dict]) -> None:
    """Set each item's `outdated` ({state, latest}) from the cached registries only: `skill list` never waits on
    the network, and says nothing it cannot know (no cache, a bad config: state unknown). Nothing installed:
    nothing imported for skills that no registry versions (the update machinery is most of `skill list`'s
    start-up)."""
    for item in skills:  # GitHub, archive and local installs have no version list (update.newest_known agrees)
        item["outdated"] = {"state": "unknown", "latest": None}
    from_registries = [i for i in skills if i["source"].get("type") == "registry"]
    if not from_registries:
        return
    from skillyard.client import update
    from skillyard.client.config import load_config
    from skillyard.errors import SkillyardError

    wanted = {i["source"].get("source") for i in from_registries}
    try:
        registries = update.known_registries(load_config(), wanted, offline=True, strict=False)
    except SkillyardError:
        registries = {}
    for item in from_registries:
        state = update.newest_known(item, registries)
        item["outdated"] = {"state": state.state, "latest": state.latest}


def run(args) -> int:
    import sys

    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds._install_common import shorten

    scopes = scopes_of(args)
    skills = [item for name, root in scopes for item in collect(name, root)]
    add_outdated(skills)
    from skillyard.client.store import pending_changes

    pending = sorted({n for _, root in scopes for n in pending_changes(root)})
    from skillyard.cli.skill_cmds import _scopes

    if args.json:
        print_json({"scope": _scopes.names(scopes), "skills": skills, **({"pending": pending} if pending else {})})
        return 0
    for name in pending:
        print(f"note: an interrupted change to {name!r} is pending; the next install, update or uninstall "
              "finishes it", file=sys.stderr)
    from skillyard.cli.common import say
    from skillyard.client.display import clean, table

    say(_scopes.line(scopes))
    if not skills:
        print("no skills installed")
        return 0
    rows = [["NAME", "VERSION", "SCOPE", "SOURCE", "TARGETS", "PATH"]]
    for item in skills:  # versions, sources and paths come from lockfiles a registry's data filled
        source = item["source"]
        origin = {"registry": source.get("source"), "github": source.get("url"), "local": source.get("path")}
        where = origin.get(source["type"]) or source["type"]
        edited = f"  [edited: {', '.join(item['edited'])}]" if item["edited"] else ""
        newer = item["outdated"]
        outdated = f"  [outdated: {clean(newer['latest'])} available]" if newer["state"] == "outdated" else ""
        rows.append([item["name"], str(item["version"]), item["scope"], f"{source['type']}:{where}",
                     ", ".join(item["targets"]) or "agents", f"{shorten(item['path'])}{edited}{outdated}"])
    for row in table(rows, last_flexible=False):
        say(row)
    return 0
