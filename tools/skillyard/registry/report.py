"""The validation report: the stable `--json` shape (schemas/validate-report.schema.json) and the human text."""

from __future__ import annotations

from collections import Counter
from json.encoder import encode_basestring

from skillyard.registry.checked import CheckedSkill

SCHEMA_VERSION = "1.0"

# validate-report.schema.json's bounds on what a skill's own files choose (the PR bot reads the report as hostile):
# longer values are cut with "…", and past FINDINGS_LIMIT one finding says how many were left out.
NAME_LIMIT, PATH_LIMIT, VERSION_LIMIT, FINDINGS_LIMIT, CHANGED_PATH_LIMIT = 64, 300, 100, 500, 4096
TRUNCATED_RULE = "findings-truncated"


def clipped(text: str | None, limit: int) -> str | None:
    return text if text is None or len(text) <= limit else text[:limit - 1] + "\u2026"


def listed_findings(c: CheckedSkill) -> list:
    """A skill's findings as the report lists them: all of them up to FINDINGS_LIMIT; past it the most severe
    first (in their order), then one `findings-truncated` finding counting the rest. The summary counts them all."""
    findings = c.findings
    if len(findings) <= FINDINGS_LIMIT:
        return list(findings)
    from skillyard.format.findings import Finding, Severity

    order = {"error": 0, "warning": 1, "info": 2}
    keep = sorted(range(len(findings)), key=lambda i: (order.get(str(findings[i].severity), 3), i))[:FINDINGS_LIMIT - 1]
    kept = [findings[i] for i in sorted(keep)]
    return [*kept, Finding(TRUNCATED_RULE, Severity.INFO,
                           f"{len(findings) - len(kept):,} more finding(s) are not listed: the report lists at most "
                           f"{FINDINGS_LIMIT} per skill (the summary counts them all).",
                           fix="Run `skillyard validate` on this skill without --json to see every finding.")]


def validate_report(checked: list[CheckedSkill], mode: str, *, changed_paths: list[str] | None = None,
                    skills: object = None) -> dict:
    """The report as data. `skills` stands in for the list of skill entries when the caller writes them itself
    (`validate_report_json`)."""
    errors = sum(1 for c in checked for f in c.findings if f.is_error)  # an allowed finding is not an error
    warnings = sum(1 for c in checked for f in c.findings if f.severity == "warning" and f.allowed is None)
    invalid = sum(1 for c in checked if not c.valid)
    report = {
        "schema_version": SCHEMA_VERSION,
        "mode": mode,
        "ok": invalid == 0,
        "summary": {"skills": len(checked), "valid": len(checked) - invalid, "invalid": invalid,
                    "errors": errors, "warnings": warnings},
        "skills": skills if skills is not None else [skill_entry(c) for c in checked],
        "rule_counts": dict(sorted(rule_counts(checked).items())),
    }
    if changed_paths is not None:
        report["changed_paths"] = [clipped(path, CHANGED_PATH_LIMIT) for path in changed_paths]
    return report


def skill_entry(c: CheckedSkill) -> dict:
    return {"name": clipped(c.name, NAME_LIMIT), "path": clipped(c.path, PATH_LIMIT), "valid": c.valid,
            "version": clipped(c.version, VERSION_LIMIT), "findings": [f.to_dict() for f in listed_findings(c)]}


_SKILLS_SLOT = "\0skills\0"  # a stand-in value, found by its place (the top-level `skills` key) in the text


def validate_report_json(checked: list[CheckedSkill], mode: str, *, changed_paths: list[str] | None = None) -> str:
    """`validate_report` as indented, key-sorted JSON with a final newline: the bytes `json.dumps(report,
    ensure_ascii=False, indent=2, sort_keys=True)` gives, with the skill entries (all but a few lines of a report
    over thousands of skills) written straight from their fixed shape instead of walked as generic data."""
    from skillyard.format.jsonout import dumps_sorted

    entries = _skill_entries_json(checked)
    if entries is None:  # a value of an unexpected type: the generic encoder decides
        return dumps_sorted(validate_report(checked, mode, changed_paths=changed_paths)) + "\n"
    text = dumps_sorted(validate_report(checked, mode, changed_paths=changed_paths, skills=_SKILLS_SLOT))
    slot = '\n  "skills": ' + encode_basestring(_SKILLS_SLOT)  # a raw line feed: structure, never inside a string
    return text.replace(slot, '\n  "skills": ' + entries, 1) + "\n"


