"""The portable form: what a SKILL.md frontmatter may hold so that every Agent Skills client reads it.

The decided split: SKILL.md's frontmatter holds only the standard's keys, in block-style YAML, exactly what the
reference validator (`skills-ref`, strictyaml) accepts; every other field lives in `skill.yaml` beside it. This
module says which keys are portable, finds what is not (pure: data and text in, findings out), and writes the
portable frontmatter -- the one writer `skill init`, `skillyard migrate` and the client all use.
"""

from __future__ import annotations

import json

from skillyard.format.findings import Finding, strict_or_warning
from skillyard.format.schemas import SCHEMA_FILES, load_schema

SPEC_KEYS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
MIGRATE_FIX = "Run `skillyard migrate --to-standard {folder}`: it moves registry fields into skill.yaml and rewrites the frontmatter in block style."


def _fix(folder: str | None) -> str:
    return MIGRATE_FIX.format(folder=folder or "<folder>")


def portability_findings(data: dict, yaml_text: str, *, strict: bool, file: str = "SKILL.md",
                         key_lines: dict[str, int] | None = None, folder: str | None = None,
                         bom: bool = False) -> list[Finding]:
    """Everything in a parsed frontmatter that a spec-only client would reject or misread (`not-portable`)."""
    from skillyard.format.rules import known_fields
    from skillyard.format.yamlload import flow_collections

    key_lines = key_lines or {}
    fix = _fix(folder)
    findings: list[Finding] = []

    def add(message: str, line: int | None, field: str | None = None, fix_text: str = fix) -> None:
        findings.append(strict_or_warning(strict, "not-portable", message, fix_text, file=file, line=line, field=field))

    if bom:
        add("SKILL.md starts with a byte-order mark; clients that look for `---` at byte 0 find no frontmatter.", 1,
            fix_text="Save the file as UTF-8 without a BOM.")
    known = known_fields()
    for key in data:
        if not isinstance(key, str) or key in SPEC_KEYS:
            continue
        if key in known or strict:  # in lenient mode an unknown key already has its `unknown-field` warning
            add(f"`{key}` is not a field of the Agent Skills standard; spec-only clients reject the whole file.",
                key_lines.get(key), key, f"Move `{key}` to skill.yaml beside SKILL.md. " + fix)
    if isinstance(data.get("allowed-tools"), list):
        add("`allowed-tools` is a list; the standard wants one space-separated string.", key_lines.get("allowed-tools"),
            "allowed-tools", "Write `allowed-tools: Read Grep Bash(git:*)`. " + fix)
    if "[" in yaml_text or "{" in yaml_text:  # the only characters that can open a flow collection
        for line, kind in flow_collections(yaml_text):
            add(f"The frontmatter uses a flow-style {kind} (`[...]` or `{{...}}`), which the standard's strict YAML "
                "refuses.", line + 2, fix_text="Write lists as `- item` lines and maps as `key: value` lines (quote "
                "a value that starts with `[` or `{`). " + fix)
    if "---" in yaml_text:
        add("The frontmatter contains `---`; clients that split the file at the first `---` misread it.",
            None, fix_text="Reword the value so it holds no `---` (for example a dash or `--`).")
    return findings


def manifest_findings(manifest: dict, lines: dict[str, int], *, strict: bool, folder: str | None = None,
                      file: str = "skill.yaml") -> list[Finding]:
    """The standard's keys (but `name` and `description`, which may repeat) belong in SKILL.md, where every client
    sees them: in skill.yaml only Skillyard would."""
    return [strict_or_warning(
        strict, "not-portable", f"`{key}` is a field of the Agent Skills standard, but only Skillyard reads skill.yaml.",
        f"Move `{key}` to SKILL.md's frontmatter. " + _fix(folder), file=file, line=lines.get(key), field=key)
        for key in SPEC_KEYS[2:] if key in manifest]


REGISTRY_IN_METADATA = ("version", "author", "tags", "homepage", "repository", "display-name", "maintainers")


