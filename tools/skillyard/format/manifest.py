"""The optional `skill.yaml` manifest: it fills what SKILL.md's frontmatter lacks and must never disagree with it."""

from __future__ import annotations

from skillyard.format.findings import Finding, error
from skillyard.format.schemas import SCHEMA_FILES, load_schema
from skillyard.format.yamlload import DuplicateKeyError, YAMLLimitError, YAMLParseError, load_with_lines

MANIFEST_ONLY_FIELDS = ("schema_version", "system_prompt")
MAX_MANIFEST_BYTES = 512 * 1024  # it may carry the whole prompt (`system_prompt`), unlike frontmatter


def parse_manifest(text: str, file: str = "skill.yaml") -> tuple[dict | None, dict[str, int], list[Finding]]:
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
    findings: list[Finding] = []
    props = load_schema(SCHEMA_FILES["skill-yaml"])["properties"]
    version = data.get("schema_version")
    if version is not None and (not isinstance(version, str) or not version.startswith("1.")):
        findings.append(error("manifest-schema-version", f"schema_version {version!r} is not supported.",
                              props["schema_version"]["x-fix"], file=file, line=lines.get("schema_version"),
                              field="schema_version"))
    return data, lines, findings


def merge_manifest(frontmatter: dict, manifest: dict, *, file: str = "skill.yaml",
                   manifest_lines: dict[str, int] | None = None) -> tuple[dict, list[Finding]]:
    """Frontmatter wins; the manifest supplies only missing fields; the same field with two values is an error."""
    merged = dict(frontmatter)
    findings: list[Finding] = []
    for key, value in manifest.items():
        if key in MANIFEST_ONLY_FIELDS:
            continue
        if key not in frontmatter:
            merged[key] = value
        elif frontmatter[key] != value:
            findings.append(error(
                "manifest-conflict", f"`{key}` is {frontmatter[key]!r} in SKILL.md but {value!r} in skill.yaml.",
                f"Keep `{key}` in one place (SKILL.md's frontmatter is preferred) or make the values equal.",
                file=file, line=(manifest_lines or {}).get(key), field=key))
    return merged, findings


def manifest_to_skill_md(manifest: dict) -> str:
    """The SKILL.md text equivalent to a skill.yaml-only skill: frontmatter fields, then `system_prompt` as body."""
    import frontmatter

    meta = {k: v for k, v in manifest.items() if k not in MANIFEST_ONLY_FIELDS}
    ordered = {k: meta[k] for k in ("name", "description") if k in meta}
    ordered.update((k, v) for k, v in meta.items() if k not in ordered)
    body = str(manifest.get("system_prompt", "")).rstrip("\n")
    post = frontmatter.Post(body, **ordered)
    return frontmatter.dumps(post, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100) + "\n"
