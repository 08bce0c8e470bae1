"""Load the JSON Schemas in `schemas/` (the single source of truth) and keep one compiled validator each."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

SCHEMA_FILES = {
    "frontmatter": "skill-frontmatter.schema.json",
    "skill-yaml": "skill-yaml.schema.json",
    "registry": "registry.schema.json",
    "index": "index.schema.json",
    "skill-lock": "skill-lock.schema.json",
    "skills-lock": "skills-lock.schema.json",
    "evolution": "evolution.schema.json",
    "validate-report": "validate-report.schema.json",
    "source": "source.schema.json",
}


@cache
def schema_dir() -> Path:
    """The package's `schemas/` folder, found beside this module: package data is installed as plain files, and
    `importlib.resources` costs ~20 ms of imports on every command that reads a lockfile. resources.files() stays
    the fallback for an install where the folder is not there as files (a zip)."""
    here = Path(__file__).parent.parent / "schemas"
    if here.is_dir():
        return here
    from importlib import resources

    return Path(str(resources.files("skillyard") / "schemas"))


@cache
def load_schema(file_name: str) -> dict:
    """The schema, with each `$comment` of `x-name: value` lines also given as `x-name` keys: the rule id, fix,
    file and lenient marks live in `$comment` so that validators in their strict modes (ajv) compile the files,
    while the code that reads them keeps reading `x-rule`, `x-fix`, `x-file` and `x-lenient`."""
    return json.loads((schema_dir() / file_name).read_text(encoding="utf-8"), object_hook=_annotations)


def _annotations(node: dict) -> dict:
    comment = node.get("$comment")
    if isinstance(comment, str) and comment.startswith("x-"):
        for line in comment.split("\n"):
            key, sep, value = line.partition(": ")
            if sep and key.startswith("x-") and key not in node:
                node[key] = value
    return node


@cache
def _registry():
    from referencing import Registry, Resource

    resources_ = []
    for file_name in SCHEMA_FILES.values():
        schema = load_schema(file_name)
        resource = Resource.from_contents(schema)
        resources_.append((schema["$id"], resource))
        resources_.append((file_name, resource))
    return Registry().with_resources(resources_)


@cache
def _validator_class():
    """Draft 2020-12 with `pattern` read as the ECMA-262 regex JSON Schema says it is (jsonschema runs it as a Python
    one, so `^[a-z]+$` accepted "pdf\\n"); jsonschema's own message is kept."""
    from jsonschema import Draft202012Validator, ValidationError, validators

    from skillyard.format.ecmaregex import compile_pattern

    def pattern(validator, rule, instance, schema):
        if validator.is_type(instance, "string") and not compile_pattern(rule).search(instance):
            yield ValidationError(f"{instance!r} does not match {rule!r}")

    return validators.extend(Draft202012Validator, {"pattern": pattern})


@cache
def validator(kind: str):
    """A compiled Draft 2020-12 validator for one of SCHEMA_FILES' kinds (built once: building is the slow part)."""
    schema = load_schema(SCHEMA_FILES[kind])
    return _validator_class()(schema, registry=_registry())


def schema_errors(kind: str, document: object) -> list:
    """Every validation error, in a stable order."""
    return sorted(validator(kind).iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))


def check_document(kind: str, document: object, *, what: str) -> None:
    """Raise SkillyardError naming the first problem when `document` does not match its schema. A valid document is
    usually confirmed by the compiled quick check (format/fastcheck.py) without importing jsonschema at all."""
    from skillyard.format.fastcheck import quick_valid

    if quick_valid(load_schema(SCHEMA_FILES[kind]), document) is True:
        return
    errors = schema_errors(kind, document)
    if errors:
        from skillyard.errors import SkillyardError

        first = errors[0]
        where = "/".join(map(str, first.absolute_path)) or "(top level)"
        raise SkillyardError(f"{what} does not match {SCHEMA_FILES[kind]} at {where}: {first.message}",
                             f"Fix or remove the file; {len(errors)} problem(s) in all.")


def resolve_schema_path(root: dict, path) -> tuple[str | None, str | None, bool]:
    """Walk a jsonschema error's schema path and return the innermost (x-rule, x-fix, lenient) annotations."""
    node: object = root
    rule = fix = None
    lenient = False
    for step in path:
        if isinstance(node, dict) and step == "$ref" and isinstance(node.get("$ref"), str):
            node = load_schema(node["$ref"].split("#")[0]) if not node["$ref"].startswith("#") else root
            continue
        try:
            node = node[step]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict):
            rule = node.get("x-rule", rule)
            fix = node.get("x-fix", fix)
            lenient = lenient or node.get("x-lenient") == "warning"
    return rule, fix, lenient
