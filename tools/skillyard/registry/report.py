"""The validation report: the stable `--json` shape (schemas/validate-report.schema.json) and the human text."""

from __future__ import annotations

from collections import Counter
from json.encoder import encode_basestring

from skillyard.registry.checked import CheckedSkill

SCHEMA_VERSION = "1.0"


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
        report["changed_paths"] = changed_paths
    return report


def skill_entry(c: CheckedSkill) -> dict:
    return {"name": c.name, "path": c.path, "valid": c.valid, "version": c.version,
            "findings": [f.to_dict() for f in c.findings]}


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


_STRING_FIELDS = ("allowed", "field", "file", "fix")  # with `line`, the optional keys of a finding, in sorted order


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
        for f in c.findings:
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
        version = "null" if c.version is None else quote(c.version)
        entries.append(f'{{\n      "findings": {listed}{key_gap}"name": {quote(c.name)}{key_gap}"path": '
                       f'{quote(c.path)}{key_gap}"valid": {"true" if c.valid else "false"}{key_gap}"version": '
                       f"{version}\n    }}")
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
