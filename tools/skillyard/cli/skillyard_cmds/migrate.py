"""skillyard migrate: turn skill folders into the portable form every Agent Skills client reads."""

from __future__ import annotations

NAME = "migrate"
HELP = "convert skill folders to the portable form (standard SKILL.md + skill.yaml)"
DESCRIPTION = """Convert each FOLDER to the portable form of the Agent Skills standard:
  - SKILL.md keeps only the standard's keys (name, description, license, compatibility, metadata, allowed-tools)
    in block-style YAML; its body is kept byte for byte;
  - every other field (version, tags, author, inputs, mcp_deps, runtime fields, ...) moves to skill.yaml beside it,
    with `schema_version: "1.0"`, merged with an existing skill.yaml (the same field with two values is refused);
  - a skill.yaml-only folder gets a SKILL.md written from it (`system_prompt` becomes the body);
  - a lowercase skill.md is renamed to SKILL.md;
  - design 004 packages: METADATA.yml's fields join the frontmatter's (then split as above) and the file is
    removed; the body's TypeScript/JavaScript block that exports `execute` moves to scripts/execute.ts (.js) and
    skill.yaml gets `resources.entry` (the one legacy scripts/main.ts-style entry is named the same way);
    `permissions` becomes `security` (network: none|allowlist, filesystem: none|read-only).
A FOLDER with no skill file of its own whose subfolders are skills stands for those subfolders (a batch).
Every file rewritten or removed is first copied to <name>.legacy (unless --no-backup). A folder that cannot be
converted is left untouched. The result is validated in strict mode; --dry-run prints the diff and changes nothing.

examples:
  skillyard migrate --to-standard skills/ --dry-run
  skillyard migrate --to-standard skills/invoice-processor --no-backup
"""


def add_arguments(parser) -> None:
    parser.add_argument("folders", nargs="+", metavar="FOLDER",
                        help="skill folders to convert, or folders of skill folders")
    parser.add_argument("--to-standard", action="store_true",
                        help="convert to the portable form (the only conversion there is; accepted for clarity)")
    parser.add_argument("--dry-run", action="store_true", help="show the diffs; write nothing")
    parser.add_argument("--no-backup", action="store_true", help="do not keep <file>.legacy copies")
    parser.add_argument("--json", action="store_true", help="print each plan and its findings as JSON")


def _one(folder, args) -> tuple[dict, bool]:
    from skillyard.cli.common import visible
    from skillyard.errors import SkillyardError
    from skillyard.registry.migrate import apply_plan, plan_migration

    try:
        plan = plan_migration(folder)
        if not args.json:
            print(visible(plan.describe(backup=not args.no_backup)), end="")
        applied = not args.dry_run and plan.changes
        findings = apply_plan(folder, plan, backup=not args.no_backup) if applied else plan.findings
    except SkillyardError as exc:
        if not args.json:
            print(visible(f"{folder}: not converted: {exc.message}\n  fix: {exc.fix}" if exc.fix else
                          f"{folder}: not converted: {exc.message}"))
        return {"folder": str(folder), "applied": False, "error": exc.message, "fix": exc.fix}, False
    errors = [f for f in findings if f.is_error]
    if not args.json:
        from skillyard.format.safety import finding_text

        for f in findings:
            if f.severity != "info":
                where, message, _ = finding_text(f)
                print(f"  {f.severity} {where} [{f.rule}] {message}")
        state = "would be" if args.dry_run else "is"
        print(f"{folder}: the migrated skill {state} " + ("valid" if not errors else f"invalid ({len(errors)} error(s))"))
    payload = plan.to_dict()
    payload.update(applied=applied, findings=[f.to_dict() for f in findings])
    return payload, not errors


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json
    from skillyard.errors import SkillyardError
    from skillyard.registry.migrate import expand_batch

    results = []
    for given in args.folders:
        try:
            folders = expand_batch(Path(given))
        except (SkillyardError, OSError) as exc:
            message = exc.message if isinstance(exc, SkillyardError) else f"{given}: cannot read it ({exc.strerror})."
            if not args.json:
                print(f"{given}: not converted: {message}")
            results.append(({"folder": given, "applied": False, "error": message}, False))
            continue
        results += [_one(folder, args) for folder in folders]
    if args.json:
        payloads = [payload for payload, _ in results]
        print_json(payloads[0] if len(payloads) == 1 else {"folders": payloads})
    return 0 if all(ok for _, ok in results) else 1
