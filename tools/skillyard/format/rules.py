"""Frontmatter rules: the schema first, then what a schema cannot express. Pure: data in, findings out."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from skillyard.format import paths
from skillyard.format.fastcheck import quick_valid
from skillyard.format.findings import Finding, Severity, error, info, strict_or_warning, warning
from skillyard.format.quickerrors import quick_errors
from skillyard.format.schemas import SCHEMA_FILES, load_schema, resolve_schema_path, validator

KNOWN_CAPABILITIES = ("read-file", "write-file", "http-request", "execute-code")
# What `skill init` writes when no --description is given: a scaffold, refused by strict validation (so by
# `skillyard validate` and `skill publish`) until the author replaces it; lenient mode only warns.
PLACEHOLDER_DESCRIPTION = re.compile(r"Describe what \S+ does\. Use when the user asks for [^.]+\.")


def placeholder_description(name: str) -> str:
    """The sentence `skill init` writes for `name` when no description is given (matches PLACEHOLDER_DESCRIPTION)."""
    return f"Describe what {name} does. Use when the user asks for {name.replace('-', ' ')}."
# The standard's YAML (strictyaml, in its reference validator) reads every scalar as text, so `description: 2024`,
# `compatibility: 3.11` or an empty `license:` are valid skills. Our loader types them; lenient mode warns.
SCALAR_AS_TEXT = frozenset({"name", "description", "license", "compatibility"})
INPUT_REF = re.compile(r"\{\{\s*inputs\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@cache
def known_fields() -> frozenset[str]:
    return frozenset(load_schema(SCHEMA_FILES["frontmatter"])["properties"])


def _field_path(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def schema_findings(data: dict, *, strict: bool, file: str, key_lines: dict[str, int]) -> list[Finding]:
    """Turn JSON Schema errors into findings that carry the schema's own rule id and fix."""
    root = load_schema(SCHEMA_FILES["frontmatter"])
    if quick_valid(root, data) is True:
        return []
    findings = []
    errors = quick_errors(root, data)  # jsonschema (and its 0.1 s import) only when the quick walk cannot tell
    for err in validator("frontmatter").iter_errors(data) if errors is None else errors:
        rule, fix, lenient = resolve_schema_path(root, err.absolute_schema_path)
        path = _field_path(err.absolute_path)
        if err.validator == "required" and not err.absolute_path:
            missing = err.message.split("'")[1] if "'" in err.message else "?"
            findings.append(error("required-field", f"The required field `{missing}` is missing.",
                                  f"Add a `{missing}:` line to the frontmatter.", file=file, line=2, field=missing))
            continue
        if err.validator == "additionalProperties" and not err.absolute_path:
            continue  # unknown top-level fields are reported as warnings below
        lenient = lenient or _scalar_read_as_text(err)
        severity = Severity.WARNING if (lenient and not strict) else Severity.ERROR
        value = err.instance
        shown = value if not isinstance(value, str) or len(value) <= 60 else value[:57] + "..."
        message = _message(err, path, shown)
        findings.append(Finding(rule or "schema", severity, message, fix, file,
                                key_lines.get(path.split(".")[0].split("[")[0]), path or None))
    return findings


def _scalar_read_as_text(err) -> bool:
    """A type error on one of the standard's text fields whose value is a YAML scalar the standard reads as text."""
    return (err.validator == "type" and len(err.absolute_path) == 1 and err.absolute_path[0] in SCALAR_AS_TEXT
            and (err.instance is None or isinstance(err.instance, bool | int | float)))


def _message(err, path: str, shown: object) -> str:
    kind = err.validator
    label = f"`{path}`" if path else "The frontmatter"
    if kind == "type":
        return f"{label} must be of type {err.validator_value}, not {type(err.instance).__name__} ({shown!r})."
    types = [s.get("type") for s in err.validator_value if isinstance(s, dict) and set(s) == {"type"}] \
        if kind == "anyOf" and isinstance(err.validator_value, list) else []
    if types and len(types) == len(err.validator_value):  # a union of types, spelt as anyOf for ajv's strict mode
        return f"{label} must be of type {types}, not {type(err.instance).__name__} ({shown!r})."
    if kind == "maxLength":
        return f"{label} is {len(err.instance)} characters long; the limit is {err.validator_value}."
    if kind == "minLength":
        return f"{label} is empty."
    if kind == "pattern":
        return f"{label} has the value {shown!r}, which is not in the required form."
    if kind == "enum":
        return f"{label} is {shown!r}; allowed: {', '.join(map(str, err.validator_value))}."
    if kind == "oneOf":
        return f"{label} has a value of the wrong shape ({shown!r})."
    if kind in ("minimum", "maximum"):
        return f"{label} is {shown!r}; the {kind} is {err.validator_value}."
    return f"{label}: {err.message}"


