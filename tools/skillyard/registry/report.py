"""The validation report: the stable `--json` shape (schemas/validate-report.schema.json) and the human text."""

from __future__ import annotations

from collections import Counter

from skillyard.registry.checked import CheckedSkill

SCHEMA_VERSION = "1.0"


def validate_report(checked: list[CheckedSkill], mode: str, *, changed_paths: list[str] | None = None) -> dict:
    errors = sum(1 for c in checked for f in c.findings if f.severity == "error")
    warnings = sum(1 for c in checked for f in c.findings if f.severity == "warning")
    invalid = sum(1 for c in checked if not c.valid)
    report = {
        "schema_version": SCHEMA_VERSION,
        "mode": mode,
        "ok": invalid == 0,
        "summary": {"skills": len(checked), "valid": len(checked) - invalid, "invalid": invalid,
                    "errors": errors, "warnings": warnings},
        "skills": [{"name": c.name, "path": c.path, "valid": c.valid, "version": c.version,
                    "findings": [f.to_dict() for f in c.findings]} for c in checked],
        "rule_counts": dict(sorted(rule_counts(checked).items())),
    }
    if changed_paths is not None:
        report["changed_paths"] = changed_paths
    return report


def rule_counts(checked: list[CheckedSkill]) -> Counter:
    return Counter(f"{f.severity}:{f.rule}" for c in checked for f in c.findings)


def human_report(checked: list[CheckedSkill], *, verbose: bool = False, stats: bool = False) -> str:
    """Findings grouped by skill, then one summary line."""
    lines: list[str] = []
    shown = ("error", "warning", "info") if verbose else ("error", "warning")
    for item in checked:
        findings = [f for f in item.findings if f.severity in shown]
        if not findings and not verbose:
            continue
        mark = "ok  " if item.valid else "FAIL"
        lines.append(f"{mark} {item.path} ({item.name})")
        for f in findings:
            where = f.file or ""
            if f.line:
                where += f":{f.line}"
            field = f" `{f.field}`" if f.field else ""
            lines.append(f"  {f.severity:<7} {where} [{f.rule}]{field} {f.message}")
            if f.fix:
                lines.append(f"          fix: {f.fix}")
    if stats:
        lines.append("")
        lines.append("findings by rule:")
        for rule, count in sorted(rule_counts(checked).items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {count:6d}  {rule}")
        lines.append("")
    invalid = sum(1 for c in checked if not c.valid)
    errors = sum(1 for c in checked for f in c.findings if f.severity == "error")
    warnings = sum(1 for c in checked for f in c.findings if f.severity == "warning")
    lines.append(f"{len(checked)} skill(s): {len(checked) - invalid} valid, {invalid} invalid; "
                 f"{errors} error(s), {warnings} warning(s)")
    return "\n".join(lines) + "\n"