_STRING_FIELDS = ("allowed", "digest", "field", "file", "fix")  # with `line`, the optional keys of a finding, in sorted order


def _skill_entries_json(checked: list[CheckedSkill]) -> str | None:
    """The `skills` list as it sits in the report (one level in), or None when a value is not of the report's
    plain types (then the generic encoder, whose answer this equals, runs instead)."""
    if not checked:
        return "[]"
    quote = encode_basestring
    entry_gap, key_gap, finding_gap, finding_key_gap = ",\n    ", ",\n      ", ",\n        ", ",\n          "
    entries = []
    for c in checked:
        if type(c.name) is not str or type(c.path) is not str or (c.version is not None and type(c.version) is not str):
            return None
        findings = []
        for f in listed_findings(c) if len(c.findings) > FINDINGS_LIMIT else c.findings:
            keys = []
            for name in _STRING_FIELDS:
                value = getattr(f, name)
                if value is not None:
                    if type(value) is not str:
                        return None
                    keys.append(f'"{name}": {quote(value)}')
            if f.line is not None:
                if type(f.line) is not int:
                    return None
                keys.append(f'"line": {int.__repr__(f.line)}')
            if type(f.message) is not str or type(f.rule) is not str:
                return None
            keys += [f'"message": {quote(f.message)}', f'"rule": {quote(f.rule)}',
                     f'"severity": {quote(str(f.severity))}']
            findings.append("{\n          " + finding_key_gap.join(keys) + "\n        }")
        listed = "[\n        " + finding_gap.join(findings) + "\n      ]" if findings else "[]"
        version = "null" if c.version is None else quote(clipped(c.version, VERSION_LIMIT))
        entries.append(f'{{\n      "findings": {listed}{key_gap}"name": {quote(clipped(c.name, NAME_LIMIT))}{key_gap}'
                       f'"path": {quote(clipped(c.path, PATH_LIMIT))}{key_gap}"valid": {"true" if c.valid else "false"}'
                       f'{key_gap}"version": {version}\n    }}')
    return "[\n    " + entry_gap.join(entries) + "\n  ]"


def rule_counts(checked: list[CheckedSkill]) -> Counter:
    return Counter(f"{f.severity}:{f.rule}" for c in checked for f in c.findings)


def human_report(checked: list[CheckedSkill], *, verbose: bool = False, stats: bool = False) -> str:
    """Findings grouped by skill, then one summary line."""
    from skillyard.format.safety import finding_text, visible

    lines: list[str] = []
    shown = ("error", "warning", "info") if verbose else ("error", "warning")
    for item in checked:
        findings = [f for f in item.findings if f.severity in shown]
        if not findings and not verbose:
            continue
        mark = "ok  " if item.valid else "FAIL"
        lines.append(f"{mark} {visible(item.path, one_line=True)} ({visible(item.name, one_line=True)})")
        for f in findings:  # every value a skill's files chose is made one visible line: a terminal or CI log
            where, message, fix = finding_text(f)  # shows what the report says, not what an escape code draws
            field = f" `{visible(f.field, one_line=True)}`" if f.field and not f.message.startswith(f"`{f.field}`") else ""
            label = "allowed" if f.allowed is not None else f.severity
            lines.append(f"  {label:<7} {where} [{f.rule}]{field} {message}")
            if f.allowed is not None:  # a reviewed exception (format/exceptions.py): shown, never an error
                lines.append(f"          allowed by the skill, reason: {visible(f.allowed, one_line=True)}")
            elif f.fix:
                lines.append(f"          fix: {fix}")
    if stats:
        lines.append("")
        lines.append("findings by rule:")
        for rule, count in sorted(rule_counts(checked).items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {count:6d}  {rule}")
        lines.append("")
    invalid = sum(1 for c in checked if not c.valid)
    errors = sum(1 for c in checked for f in c.findings if f.is_error)
    warnings = sum(1 for c in checked for f in c.findings if f.severity == "warning" and f.allowed is None)
    allowed = sum(1 for c in checked for f in c.findings if f.allowed is not None)
    lines.append(f"{len(checked)} skill(s): {len(checked) - invalid} valid, {invalid} invalid; "
                 f"{errors} error(s), {warnings} warning(s)" + (f", {allowed} allowed by reviewed security "
                                                                 "exceptions" if allowed else ""))
    return "\n".join(lines) + "\n"
