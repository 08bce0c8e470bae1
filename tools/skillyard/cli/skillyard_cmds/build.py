"""skillyard build: compile registry.json and index.json from the skills, deterministically."""

from __future__ import annotations

NAME = "build"
HELP = "compile registry.json, index.json and compatibility files from skills/"
DESCRIPTION = """Compile the registry: validate every skill, then write registry.json, index.json and
.claude-plugin/marketplace.json. The same commit always gives the same bytes: skills are sorted, and `commit` and
`updated_at` come from git history (one `git log` pass), never from the clock.

An invalid skill fails the build with its findings (exit 1) unless --skip-invalid leaves it out.

examples:
  skillyard build                  # write registry.json and friends at the registry root
  skillyard build --check          # exit 1 if the committed files differ from a fresh build (CI)
  skillyard build --out dist/registry.json --json
"""


def add_arguments(parser) -> None:
    parser.add_argument("--out", metavar="FILE", help="where to write registry.json (index.json goes beside it)")
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    parser.add_argument("--skip-invalid", action="store_true", help="leave invalid skills out instead of failing")
    parser.add_argument("--root", default=".", help="registry root holding pyproject.toml and skills/ (default: .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--strict", dest="mode", action="store_const", const="strict")
    mode.add_argument("--lenient", dest="mode", action="store_const", const="lenient")
    parser.add_argument("--no-cache", action="store_true", help="check every skill again, ignoring the local cache")
    parser.add_argument("--json", action="store_true", help="print a JSON summary")


def run(args) -> int:
    import sys
    from pathlib import Path

    from skillyard.cli.common import Progress, print_json
    from skillyard.registry.build import build_registry, stale_outputs, write_outputs
    from skillyard.registry.report import human_report

    root = Path(args.root)
    out = Path(args.out) if args.out else None

    def progress(label: str, total: int) -> Progress:
        return Progress(label, total, enabled=sys.stderr.isatty() and not args.json)

    result = build_registry(root, mode=args.mode, skip_invalid=args.skip_invalid, use_cache=not args.no_cache,
                            progress_factory=progress)
    invalid = result.invalid
    summary = {"ok": True, "skills": result.skill_count, "invalid": [c.path for c in invalid]}
    if invalid and not args.skip_invalid:
        summary["ok"] = False
        if args.json:
            print_json({**summary, "error": "invalid skills"})
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
        if args.json:
            print_json(summary)
        elif stale:
            print("error: out of date: " + ", ".join(stale), file=sys.stderr)
            print("  fix: run `skillyard build` and commit the result.", file=sys.stderr)
        else:
            print(f"up to date: {summary['skills']} skill(s)")
        return 0 if not stale else 1
    written = write_outputs(root, result.outputs, registry_out=out)
    summary["written"] = [str(p) for p in written]
    if args.json:
        print_json(summary)
    else:
        print(f"built {summary['skills']} skill(s): " + ", ".join(str(p) for p in written))
    return 0