def semantic_findings(data: dict, body: str, *, strict: bool, file: str, key_lines: dict[str, int],
                      folder_name: str | None, required_fields: tuple[str, ...] = ()) -> list[Finding]:
    """Checks beyond the schema: folder name, unknown fields, inputs, mcp_deps, registry policy."""
    findings: list[Finding] = []

    def where(key: str) -> dict:
        return {"file": file, "line": key_lines.get(key), "field": key}

    name = data.get("name")
    if isinstance(name, str) and folder_name is not None:
        normal_name = unicodedata.normalize("NFKC", name)
        if normal_name != unicodedata.normalize("NFKC", folder_name):
            findings.append(strict_or_warning(
                strict, "name-folder-mismatch", f"`name` is {name!r} but the folder is named {folder_name!r}.",
                f"Rename the folder to `{name}` or set `name: {folder_name}`.", **where("name")))
    if isinstance(name, str) and paths.is_reserved_device_name(name):
        findings.append(error("name-reserved", f"`name` is {name!r}, a device name Windows reserves: the skill's "
                              "folder cannot be created there, so no client can install it.",
                              f"Pick another name, such as `{name}-skill`.", **where("name")))
    description = data.get("description")
    if isinstance(description, str) and PLACEHOLDER_DESCRIPTION.fullmatch(" ".join(description.split())):
        findings.append(strict_or_warning(
            strict, "placeholder-description", "`description` is still the placeholder `skill init` wrote.",
            "Write what the skill does and when an agent should use it (one or two sentences).",
            **where("description")))
    unknown = sorted(k for k in data if isinstance(k, str) and k not in known_fields())
    for key in unknown:
        findings.append(warning("unknown-field", f"`{key}` is not a field Skillyard or a known runtime reads.",
                                "Check the spelling, or move custom data under `metadata:`.", **where(key)))
    for key in sorted(k for k in data if not isinstance(k, str)):
        findings.append(error("frontmatter-shape", f"The key {key!r} is not a string.", "Quote the key.",
                              file=file, field=str(key)))
    for key in required_fields:
        if data.get(key) in (None, "", []):
            findings.append(strict_or_warning(
                strict, "policy-required-field", f"This registry requires `{key}`.",
                f"Add `{key}:` to the frontmatter (see the format page for its form).", file=file, line=2, field=key))
    if "display-name" in data and "displayName" in data and data["display-name"] != data["displayName"]:
        findings.append(error("display-name-conflict", "`display-name` and `displayName` disagree.",
                              "Keep one of them.", **where("displayName")))
    findings += _input_findings(data.get("inputs"), body, file, key_lines, strict=strict)
    findings += _mcp_findings(data.get("mcp_deps"), file, key_lines)
    caps = data.get("capabilities")
    if isinstance(caps, list):
        for cap in caps:
            if isinstance(cap, str) and cap not in KNOWN_CAPABILITIES:
                findings.append(info("custom-capability", f"`{cap}` is a custom capability; targets may not map it.",
                                     f"Use one of {', '.join(KNOWN_CAPABILITIES)} where one fits.", **where("capabilities")))
    return findings


