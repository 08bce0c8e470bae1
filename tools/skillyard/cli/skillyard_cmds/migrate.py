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
A FOLDER is walked the way `skillyard validate` walks it: every skill folder under it (collections nested at any
depth, skills inside skills; hidden folders and links are not entered). Every file rewritten or removed is first
copied to <name>.legacy (unless --no-backup). --dry-run prints the diffs and changes nothing.

A migration never makes a skill worse. Long values are folded (`description: >-`, lines of at most 100
characters that read back as exactly the same text); a SKILL.md already in the portable form is left as it is;
the body is kept byte for byte. Each converted skill is checked in lenient and strict mode before anything is
written; each folder is listed as:
  converted   written (or, with --dry-run, would be); strict validation passes, or fails only for rules a
              conversion cannot fix, which are listed (`name` unlike the folder, a name not in the standard's
              form, `<` in the text, ...): the author fixes those;
  unchanged   already in the portable form; its remaining problems, if any, are listed the same way;
  refused     nothing written, with the reason and the fix: no or broken frontmatter, two values for one field,
              a value that cannot be written in short lines exactly, or a converted skill that would still fail
              validation.
exit status:
  0  every folder converted or unchanged, and each passes strict validation
  1  at least one folder refused (or not found); the others are converted as listed
  3  nothing refused, but some folders fail strict validation for rules a conversion cannot fix
  2  wrong command-line usage
--json prints {"folders": [...], "summary": {...}} (a single folder: its own object), each folder with its
`status`, `remaining` findings and, when refused, `error` and `fix`.

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


def _one(folder, args) -> dict:
    from skillyard.cli.common import visible
    from skillyard.errors import SkillyardError
    from skillyard.format.safety import finding_text
    from skillyard.registry.migrate import apply_plan, outcome, plan_migration

    try:
        plan = plan_migration(folder)
        status, remaining, refusal = outcome(plan)
        if refusal is not None:
            where, message, _ = finding_text(refusal)
            raise SkillyardError(f"the converted skill would fail validation: {where} [{refusal.rule}] {message}",
                                 f"{refusal.fix or 'Fix it'} Nothing was changed.")
        if not args.json:
            print(visible(plan.describe(backup=not args.no_backup)), end="")
        applied = not args.dry_run and plan.changes
        if applied:
            apply_plan(folder, plan, backup=not args.no_backup)
    except SkillyardError as exc:
        if not args.json:
            print(visible(f"{folder}: not converted: {exc.message}\n  fix: {exc.fix}" if exc.fix else
                          f"{folder}: not converted: {exc.message}"))
        return {"folder": str(folder), "status": "refused", "applied": False, "error": exc.message, "fix": exc.fix,
                "remaining": []}
    if not args.json:
        for f in remaining:
            where, message, _ = finding_text(f)
            print(f"  still to fix by hand: {where} [{f.rule}] {message}")
        verb = "would be" if args.dry_run and status == "converted" else "is"
        state = "valid" if not remaining else \
            f"invalid in strict mode ({len(remaining)} error(s) a conversion cannot fix: the author must)"
        print(f"{folder}: the migrated skill {verb} {state} ({status})")
    payload = plan.to_dict()
    payload.update(status=status, applied=applied, findings=[f.to_dict() for f in plan.findings],
                   remaining=[f.to_dict() for f in remaining])
    return payload


def exit_code(payloads: list[dict]) -> int:
    """0 all good; 1 something refused; 3 written or unchanged, but rules a conversion cannot fix remain."""
    if any(p["status"] == "refused" for p in payloads):
        return 1
    return 3 if any(p["remaining"] for p in payloads) else 0


def run(args) -> int:
    from pathlib import Path

    from skillyard.cli.common import print_json, visible
    from skillyard.errors import SkillyardError
    from skillyard.registry.migrate import expand_batch

    payloads = []
    for given in args.folders:
        try:
            folders = expand_batch(Path(given))
        except (SkillyardError, OSError) as exc:
            message = exc.message if isinstance(exc, SkillyardError) else f"{given}: cannot read it ({exc.strerror})."
            if not args.json:
                print(visible(f"{given}: not converted: {message}"))
            payloads.append({"folder": given, "status": "refused", "applied": False, "error": message,
                             "fix": getattr(exc, "fix", None), "remaining": []})
            continue
        payloads += [_one(folder, args) for folder in folders]
    summary = {status: sum(p["status"] == status for p in payloads) for status in ("converted", "unchanged", "refused")}
    summary["needs_author"] = sum(bool(p["remaining"]) for p in payloads)
    if args.json:
        print_json(payloads[0] if len(payloads) == 1 else {"folders": payloads, "summary": summary})
    elif len(payloads) > 1:
        print(f"{summary['converted']} converted, {summary['unchanged']} unchanged, {summary['refused']} refused; "
              f"{summary['needs_author']} with problems only their author can fix")
    return exit_code(payloads)
