"""skill uninstall: remove a skill and everything it placed (links, copies, generated files), per its lock."""

from __future__ import annotations

NAME = "uninstall"
HELP = "remove installed skills and every target they were placed for"
DESCRIPTION = """\
Remove a skill from where it is installed - your home (user scope) or the current project (project scope): the
canonical folder, each link or copy made for an agent, and generated API files, as listed in its skill.lock.json.
A skill installed in both scopes needs --user or --project to say which. A project uninstall also drops it from
skills.lock.json. A skill whose files you changed after the install is not removed: the command names the changed
files and stops; --force removes it after keeping a copy in .agents/skill-backups/ (the path is printed).

examples:
  skill uninstall invoice-processor
  skill uninstall pdf-tools --project
"""


def add_arguments(parser) -> None:
    from skillyard.cli.skill_cmds import _scopes

    parser.add_argument("names", nargs="+", metavar="NAME", help="installed skill name(s)")
    _scopes.add_arguments(parser, project_help="uninstall from the current project",
                          user_help="uninstall from your home")
    parser.add_argument("--force", action="store_true",
                        help="also remove a skill you edited (a backup copy is kept and named) or a folder that has "
                             "no skill.lock.json")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def uninstall(name: str, *, scope: str, project_root, home, force: bool = False) -> dict:
    from skillyard.client import backup, lockfile, store
    from skillyard.client import install as inst
    from skillyard.errors import SkillyardError

    store.check_name(name)
    root = store.scope_root(scope, project_root=project_root, home=home)
    folder = store.canonical_dir(root, name)
    removed: list[str] = []
    kept: str | None = None
    with store.store_lock(root):
        inst.recover(root)
        project_lock = lockfile.read_project_lock(project_root) if scope == "project" else None
        in_project_lock = bool(project_lock and name in project_lock["skills"])
        targets: list[dict] = []
        if (folder / store.SKILL_LOCK).is_file():
            lock = lockfile.read_skill_lock(folder)
            targets = lock.get("targets", [])
            edited = store.edited_files(folder, lock.get("files", []))
            if edited and not force:
                raise SkillyardError(f"{name} was not uninstalled: you changed {len(edited)} file(s) since the "
                                     f"install ({', '.join(edited[:10])}{', ...' if len(edited) > 10 else ''}) in "
                                     f"{folder}.", "Copy your changes somewhere safe, or run again with --force "
                                     "(it keeps a backup of the folder and prints where).")
            if edited:
                kept = str(backup.keep_copy(root, name))
            removed += [t["path"] for t in targets if t.get("mode") != "canonical"]
        elif folder.is_dir() and not folder.is_symlink() and force:
            kept = str(backup.keep_copy(root, name))  # not installed by `skill`: all of it is the user's
        elif folder.exists():
            raise SkillyardError(f"{folder} has no {store.SKILL_LOCK}, so `skill` did not install it.",
                                 "Delete it yourself, or pass --force.")
        elif not in_project_lock:
            raise SkillyardError(f"{name} is not installed ({scope} scope).",
                                 "See what is installed with `skill list`" +
                                 ("; add --project for the project's skills." if scope == "user" else "."))
        if folder.exists() or folder.is_symlink():
            removed.append(str(folder))
        # Journaled, so a kill half-way is finished by the next command: no lock entry without its folder.
        store.write_journal(root, {"action": "uninstall", "name": name, "scope": scope, "targets": targets,
                                   "in_project_lock": in_project_lock})
        inst.apply_intent(root, {"action": "uninstall", "name": name, "scope": scope, "targets": targets,
                                 "in_project_lock": in_project_lock})
    out = {"name": name, "scope": scope, "removed": removed}
    if kept:
        out["backup"] = kept
    return out


def run(args) -> int:
    from skillyard.cli.common import print_json
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.cli.skill_cmds._install_common import scope_of, shorten

    _, project_root, home = scope_of(args)
    scopes = _scopes.chosen(args)
    plan = [(name, _scope_for(name, scopes, args)) for name in dict.fromkeys(args.names)]
    results = [uninstall(name, scope=scope, project_root=project_root, home=home, force=args.force)
               for name, scope in plan]
    if args.json:
        print_json({"ok": True, "scope": _scopes.names(scopes), "uninstalled": results})
    else:
        print(_scopes.line(scopes))
        for result in results:
            print(f"uninstalled {result['name']} ({result['scope']} scope): "
                  + (", ".join(shorten(p) for p in result["removed"]) or "lockfile entry only"))
            if result.get("backup"):
                print(f"  your edited copy is kept in {shorten(result['backup'])}")
    return 0


def _scope_for(name: str, scopes, args) -> str:
    """The one scope to uninstall `name` from: where it is installed; a name in both scopes must be told which
    (removing both at once is never a guess)."""
    from skillyard.cli.skill_cmds import _scopes
    from skillyard.client import store
    from skillyard.errors import SkillyardError, UsageError

    store.check_name(name)
    found = _scopes.names(_scopes.where_installed(name, scopes))
    if len(found) > 1:
        raise UsageError(f"{name} is installed in both the user and the project scope; nothing was removed.",
                         f"Say which: `skill uninstall {name} --user` or `skill uninstall {name} --project`.")
    if found:
        return found[0]
    if _project_lock_has(name, scopes):
        return "project"
    for scope, root in scopes:
        if store.canonical_dir(root, name).exists():
            return scope  # a folder without a lock: uninstall() removes it with --force, or says why not
    raise SkillyardError(f"{name} is not installed ({' or '.join(_scopes.names(scopes))} scope).",
                         "See what is installed with `skill list`.")


def _project_lock_has(name: str, scopes) -> bool:
    """A project's skills.lock.json may list a skill whose folder is gone: uninstall clears that entry."""
    from skillyard.client import lockfile

    root = dict(scopes).get("project")
    lock = lockfile.read_project_lock(root) if root is not None else None
    return bool(lock and name in lock["skills"])