def metadata_findings(frontmatter: dict, merged: dict, *, strict: bool, file: str = "SKILL.md",
                      key_lines: dict[str, int] | None = None, folder: str | None = None) -> list[Finding]:
    """Registry data kept under `metadata` (`metadata.version`, as some runtimes do) is not where Skillyard reads it:
    fine as a copy for other clients when skill.yaml holds the same value, `not-portable` when it is the only one or
    disagrees."""
    metadata = frontmatter.get("metadata")
    if not isinstance(metadata, dict):
        return []
    findings = []
    for key in REGISTRY_IN_METADATA:
        if key not in metadata or (key in merged and _text(merged[key]) == _text(metadata[key])):
            continue
        problem = "disagrees with" if key in merged else "is not read by Skillyard, which reads"
        findings.append(strict_or_warning(
            strict, "not-portable", f"`metadata.{key}` {problem} `{key}` in skill.yaml.",
            f"Put `{key}` in skill.yaml (keep `metadata.{key}` only as an equal copy). " + _fix(folder),
            file=file, line=(key_lines or {}).get("metadata"), field=f"metadata.{key}"))
    return findings


def _text(value: object) -> str:
    """A metadata value as the string a spec client reads: scalars as YAML writes them, the rest as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def portable_value(key: str, value: object) -> object:
    """The value of a spec key in the portable form (lists of tools joined, metadata flattened to strings)."""
    if key == "allowed-tools" and isinstance(value, list):
        return " ".join(str(v) for v in value)
    if key == "metadata" and isinstance(value, dict):
        return {str(k): _text(v) for k, v in value.items()}
    if key in ("name", "description", "license", "compatibility", "allowed-tools") and not isinstance(value, str):
        return _text(value)
    return value


def split_portable(data: dict) -> tuple[dict, dict]:
    """(spec keys in portable form, in the standard's order; every other field) of a frontmatter or manifest."""
    spec = {k: portable_value(k, data[k]) for k in SPEC_KEYS if k in data and data[k] not in (None, {}, [], "")}
    rest = {k: v for k, v in data.items() if k not in SPEC_KEYS}
    return spec, rest


def metadata_as_written(yaml_text: str) -> dict[str, str] | None:
    """`metadata`'s scalar values exactly as the author wrote them (`1.10` stays "1.10", not the float 1.1), which
    is what a strict-YAML client reads; None when there is no such flat map. Only for text that already loaded."""
    import yaml

    from skillyard.format.yamlload import frontmatter_loader

    loader = frontmatter_loader()(yaml_text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    if not isinstance(root, yaml.MappingNode):
        return None
    for key_node, value_node in root.value:
        if getattr(key_node, "value", None) == "metadata" and isinstance(value_node, yaml.MappingNode):
            pairs = [(k, v) for k, v in value_node.value if isinstance(k, yaml.ScalarNode)]
            if all(isinstance(v, yaml.ScalarNode) for _, v in pairs):
                return {str(k.value): str(v.value) for k, v in pairs}
    return None


def _dump(data: dict, width: float) -> str:
    """Block-style YAML with list items indented under their key, as people write them."""
    import yaml

    from skillyard.format.yamlwrite import block_dumper

    return yaml.dump(data, Dumper=block_dumper(width), sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=width)


def dump_frontmatter(spec: dict) -> str:
    """Block-style YAML for the spec keys (no flow collections, strings quoted where YAML needs it), long values
    folded so no line passes the strict limit (format/yamlwrite.py); a value no short line can hold exactly stays
    on one line, where the strict check reports it."""
    from skillyard.format.yamlwrite import FoldError, dump_short_lines

    try:
        return dump_short_lines(spec)
    except FoldError:
        return _dump(spec, float("inf")) if spec else ""


def dump_manifest(manifest: dict) -> str:
    """skill.yaml text: `schema_version` first, block style, key order kept."""
    ordered = {"schema_version": str(manifest.get("schema_version") or "1.0")}
    ordered.update((k, v) for k, v in manifest.items() if k != "schema_version")
    return _dump(ordered, 100)


def schema_spec_keys() -> tuple[str, ...]:
    """The keys the frontmatter schema marks `x-file: SKILL.md` (a test keeps them equal to SPEC_KEYS)."""
    props = load_schema(SCHEMA_FILES["frontmatter"])["properties"]
    return tuple(k for k, v in props.items() if v.get("x-file") == "SKILL.md")
