"""skillyard build: compile registry.json and index.json from the skills, deterministically."""

from __future__ import annotations

from pathlib import Path

HOSTS = ("github", "github-enterprise", "static")  # registry/config.py's (not imported: --help stays fast)

NAME = "build"
HELP = "compile registry.json, index.json and compatibility files from skills/"
DESCRIPTION = """Compile the registry: validate every skill, then write registry.json, index.json and
.claude-plugin/marketplace.json. The same commit always gives the same bytes: skills are sorted, and `commit` and
`updated_at` come from git history (one `git log` pass), never from the clock.

A host that pins files by commit (github, github-enterprise) serves each skill's files from its last commit, so the
build refuses a skill file that differs from HEAD (modified, staged, untracked or deleted): commit it first. A
static host serves the working tree as it is; the build then says how many skill files differ from HEAD.

An invalid skill fails the build with its findings (exit 1) unless --skip-invalid leaves it out.

examples:
  skillyard build                  # write registry.json and friends at the registry root
  skillyard build --check          # exit 1 if the committed files differ from a fresh build (CI)
  skillyard build --out dist/registry.json --json
  skillyard build --host static    # publish the working tree (no commit pinning)
  skillyard build --serve-dir _registry && python -m http.server --directory _registry   # a static host
"""


def add_arguments(parser) -> None:
    parser.add_argument("--out", metavar="FILE", help="where to write registry.json (index.json goes beside it)")
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    parser.add_argument("--skip-invalid", action="store_true", help="leave invalid skills out instead of failing")
    parser.add_argument("--root", default=".", help="registry root holding pyproject.toml and skills/ (default: .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--strict", dest="mode", action="store_const", const="strict")
    mode.add_argument("--lenient", dest="mode", action="store_const", const="lenient")
    parser.add_argument("--host", choices=HOSTS, help="override the configured host (static: files are served from "
                        "the folder as built, not pinned to a commit)")
    parser.add_argument("--serve-dir", metavar="DIR", type=Path,
                        help="also write DIR: exactly the tree a static host serves (registry.json, index.json, "
                        "sparse/ and the listed skill files; no .git, caches or settings)")
    parser.add_argument("--no-cache", action="store_true", help="check every skill again, ignoring the local cache")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")


def run(args) -> int:
    import sys
    from pathlib import Path

    from skillyard.cli.common import Progress, print_json
    from skillyard.registry.build import build_registry, stale_outputs, write_outputs
    from skillyard.registry.report import human_report
    from skillyard.registry.tree_state import TreeState

    root = Path(args.root)
    out = Path(args.out) if args.out else None
    config = _config(root, args.host)

    def progress(label: str, total: int) -> Progress:
        return Progress(label, total, enabled=sys.stderr.isatty() and not args.json)

    tree = None if args.check else TreeState(root, config)  # git reads the working tree while the build runs
    try:
        result = build_registry(root, mode=args.mode, skip_invalid=args.skip_invalid, use_cache=not args.no_cache,
                                progress_factory=progress, config=config)
        invalid = result.invalid
        differs = tree.differing(lambda: result.registry) if tree is not None and result.outputs else []
    finally:
        if tree is not None:
            tree.finish()
    summary = {"ok": True, "skills": result.skill_count, "invalid": [c.path for c in invalid]}
    if invalid and not args.skip_invalid:
        summary["ok"] = False
        if args.json:
            print_json({**summary, "error": f"{len(invalid)} invalid skill(s); nothing was written",
                        "fix": "Fix their findings (`skillyard validate --root ROOT`), or pass --skip-invalid to "
                               "leave them out."})
        else:
            sys.stderr.write(human_report(invalid))
            print(f"error: {len(invalid)} invalid skill(s); nothing was written.", file=sys.stderr)
            print("  fix: fix the findings above, or pass --skip-invalid to leave them out.", file=sys.stderr)
        return 1
    if invalid and not args.json:
        print(f"warning: left out {len(invalid)} invalid skill(s): {', '.join(c.path for c in invalid)}",
              file=sys.stderr)
    if args.check:
        stale = stale_outputs(root, result.outputs, registry_out=out)
        summary.update(ok=not stale, stale=stale)
        if stale:  # the same error object as every other failure
            summary.update(error="out of date: " + ", ".join(stale), fix="Run `skillyard build` and commit the result.")
        if args.json:
            print_json(summary)
        elif stale:
            print("error: out of date: " + ", ".join(stale), file=sys.stderr)
            print("  fix: run `skillyard build` and commit the result.", file=sys.stderr)
        else:
            print(f"up to date: {summary['skills']} skill(s)")
        return 0 if not stale else 1
    from skillyard.registry.tree_state import pins_by_commit

    if differs and pins_by_commit(config):
        return _refuse_unpinned(summary, differs, tree.head, as_json=args.json)
    if tree is not None and tree.in_git:
        summary["working_tree"] = {"head": tree.head, "differs_from_head": len(differs), "files": differs}
    served = None
    if args.serve_dir is not None:  # checked and read before anything is written
        from skillyard.registry.served import plan_served_tree, write_served_tree

        served = plan_served_tree(root, result.outputs, args.serve_dir, config.skills_dir)
    written = write_outputs(root, result.outputs, registry_out=out)
    summary["written"] = [str(p) for p in written]
    if served is not None:
        summary["served"] = {"dir": str(args.serve_dir), "files": write_served_tree(*served)}
    if args.json:
        print_json(summary)
    else:
        print(f"built {summary['skills']} skill(s): " + ", ".join(str(p) for p in written))
        if "served" in summary:
            print(f"served tree: {summary['served']['dir']} ({summary['served']['files']} files); serve that folder, "
                  "e.g. `python -m http.server --directory " + f"{summary['served']['dir']}`")
        if differs:
            print(f"note: built from the working tree: {len(differs)} skill file(s) differ from HEAD "
                  f"{(tree.head or 'none')[:12]}: {_listed(differs)}")
    return 0


SHOWN = 20  # files named in a message; the rest are counted


def _listed(paths: list[str]) -> str:
    from skillyard.cli.common import visible

    shown = ", ".join(visible(p) for p in paths[:SHOWN])
    return shown + (f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else "")


def _refuse_unpinned(summary: dict, differs: list[str], head: str | None, *, as_json: bool) -> int:
    """A host that pins by commit would publish sha256s the commit does not hold: every install would fail."""
    import sys

    from skillyard.cli.common import print_json

    what = f"HEAD {head[:12]}" if head else "any commit (the repository has none yet)"
    error = (f"{len(differs)} skill file(s) differ from {what}, the commit registry.json would pin them to; "
             "nothing was written")
    fix = ("commit them first (`git add` + `git commit`, then build again), or publish the working tree as it is "
           "with `skillyard build --host static`.")
    if as_json:
        print_json({**summary, "ok": False, "error": error, "fix": fix, "differs_from_head": differs})
    else:
        print(f"error: {error}: {_listed(differs)}", file=sys.stderr)
        print(f"  fix: {fix}", file=sys.stderr)
    return 1


def _config(root, host: str | None):
    """The registry settings, with `--host` in place of the configured host (and of any raw URL template)."""
    from skillyard.registry.config import RegistryConfig, load_registry_config

    config = load_registry_config(root)
    if not host:
        return config
    section = {key: value for key, value in config.section.items() if key != "raw_url_template"}
    return RegistryConfig(config.root, {**section, "host": host}, config.file)
