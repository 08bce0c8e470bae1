"""skillyard validate: check skill folders against the format and the registry's policy."""

from __future__ import annotations

NAME = "validate"
HELP = "check skill folders (default: every skill under skills/)"
DESCRIPTION = """Check skill folders against the Skillyard format and this registry's policy.

Exit status: 0 when no skill has an error, 1 when any has, 2 on usage errors.

examples:
  skillyard validate                       # every skill under skills/, policy from pyproject.toml
  skillyard validate skills/pdf-form-review --json
  skillyard validate --lenient ../other-repo/skills --stats
  skillyard validate --changed-since origin/main   # only skills a branch changes (CI)
"""


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="skill folders or folders of skills")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--strict", dest="mode", action="store_const", const="strict", help="errors for every rule")
    mode.add_argument("--lenient", dest="mode", action="store_const", const="lenient",
                      help="tolerate what real runtimes accept (warnings instead of errors)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON (schemas/validate-report)")
    parser.add_argument("--changed-since", metavar="REF", help="validate only skills changed since the merge base with REF")
    parser.add_argument("--root", default=".", help="registry root holding pyproject.toml (default: .)")
    parser.add_argument("--stats", action="store_true", help="also print finding counts by rule")
    parser.add_argument("-v", "--verbose", action="store_true", help="also show info findings and clean skills")
    parser.add_argument("--no-cache", action="store_true", help="do not reuse cached results")


def named(folder: str, rel: str) -> tuple[str, str]:
    """(folder, rel) as given, unless either does not end in the folder's own name (`.`, `..`, or the root itself,
    which gives ''): then both become the absolute path, so the name rules see the real folder name."""
    import os

    if {os.path.basename(folder.rstrip("/")), rel.rstrip("/").rsplit("/", 1)[-1]} & {"", ".", ".."}:
        return os.path.abspath(folder), os.path.abspath(folder)
    return folder, rel


def _cache_root(root, config):
    from skillyard.registry.cache import cache_root_for

    return cache_root_for(root, config)


def run(args) -> int:
    import gc
    import os
    from pathlib import Path

    from skillyard.errors import UsageError
    from skillyard.registry import gitlog
    from skillyard.registry.collect import collect
    from skillyard.registry.config import load_registry_config

    root = Path(args.root)
    config = load_registry_config(root)
    args.paths = [os.path.normpath(p) for p in args.paths]  # `dir/.` and `./dir` name the folder `dir`
    policy = config.policy(args.mode)
    changed = None
    if args.changed_since:
        if args.paths:
            raise UsageError("--changed-since and PATH arguments cannot be combined.", "Use one or the other.")
        changed = gitlog.changed_files(root, args.changed_since)
        all_folders = collect(root, config) if config.skills_dir.exists() else []
        touched = {rel for _, rel in all_folders
                   if any(path == rel or path.startswith(rel + "/") for path in changed)}
        folders = [(f, rel) for f, rel in all_folders if rel in touched]
        others = {Path(rel).name: rel for _, rel in all_folders if rel not in touched}
    else:
        folders = [named(folder, rel) for folder, rel in
                   collect(root, config, args.paths or None, nested=bool(args.paths))]
        others = {}
        inside_registry = config.skills_dir.exists() and all(
            Path(p).resolve().is_relative_to(config.skills_dir.resolve()) for p in args.paths)
        if args.paths and inside_registry:
            # Checking part of the registry: names must still be unique against the rest (folder = name in strict).
            others = {Path(rel).name: rel for _, rel in collect(root, config)}
    if folders:
        import skillyard.format.package  # noqa: F401 - the check's modules, loaded before the heap is frozen
    # Everything loaded so far (modules, their tables and compiled patterns) lives as long as the command, so the
    # cyclic collector is told not to walk it again while the command runs: otherwise each full collection in this
    # process and its workers walks the whole heap (7-16 ms each), the one here after the workers finish. An
    # in-process caller gets its heap back as it was.
    thaw = not gc.get_freeze_count()
    gc.freeze()
    try:
        return _check_and_report(args, root, config, policy, folders, others, changed)
    finally:
        if thaw:
            gc.unfreeze()
            _freeze_at_exit()


def _freeze_at_exit() -> None:
    """Freeze the heap again when the interpreter exits (once per process): the final collection at exit
    otherwise walks every module's objects the command thawed (~30 ms of a 683-skill run's CPU, ~8 ms of one
    skill's), only to free memory the exit frees anyway."""
    import atexit
    import gc

    global _EXIT_FREEZE
    if not _EXIT_FREEZE:
        _EXIT_FREEZE = True
        atexit.register(gc.freeze)


_EXIT_FREEZE = False


def _check_and_report(args, root, config, policy, folders, others, changed) -> int:
    """Check the folders, add the registry-wide name findings, print the report; the exit status."""
    import sys

    from skillyard.cli.common import Progress
    from skillyard.registry.collect import add_duplicate_findings
    from skillyard.registry.load import check_folders
    from skillyard.registry.report import human_report, validate_report_json

    with Progress("checking skills", len(folders), enabled=sys.stderr.isatty() and not args.json) as progress:
        checked = check_folders(folders, policy, cache_root=None if args.no_cache else _cache_root(root, config),
                                progress=progress, outputs=False)
    add_duplicate_findings(checked, {k: v for k, v in others.items() if all(c.path != v for c in checked)})
    if args.json:
        sys.stdout.write(validate_report_json(checked, policy.mode, changed_paths=changed))
    else:
        sys.stdout.write(human_report(checked, verbose=args.verbose, stats=args.stats))
        if not folders:
            print("no skills found" + (f" changed since {args.changed_since}" if changed is not None else ""))
    return 0 if all(c.valid for c in checked) else 1
