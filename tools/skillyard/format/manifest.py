"""`skill.yaml`, beside SKILL.md: it holds every field the standard's frontmatter does not (version, tags, inputs,
...). One merge rule: a field may come from either file; the same field with two different values is an error.
"""

from __future__ import annotations

import re

from skillyard.format.findings import Finding, error, strict_or_warning, warning
from skillyard.format.frontmatter import escaped_hidden_findings
from skillyard.format.portable import SPEC_KEYS, dump_frontmatter, portable_value, split_portable
from skillyard.format.schemas import SCHEMA_FILES, load_schema
from skillyard.format.yamlload import DuplicateKeyError, YAMLLimitError, YAMLParseError, load_with_lines

# Read from skill.yaml alone, never merged into the skill's data: `security_exceptions` is format/exceptions.py's.
MANIFEST_ONLY_FIELDS = ("schema_version", "system_prompt", "security_exceptions")
MAX_MANIFEST_BYTES = 512 * 1024  # it may carry the whole prompt (`system_prompt`), unlike frontmatter


SUPPORTED_MAJOR = 1
SUPPORTED_MINOR = 0  # the newest `1.x` this Skillyard knows: "1.0"
_VERSION = re.compile(r"(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})")


def parse_manifest(text: str, file: str = "skill.yaml", *,
                   strict: bool = False) -> tuple[dict | None, dict[str, int], list[Finding]]:
    try:
        data, lines = load_with_lines(text, max_bytes=MAX_MANIFEST_BYTES)
    except YAMLLimitError as exc:
        return None, {}, [error(exc.rule, exc.message, exc.fix, file=file, line=exc.line)]
    except DuplicateKeyError as exc:
        return None, {}, [error("yaml-duplicate-key", f"The key `{exc.key}` appears twice.", "Keep one of them.",
                                file=file, line=exc.line, field=exc.key)]
    except YAMLParseError as exc:
        mark = exc.problem_mark
        return None, {}, [error("yaml-syntax", f"skill.yaml is not valid YAML: {exc.problem or exc}.",
                                "Check indentation and quoting.", file=file, line=mark.line + 1 if mark else None)]
    if not isinstance(data, dict):
        return None, {}, [error("manifest-shape", "skill.yaml is not a mapping.", "Write `field: value` lines.", file=file)]
    return data, lines, (schema_version_findings(data, lines, file=file, strict=strict)
                         + escaped_hidden_findings(data, text, lines, file=file))


def schema_version_findings(data: dict, lines: dict[str, int], *, file: str, strict: bool) -> list[Finding]:
    """`schema_version` is required in strict mode and must be a quoted `MAJOR.MINOR`. A newer major is refused in
    both modes (its fields may mean something else); a newer minor only adds fields, so it is read with a warning
    naming the upgrade (its new fields show up as unknown)."""
    fix = load_schema(SCHEMA_FILES["skill-yaml"])["properties"]["schema_version"]["x-fix"]
    where = {"file": file, "line": lines.get("schema_version"), "field": "schema_version"}
    if "schema_version" not in data:
        return [strict_or_warning(strict, "manifest-schema-version", "skill.yaml has no `schema_version`.",
                                  fix, file=file, line=1, field="schema_version")]
    version = data["schema_version"]
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if match is None:
        shown = repr(version) if isinstance(version, str) else f"{version!r} (a {type(version).__name__}, not text)"
        return [error("manifest-schema-version", f"schema_version {shown} is not of the form MAJOR.MINOR in quotes.",
                      fix, **where)]
    major = int(match.group(1))
    known = f"{SUPPORTED_MAJOR}.{SUPPORTED_MINOR}"
    upgrade = "Upgrade Skillyard (`pip install -U skillyard`), or write the manifest for `schema_version: \"1.0\"`."
    if major > SUPPORTED_MAJOR:
        return [error("manifest-schema-version",
                      f"schema_version \"{version}\" is a newer major version of the skill.yaml format than this "
                      f"Skillyard understands ({known}): fields may have changed meaning.", upgrade, **where)]
    if major == SUPPORTED_MAJOR and int(match.group(2)) > SUPPORTED_MINOR:
        return [warning("manifest-schema-version",
                        f"schema_version \"{version}\" is newer than this Skillyard understands ({known}): fields "
                        "added since are not checked (they are reported as unknown).", upgrade, **where)]
    if major < SUPPORTED_MAJOR:
        return [error("manifest-schema-version", f"schema_version \"{version}\" was never a skill.yaml format.",
                      fix, **where)]
    return []


def merge_manifest(frontmatter: dict, manifest: dict, *, file: str = "skill.yaml",
                   manifest_lines: dict[str, int] | None = None) -> tuple[dict, list[Finding]]:
    """The one merge rule: each field from whichever file has it; the same field with two values is an error.

    A standard key is compared in its portable form (`metadata: {n: 1}` equals `metadata: {n: "1"}`), so a
    SKILL.md written from a manifest by `manifest_to_skill_md` never conflicts with that manifest."""
    merged = dict(frontmatter)
    findings: list[Finding] = []
    for key, value in manifest.items():
        if key in MANIFEST_ONLY_FIELDS:
            continue
        if key not in frontmatter:
            merged[key] = value
            continue
        ours = frontmatter[key]
        same = ours == value or (key in SPEC_KEYS and portable_value(key, ours) == portable_value(key, value))
        if not same:
            findings.append(error(
                "manifest-conflict", f"`{key}` is {_short(ours)} in SKILL.md but {_short(value)} in skill.yaml.",
                f"Keep `{key}` in one file ({'SKILL.md' if key in SPEC_KEYS else 'skill.yaml'}, where the split "
                "puts it) or make the two values equal.",
                file=file, line=(manifest_lines or {}).get(key), field=key))
    return merged, findings


def declared_fields(frontmatter: dict | None, manifest: dict | None) -> dict | None:
    """A skill's own metadata before validation, as every reader takes it (`skill install` of a folder, archive or
    `github:`, and `skillyard external add`): SKILL.md's frontmatter merged with skill.yaml (a conflict is left to
    validation), or skill.yaml's fields alone for a skill.yaml-only skill (design 000); None with neither."""
    if manifest is None:
        return frontmatter
    if frontmatter is None:
        return {k: v for k, v in manifest.items() if k not in MANIFEST_ONLY_FIELDS}
    return merge_manifest(frontmatter, manifest)[0]


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def manifest_to_skill_md(manifest: dict) -> str:
    """The portable SKILL.md of a skill.yaml-only skill: the standard's keys as block-style frontmatter, then
    `system_prompt` as the body. Every other field stays in the skill.yaml beside it."""
    spec, _ = split_portable({k: v for k, v in manifest.items() if k not in MANIFEST_ONLY_FIELDS})
    body = str(manifest.get("system_prompt") or "").rstrip("\n")
    return f"---\n{dump_frontmatter(spec)}---\n\n{body}\n"
