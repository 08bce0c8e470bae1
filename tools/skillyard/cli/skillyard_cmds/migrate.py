"""skillyard migrate: turn a skill.yaml-only or legacy skill folder into SKILL.md form."""

from __future__ import annotations

NAME = "migrate"
HELP = "convert a skill.yaml-only or legacy skill folder into SKILL.md form"
DESCRIPTION = """Convert a legacy skill folder into SKILL.md form:
  - skill.yaml only: writes SKILL.md (frontmatter from the manifest, `system_prompt` as the body) and removes
    skill.yaml (keep it with --keep-manifest);
  - lowercase skill.md: renamed to SKILL.md.
The result is validated; --dry-run prints the diff and changes nothing.

examples:
  skillyard migrate skills/invoice-processor --dry-run
  skillyard migrate skills/invoice-processor
"""


def add_arguments(parser) -> None:
    parser.add_argument("folder", help="the skill folder to convert")
    parser.add_argument("--dry-run", action="store_true", help="show the diff; write nothing")
    parser.add_argument("--keep-manifest", action="store_true", help="keep skill.yaml after writing SKILL.md")
    parser.add_argument("--json", action="store_true", help="print the plan and findings as JSON")


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json
    from skillyard.registry.migrate import apply_plan, plan_migration

    folder = Path(args.folder)
    plan = plan_migration(folder)
    if args.json:
        payload = plan.to_dict()
    else:
        print(plan.describe(), end="")
    if not args.dry_run and plan.changes:
        findings = apply_plan(folder, plan, keep_manifest=args.keep_manifest)
    else:
        findings = plan.findings
    errors = [f for f in findings if f.is_error]
    if args.json:
        payload.update(applied=not args.dry_run and bool(plan.changes), findings=[f.to_dict() for f in findings])
        print_json(payload)
    else:
        for f in findings:
            if f.severity != "info":
                print(f"  {f.severity} {f.file or ''}{':' + str(f.line) if f.line else ''} [{f.rule}] {f.message}")
        state = "would be" if args.dry_run else "is"
        print(f"{folder}: the migrated skill {state} " + ("valid" if not errors else f"invalid ({len(errors)} error(s))"))
    return 0 if not errors else 1
