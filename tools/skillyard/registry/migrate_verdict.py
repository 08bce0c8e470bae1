"""A planned conversion's verdict: converted, unchanged or refused, and what only the skill's author can fix.
Pure: it reads a `MigrationPlan`'s findings, which `plan_migration` gathered on the converted copy, in strict and lenient mode."""

from __future__ import annotations

from skillyard.format.findings import Finding

# What a conversion fixes: when the converted skill still breaks one of these rules, the conversion failed.
MIGRATE_FIXES = frozenset({"frontmatter-line-too-long", "not-portable", "yaml-unquoted-colon"})


def migrate_fixes(finding: Finding) -> bool:
    """Whether a conversion fixes what `finding` reports (`metadata.version` with no valid copy is the author's)."""
    return finding.rule in MIGRATE_FIXES and not (finding.field or "").startswith("metadata.")


def outcome(plan) -> tuple[str, list[Finding], Finding | None]:
    """(status, what the author must still fix, why it is refused) of a planned conversion.

    status is "converted" (there are changes to write), "unchanged" (already in the portable form) or "refused"
    (the converted skill would fail the lenient check, or still break a rule a conversion fixes: nothing is
    written). The remaining findings are strict errors a conversion cannot fix (`name` unlike the folder, a name
    not in the standard's form, `<` in a description, ...): the skill is written and they are reported."""
    lenient_errors = [f for f in plan.lenient_findings if f.is_error]
    in_both = {(f.rule, f.file, f.field, f.line) for f in lenient_errors}
    strict_only = [f for f in plan.findings if f.is_error and (f.rule, f.file, f.field, f.line) not in in_both]
    unfixed = [f for f in strict_only if migrate_fixes(f)]
    blocking = lenient_errors + unfixed
    if blocking and plan.changes:
        return "refused", [], blocking[0]
    remaining = [f for f in plan.findings if f.is_error]
    return ("converted" if plan.changes else "unchanged"), remaining, None
