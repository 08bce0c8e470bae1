"""skill validate: check a skill folder (or installed skill) and whether a target can serve it."""

from __future__ import annotations

NAME = "validate"
HELP = "check a skill (folder or installed name) with the registry's rules, and against a --target"
DESCRIPTION = """\
Run the same checks as `skillyard validate` on one skill (lenient by default, --strict for the registry's mode) and,
with --target, check that the target can serve every capability the skill declares; an unsupported capability is
an error naming it. Lenient mode (the open standard's floor) also says, on its last line, whether strict mode -
what a registry's CI runs - accepts the skill, so "valid" is never a surprise in a pull request (`strict_ok` in
--json).

REF may also be `github:OWNER/REPO/PATH[@REF]` or an archive file (`skills.zip/folder`): the files `skill install`
would judge are fetched with its readers and judged by the same judge, the skill's own security exceptions
withdrawn as an install withdraws them, so every finding an install refusal summarised is listed here.

examples:
  skill validate ./my-skill --strict
  skill validate github:obra/superpowers/skills/brainstorming@44c9b2d6e889982ac18c27d05a19fefe335194e1
  skill validate invoice-processor --target openai --json
"""


def add_arguments(parser) -> None:
    parser.add_argument("ref", metavar="REF", help="a skill folder, an installed skill's name, github:OWNER/REPO/PATH"
                        "[@REF] or an archive file")
    parser.add_argument("--target", metavar="TARGET", help="also check this target can serve the capabilities")
    parser.add_argument("--strict", action="store_true", help="strict mode (what a registry enforces)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def find_folder(ref: str):
    """The skill folder as an absolute path: `.` or `..` must be checked under the folder's real name."""
    import os
    from pathlib import Path

    from skillyard.errors import SkillyardError
    from skillyard.runtime.locate import locate

    folder = locate(ref)
    if folder is None:
        raise SkillyardError(f"no skill folder or installed skill named {ref!r}",
                             "Give a path to a folder with SKILL.md, or install the skill first (`skill install`).")
    return Path(os.path.abspath(folder))


def run(args) -> int:
    import sys

    from skillyard.cli.common import print_json
    from skillyard.client import remote_check, targets
    from skillyard.format import Policy, load_skill  # noqa: F401  (the folder's other checks read it as well)
    from skillyard.format.findings import error
    from skillyard.format.verdict import judge

    scratch = None  # a github: ref's or an archive's files, on disk until this command returns
    if remote_check.is_remote(args.ref):  # what an install of this ref judges, by the same judge
        from skillyard.client.config import load_config

        scratch, folder = remote_check.materialize(*remote_check.fetch(args.ref, load_config())[1:])
    else:
        folder = find_folder(args.ref)
    package = judge(folder, Policy(strict=args.strict), own_reviewed=scratch is None).package
    findings = list(package.findings)
    if args.target:
        targets.get(args.target)
        capabilities = package.data.get("capabilities") or []
        for capability in targets.unsupported_capabilities(args.target, capabilities if isinstance(capabilities, list)
                                                           else []):
            findings.append(error("capability-unsupported",
                                  f"Target {args.target} cannot serve the capability `{capability}`.",
                                  "Remove it from `capabilities`, or choose a target that supports it "
                                  "(see `skill adapter list`).", file=package.skill_md_name or "SKILL.md",
                                  field="capabilities"))
    ok = not any(f.is_error for f in findings)
    if args.json:
        print_json({"ok": ok, "skill": package.name, "path": str(folder), "mode": "strict" if args.strict else "lenient",
                    "target": args.target, "findings": [f.to_dict() for f in findings],
                    "strict_ok": ok if args.strict else not any(
                        f.is_error for f in load_skill(folder, Policy(strict=True)).findings)})
    else:
        from skillyard.format.safety import finding_text, visible

        for f in findings:
            where, message, fix = finding_text(f)
            stream = sys.stdout if not f.is_error else sys.stderr
            print(f"{where or '.'}: {f.severity}: [{f.rule}] {message}", file=stream)
            if f.allowed is not None:  # the skill's reviewed security exception (format/exceptions.py)
                print(f"  allowed by the skill, reason: {visible(f.allowed, one_line=True)}", file=stream)
            elif f.fix:
                print(f"  fix: {fix}", file=stream)
        errors = sum(1 for f in findings if f.is_error)
        mode = "strict" if args.strict else "lenient"
        print(f"{visible(package.name, one_line=True)}: {'valid' if ok else f'{errors} error(s)'} ({mode} mode)"
              + (f" for target {args.target}" if args.target else ""))
        if ok and not args.strict:
            print(strict_outlook(folder))
    return 0 if ok else 1


def strict_outlook(folder) -> str:
    """What a registry's CI (strict mode) will say of a skill lenient mode accepts: one line, so `skill validate`
    never calls valid what `skillyard validate --strict` then refuses without saying so."""
    from skillyard.format import Policy, load_skill

    strict = [f for f in load_skill(folder, Policy(strict=True)).findings if f.is_error]
    if not strict:
        return "strict mode (what a registry's CI runs) accepts it too"
    rules = ", ".join(sorted({f.rule for f in strict}))
    return (f"strict mode (what a registry's CI runs) refuses it: {len(strict)} error(s) [{rules}]; "
            "see them with `skill validate --strict`")