def _input_findings(inputs: object, body: str, file: str, key_lines: dict[str, int], *,
                    strict: bool = False) -> list[Finding]:
    findings: list[Finding] = []
    line = key_lines.get("inputs")
    declared: dict[str, dict] = {}
    if isinstance(inputs, list):
        for index, item in enumerate(inputs):
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                continue
            name = item["name"]
            if name in declared:
                findings.append(error("inputs-duplicate", f"The input `{name}` is declared twice.",
                                      "Give every input a unique name.", file=file, line=line, field=f"inputs[{index}].name"))
            declared[name] = item
            if "default" in item and not default_matches(item):
                findings.append(error("inputs-default-type",
                                      f"The default of input `{name}` ({item['default']!r}) is not a valid {item.get('type')}.",
                                      "Make the default match the input's type (and be one of `enum`).",
                                      file=file, line=line, field=f"inputs[{index}].default"))
            if item.get("required") is True and "default" in item:
                findings.append(warning("inputs-required-default", f"Input `{name}` is required but has a default.",
                                        "Drop `required: true` or the default.", file=file, line=line,
                                        field=f"inputs[{index}]"))
    for match in sorted(set(INPUT_REF.findall(body))):
        if match not in declared:  # a standard skill may show `{{inputs.x}}` as text: lenient mode warns
            findings.append(strict_or_warning(
                strict, "inputs-undeclared", f"The body uses `{{{{inputs.{match}}}}}` but no input `{match}` is "
                "declared.", f"Declare it under `inputs:` (name: {match}, type: string) or remove the placeholder.",
                file=file, field="inputs"))
        elif "default" not in declared[match]:
            # Inputs are install-time configuration; a client that knows no inputs shows the placeholder as is.
            findings.append(strict_or_warning(
                strict, "input-no-default", f"The body uses `{{{{inputs.{match}}}}}` but input `{match}` has no "
                "`default`: third-party clients show the placeholder raw, so the agent reads `{{inputs." + match + "}}`.",
                f"Give `{match}` a `default` in skill.yaml, or, for a per-use value (a file, a git ref, a folder), "
                "drop the input and tell the agent in the body to ask for it or detect it.",
                file=file, line=line, field="inputs"))
    return findings


def default_matches(item: dict) -> bool:
    """Whether an input's default fits its declared type."""
    value, kind = item.get("default"), item.get("type")
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "enum":
        return value in (item.get("enum") or [])
    return True


def _mcp_findings(deps: object, file: str, key_lines: dict[str, int]) -> list[Finding]:
    findings: list[Finding] = []
    if isinstance(deps, list):
        seen: set[str] = set()
        for index, dep in enumerate(deps):
            if isinstance(dep, dict) and isinstance(dep.get("tool"), str):
                if dep["tool"] in seen:
                    findings.append(error("mcp-deps-duplicate", f"The MCP tool `{dep['tool']}` is listed twice.",
                                          "List each tool once.", file=file, line=key_lines.get("mcp_deps"),
                                          field=f"mcp_deps[{index}].tool"))
                seen.add(dep["tool"])
    return findings


RESOURCE_LISTS = ("helpers", "references", "assets")


def resource_findings(data: dict, file_paths, *, file: str, key_lines: dict[str, int]) -> list[Finding]:
    """Design 004's `resources`: the entry and every listed file is a path inside the skill (the shared path rule)
    that names a published file, so a runtime never starts a script that is not there or lies outside the folder.
    A leading `./`, as the design writes them, is accepted."""
    resources = data.get("resources")
    if not isinstance(resources, dict):
        return []
    present = set(file_paths)
    listed = [("resources.entry", resources.get("entry"))] if isinstance(resources.get("entry"), str) else []
    for key in RESOURCE_LISTS:
        items = resources.get(key)
        if isinstance(items, list):
            listed += [(f"resources.{key}[{i}]", item) for i, item in enumerate(items) if isinstance(item, str)]
    findings: list[Finding] = []
    for where, value in listed:
        rule = "resources-entry" if where == "resources.entry" else "resources-format"
        rel = value[2:] if value.startswith("./") else value
        problem = paths.path_problem(rel)
        if problem is not None:
            findings.append(error(rule, f"`{where}` is `{paths.shown(value)}`, which {problem}.",
                                  "Give a relative path inside the skill folder, for example `scripts/execute.ts`.",
                                  file=file, line=key_lines.get("resources"), field=where))
        elif rel not in present:
            findings.append(error(rule, f"`{where}` names `{paths.shown(value)}`, but the skill has no such file.",
                                  "Add the file, or correct the path (it is relative to the skill folder, case "
                                  "included).", file=file, line=key_lines.get("resources"), field=where))
    return findings


def check_frontmatter(data: dict, body: str, *, strict: bool, file: str, key_lines: dict[str, int],
                      folder_name: str | None, required_fields: tuple[str, ...] = ()) -> list[Finding]:
    return schema_findings(data, strict=strict, file=file, key_lines=key_lines) + semantic_findings(
        data, body, strict=strict, file=file, key_lines=key_lines, folder_name=folder_name,
        required_fields=required_fields)
