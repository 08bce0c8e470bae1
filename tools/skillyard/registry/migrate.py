"""Plan and apply the conversion of a skill folder to the portable form: SKILL.md with only the standard's keys in
block style, every other field in skill.yaml (with `schema_version`), merged by the one rule of format/manifest.py.

Handles the legacy shapes: registry fields or flow style in the frontmatter, a skill.yaml-only folder
(`system_prompt` becomes the body through `manifest_to_skill_md`), a lowercase `skill.md`, and design 004's packages
(a `METADATA.yml`, the implementation in a TypeScript/JavaScript block of the body, `permissions`; see
`migrate_004.py`). The body is kept byte for byte but for a moved code block. Everything is planned and checked in
memory first, so a refused folder is never half-written; a write that fails midway is undone.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format import paths
from skillyard.format.findings import Finding, error
from skillyard.format.frontmatter import MAX_LINE_CHARS, parse_skill_md
from skillyard.format.manifest import manifest_to_skill_md, parse_manifest
from skillyard.format.package import BACKUP_SUFFIX, load_skill  # one suffix: validate never publishes backups
from skillyard.format.policy import Policy
from skillyard.format.portable import (
    SPEC_KEYS,
    dump_manifest,
    metadata_as_written,
    portability_findings,
    portable_value,
    split_portable,
)
from skillyard.format.yamlwrite import FoldError, dump_short_lines
from skillyard.fsutil import write_atomic
from skillyard.registry.migrate_004 import (
    LEGACY_ENTRIES,
    METADATA_FILES,
    body_without,
    entry_block,
    load_metadata,
    permissions_to_security,
)
from skillyard.registry.migrate_verdict import MIGRATE_FIXES, outcome  # noqa: F401 - part of this module's interface
from skillyard.registry.scan import find_skill_folders

SKILL_FILES = ("SKILL.md", "skill.md", "skill.yaml", *METADATA_FILES)
MAX_BATCH = 5000  # subfolders of one folder migrated in one run
MAX_INPUT_BYTES = Policy().max_file_bytes
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")


@dataclass
class MigrationPlan:
    folder: Path
    writes: dict[str, str] = field(default_factory=dict)   # file name -> new text
    old: dict[str, str] = field(default_factory=dict)      # file name -> current text ("" when new)
    renames: list[tuple[str, str]] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)          # the converted skill's strict check
    lenient_findings: list[Finding] = field(default_factory=list)  # and its lenient check
    notes: list[str] = field(default_factory=list)         # what the author should check after the conversion

    @property
    def changes(self) -> bool:
        return bool(self.writes or self.renames or self.removes)

    @property
    def new_skill_md(self) -> str | None:
        return self.writes.get("SKILL.md")

    def backups(self) -> list[str]:
        """The files a run rewrites or removes, which it first copies to `<name>.legacy`."""
        renamed_to = {new for _, new in self.renames}
        rewritten = {name for name in self.writes if self.old.get(name) and name not in renamed_to}
        return sorted(rewritten | {old for old, _ in self.renames} | set(self.removes))

    def diff(self) -> str:
        out = []
        for name in sorted(self.writes):
            out += difflib.unified_diff(self.old.get(name, "").splitlines(True), self.writes[name].splitlines(True),
                                        f"a/{name}", f"b/{name}")
        return "".join(out)

    def describe(self, *, backup: bool = True) -> str:
        if not self.changes:
            return f"{self.folder}: already portable; nothing to do\n"
        lines = [f"{self.folder}:"]
        lines += [f"  rename {a} -> {b}" for a, b in self.renames]
        lines += [f"  remove {r}" for r in self.removes]
        lines += [f"  write {name}" for name in sorted(self.writes)]
        lines += [f"  note: {note}" for note in self.notes]
        if backup and self.backups():
            lines += [f"  keep a copy as {name}{BACKUP_SUFFIX} (delete it before publishing)" for name in self.backups()]
        return "\n".join(lines) + "\n" + self.diff()

    def to_dict(self) -> dict:
        return {"folder": str(self.folder), "renames": [list(r) for r in self.renames], "removes": self.removes,
                "writes": sorted(self.writes), "notes": self.notes, "diff": self.diff()}


def _read(path: Path) -> str:
    """A skill file as text, bounded like the validator bounds it; a clear error otherwise."""
    try:
        if path.is_symlink() or not path.is_file():
            raise SkillyardError(f"{path}: not a regular file.", "Replace it with the file itself.")
        if path.stat().st_size > MAX_INPUT_BYTES:
            raise SkillyardError(f"{path}: larger than {MAX_INPUT_BYTES:,} bytes.", "Shrink it before migrating.")
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SkillyardError(f"{path}: not UTF-8 text.", "Save it as UTF-8 and run migrate again.") from None
    except OSError as exc:
        raise SkillyardError(f"{path}: cannot read it ({exc.strerror}).", "Fix its permissions.") from None


def _refuse(path: Path, findings: list[Finding]) -> SkillyardError:
    first = next(f for f in findings if f.is_error)
    where = f"{path}{':' + str(first.line) if first.line else ''}"
    return SkillyardError(f"{where}: {first.message}", f"{first.fix or 'Fix it'} Nothing was changed.")


def raw_body(text: str) -> str:
    """The body exactly as it is in the file (line ends and all): everything after the closing `---` line."""
    lines = _LINE.finditer(text[1:] if text.startswith("\ufeff") else text)
    offset = 1 if text.startswith("\ufeff") else 0
    next(lines)  # the opening `---`
    for match in lines:
        if match.group().rstrip("\r\n").rstrip(" \t") == "---":
            return text[offset + match.end():]
        if not match.group():
            break
    raise ValueError("unclosed frontmatter")


def plan_migration(folder: Path) -> MigrationPlan:
    """What `migrate --to-standard` would write. Raises SkillyardError (naming file and fix) when it cannot."""
    if folder.is_symlink() or not folder.is_dir():
        raise SkillyardError(f"{folder}: not a folder.", "Pass the skill's folder.")
    plan = MigrationPlan(folder)
    names = {name for name in SKILL_FILES if os.path.lexists(folder / name)}
    source_name = "SKILL.md" if "SKILL.md" in names else ("skill.md" if "skill.md" in names else None)
    metadata_names = [name for name in METADATA_FILES if name in names]
    if len(metadata_names) > 1:
        raise SkillyardError(f"{folder}: both {' and '.join(metadata_names)}.", "Keep one of them. Nothing was changed.")
    metadata = {}
    if metadata_names:
        metadata = load_metadata(_read(folder / metadata_names[0]), str(folder / metadata_names[0]))
        plan.removes.append(metadata_names[0])  # its fields move to SKILL.md and skill.yaml; the backup keeps it
        if source_name is None:
            raise SkillyardError(f"{folder}: {metadata_names[0]} but no SKILL.md to hold the instructions.",
                                 "Add the SKILL.md (its body is the skill's instructions) and run migrate again. "
                                 "Nothing was changed.")
    manifest, manifest_text = None, ""
    if "skill.yaml" in names:
        manifest_text = _read(folder / "skill.yaml")
        manifest, _, findings = parse_manifest(manifest_text)
        if manifest is None or any(f.is_error for f in findings):
            raise _refuse(folder / "skill.yaml", findings)
    if source_name is None and manifest is None:
        raise SkillyardError(f"{folder}: no SKILL.md and no skill.yaml.", "Pass a skill folder (`skill init` starts one).")
    if source_name is None:
        if not manifest.get("system_prompt"):
            raise SkillyardError(f"{folder / 'skill.yaml'} has no `system_prompt` to become the SKILL.md body.",
                                 "Add the skill's instructions as `system_prompt: |` and run migrate again.")
        plan.writes["SKILL.md"] = manifest_to_skill_md(manifest)
        rest = {k: v for k, v in manifest.items() if k not in SPEC_KEYS or k == "name"}
        rest.pop("system_prompt", None)
        _plan_manifest(plan, rest, {}, manifest_text)
    else:
        if source_name == "skill.md":
            plan.renames.append(("skill.md", "SKILL.md"))
        text = _read(folder / source_name)
        fm = parse_skill_md(text, strict=False, file=source_name)
        # A design-004 package keeps every field in METADATA.yml and SKILL.md is only the body: the frontmatter
        # is generated from METADATA.yml (and said so). Otherwise a SKILL.md without usable frontmatter is refused.
        bare = bool(metadata) and not text.lstrip("\ufeff").startswith("---")
        if not fm.data and not bare:  # missing, unclosed or unreadable: nothing to convert. Other errors: the check
            raise _refuse(folder / source_name, fm.findings)
        if bare:
            fields = ", ".join(sorted(str(k) for k in metadata)[:8])
            plan.notes.append(f"{source_name} had no frontmatter: it was generated from {metadata_names[0]} "
                              f"({fields}); the file's text is the body.")
        spec, rest = split_portable(_with_metadata(fm.data or {}, metadata, folder / source_name,
                                                   folder / metadata_names[0] if metadata_names else None))
        written = metadata_as_written(fm.raw) if isinstance((fm.data or {}).get("metadata"), dict) else None
        if written is not None and "metadata" in spec and len(written) == len(spec["metadata"]):
            spec["metadata"] = written  # `1.10` stays "1.10": what a strict-YAML client reads
        kept = _standard_keys_to_skill_md(plan, spec, manifest or {})
        for key in ("version", "author", "homepage", "repository", "display-name"):  # text fields runtimes keep there
            if key in spec.get("metadata", {}) and key not in rest and key not in kept:
                if _fits(key, spec["metadata"][key]):
                    rest[key] = spec["metadata"][key]  # Skillyard reads it from skill.yaml; the copy stays for others
                else:
                    plan.notes.append(f"`metadata.{key}` ({_short(spec['metadata'][key])}) is not a valid `{key}` "
                                      f"for skill.yaml, so it was not copied there: add `{key}` to skill.yaml by hand.")
        body = text.lstrip("\ufeff") if bare else raw_body(text)
        block = entry_block(body, str(folder / source_name))
        entry = None
        if block is not None:
            entry = _plan_script(plan, block.path, block.code if block.code.endswith("\n") else block.code + "\n")
            body = body_without(body, block)
        new_text = text if not bare and _already_standard(text, fm.data, spec, block) else f"---\n{_frontmatter(folder, spec)}---\n{body}"
        if new_text != text:
            plan.writes["SKILL.md"] = new_text
            plan.old["SKILL.md"] = text
        _plan_manifest(plan, rest, kept, manifest_text, existing=manifest is not None, original=manifest, entry=entry)
    for name in plan.writes:
        problem = paths.path_problem(name)
        if problem is not None:  # every name this writes passes the one path rule
            raise SkillyardError(f"{folder}: `{paths.shown(name)}` {problem}.", "Nothing was changed.")
    _check_targets(folder, plan)
    plan.findings, plan.lenient_findings = _preview_findings(folder, plan)
    return plan


def _fits(key: str, value: object) -> bool:
    """Whether `key: value` passes the strict check in skill.yaml (a copy must add no error in either mode)."""
    from skillyard.format.rules import schema_findings

    return not any(f.is_error and (f.field or "").split(".")[0].split("[")[0] == key
                   for f in schema_findings({key: value}, strict=True, file="skill.yaml", key_lines={}))


def _frontmatter(folder: Path, spec: dict) -> str:
    try:
        return dump_short_lines(spec)
    except FoldError as exc:
        raise SkillyardError(f"{folder / 'SKILL.md'}: `{exc.key}` cannot be written in lines of at most "
                             f"{MAX_LINE_CHARS} characters and read back unchanged: it {exc.reason}.",
                             f"Shorten `{exc.key}` (or break its long words), then run migrate again. "
                             "Nothing was changed.") from None


def _already_standard(text: str, data: dict, spec: dict, block: object) -> bool:
    """Whether the SKILL.md already is in the portable form, so its author's layout stays as it is: nothing moves
    out of the frontmatter, no value changes, and the strict check finds nothing a conversion would fix."""
    if block is not None or data != spec or list(data) != list(spec):
        return False
    strict = parse_skill_md(text, strict=True)
    if any(f.rule in MIGRATE_FIXES or f.rule.startswith("yaml") for f in strict.findings
                             if f.is_error):
        return False
    return not portability_findings(strict.data, strict.raw, strict=True, bom=text.startswith("\ufeff"))


def _with_metadata(data: dict, metadata: dict, skill_md: Path, metadata_file: Path | None) -> dict:
    """The frontmatter with METADATA.yml's fields added; the same field with two values is refused."""
    merged = dict(data)
    for key, value in metadata.items():
        if key in merged and merged[key] != value:
            raise SkillyardError(
                f"{metadata_file}: `{key}` is {_short(value)} there but {_short(merged[key])} in {skill_md.name} "
                "(manifest-conflict).", "Make the two values equal or delete one, then run migrate again. "
                "Nothing was changed.")
        merged.setdefault(key, value)
    return merged


def _plan_script(plan: MigrationPlan, rel: str, code: str) -> str:
    """Plan writing the body's implementation to `rel` (under scripts/); an existing different file is refused."""
    target = plan.folder / rel
    if os.path.lexists(target):
        existing = _read(target)
        if existing != code:
            raise SkillyardError(f"{target} already exists and differs from the code block in SKILL.md.",
                                 "Keep one of the two (delete the block or the file), then run migrate again. "
                                 "Nothing was changed.")
        return rel
    plan.writes[rel] = code
    plan.old[rel] = ""
    return rel


def _legacy_entry(folder: Path) -> str | None:
    """The one entry script of the legacy "SKILL.md + scripts/main.ts" layout, when there is exactly one."""
    found = [rel for rel in LEGACY_ENTRIES if not (folder / "scripts").is_symlink() and
             (folder / rel).is_file() and not (folder / rel).is_symlink()]
    return found[0] if len(found) == 1 else None


def _check_targets(folder: Path, plan: MigrationPlan) -> None:
    """No file this writes, and no folder on the way to it, may be a link or a non-file: a write would follow it."""
    for name in plan.writes:
        parts = name.split("/")
        for depth in range(1, len(parts) + 1):
            here = folder.joinpath(*parts[:depth])
            last = depth == len(parts)
            if here.is_symlink() or (os.path.lexists(here) and not (here.is_file() if last else here.is_dir())):
                raise SkillyardError(f"{here} is a link or not a {'file' if last else 'folder'}.",
                                     "Replace it with a plain folder or file (or remove it), then run migrate again. "
                                     "Nothing was changed.")
            if not os.path.lexists(here):
                other = _same_name_but_case(here)
                if other is not None and (other, name) not in plan.renames:  # skill.md -> SKILL.md is the point
                    raise SkillyardError(f"{here} would differ from `{other}` only by letter case (path-collision).",
                                         "Rename or remove it, then run migrate again. Nothing was changed.")


def _same_name_but_case(path: Path) -> str | None:
    """The name beside `path` that a case-insensitive file system takes for the same one (the shared path rule's
    key), or None. Looks at a bounded number of entries."""
    if not path.parent.is_dir():
        return None
    key = paths.collision_key(path.name)
    with os.scandir(path.parent) as entries:
        for count, entry in enumerate(entries):
            if count >= 100_000:
                break
            if paths.collision_key(entry.name) == key:
                return entry.name
    return None


def _standard_keys_to_skill_md(plan: MigrationPlan, spec: dict, manifest: dict) -> dict:
    """Move the standard's keys a skill.yaml holds into the frontmatter (`spec`, in place), where every client sees
    them; `name` and `description` may stay when equal. Refuses a key whose two values differ. Returns the rest."""
    kept = dict(manifest)
    for key in SPEC_KEYS:
        if key not in kept or kept[key] in (None, {}, [], ""):
            continue
        value = portable_value(key, kept[key])
        if key in spec and spec[key] != value:
            raise SkillyardError(
                f"{plan.folder / 'skill.yaml'}: `{key}` is {_short(kept[key])} there but {_short(spec[key])} in "
                "SKILL.md (manifest-conflict).", "Make the two values equal or delete one, then run migrate again. "
                "Nothing was changed.")
        spec.setdefault(key, value)
        if key not in ("name", "description"):
            del kept[key]
    ordered = {k: spec[k] for k in SPEC_KEYS if k in spec}
    spec.clear()
    spec.update(ordered)
    return kept


def _short(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _plan_manifest(plan: MigrationPlan, moved: dict, manifest: dict, manifest_text: str, *,
                   existing: bool = True, original: dict | None = None, entry: str | None = None) -> None:
    """Merge the moved fields into skill.yaml by the one rule; refuse on a conflict; write only when it changes.
    Design 004's fields are converted on the way: `permissions` becomes `security`, and `resources.entry` names the
    script the body's code block became (or the one legacy entry script)."""
    merged = dict(manifest)
    for key, value in moved.items():
        if key in merged and merged[key] != value and not (
                key in SPEC_KEYS and portable_value(key, merged[key]) == portable_value(key, value)):
            raise SkillyardError(
                f"{plan.folder / 'skill.yaml'}: `{key}` is {_short(merged[key])} there but {_short(value)} in SKILL.md "
                "(manifest-conflict).", "Make the two values equal or delete one, then run migrate again. "
                "Nothing was changed.")
        merged.setdefault(key, value)
    _design_004(plan, merged, entry)
    if not merged:
        if existing and original:
            plan.removes.append("skill.yaml")  # it held only the standard's keys, now in SKILL.md
        return
    if existing and merged == (manifest if original is None else original) and "schema_version" in merged:
        return  # nothing moved and already versioned: keep the author's file (and comments) as they are
    plan.writes["skill.yaml"] = dump_manifest(merged)
    if manifest_text:
        plan.old["skill.yaml"] = manifest_text


def _design_004(plan: MigrationPlan, merged: dict, entry: str | None) -> None:
    file = str(plan.folder / "skill.yaml")
    if "permissions" in merged:
        merged["security"], notes = permissions_to_security(merged.pop("permissions"), merged.get("security"), file)
        plan.notes += notes
    resources = merged.get("resources")
    if resources is not None and not isinstance(resources, dict):
        raise SkillyardError(f"{file}: `resources` is not a map.", "Make it a map. Nothing was changed.")
    declared = (resources or {}).get("entry")
    if entry is None and declared is None:
        entry = _legacy_entry(plan.folder)
    if entry is None:
        return
    if declared is not None and declared not in (entry, "./" + entry):
        raise SkillyardError(f"{file}: `resources.entry` is {_short(declared)}, but the code block of SKILL.md "
                             f"becomes `{entry}`.", "Make `resources.entry` name that file, or delete the block, then "
                             "run migrate again. Nothing was changed.")
    if declared is None:
        merged["resources"] = {"entry": entry, **(resources or {})}


def _preview_findings(folder: Path, plan: MigrationPlan) -> tuple[list[Finding], list[Finding]]:
    """Validate what the folder would look like after the plan, in strict and in lenient mode, in a scratch copy
    (bounded: a folder the validator would refuse for its size is not copied at all)."""
    too_big = _too_big_to_copy(folder)
    if too_big:
        found = [error("package-too-large", too_big, "Shrink the folder, then run `skillyard validate` on it.", file=".")]
        return found, found
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / folder.resolve().name
        shutil.copytree(folder, target, symlinks=True,
                        ignore=lambda _d, names: [n for n in names if n.endswith(BACKUP_SUFFIX)])
        _apply(target, plan, backup=False)
        return load_skill(target, Policy(strict=True)).findings, load_skill(target, Policy(strict=False)).findings


def _too_big_to_copy(folder: Path) -> str | None:
    policy = Policy()
    total = count = 0
    for directory, dirs, files in os.walk(folder, followlinks=False):
        count += len(dirs) + len(files)
        for name in files:
            try:
                total += os.lstat(os.path.join(directory, name)).st_size
            except OSError:
                continue
        if count > 5 * policy.max_files or total > policy.max_total_bytes:
            return (f"The folder holds more than {policy.max_total_bytes:,} bytes or {5 * policy.max_files} entries; "
                    "its conversion is not validated here.")
    return None


def _apply(folder: Path, plan: MigrationPlan, *, backup: bool) -> None:
    """Carry the plan out; when a step fails (disk full, permissions), undo the steps before it, so the folder is
    either migrated or as it was."""
    if backup:
        taken = [name + BACKUP_SUFFIX for name in plan.backups() if os.path.lexists(folder / (name + BACKUP_SUFFIX))]
        if taken:
            raise SkillyardError(f"{folder / taken[0]} already exists: an earlier backup would be overwritten.",
                                 "Delete or move it, or run with --no-backup. Nothing was changed.")
    _check_targets(folder, plan)  # again: the folder may have changed since the plan
    undo: list[Callable[[], object]] = []
    try:
        if backup:
            for name in plan.backups():
                copy = folder / (name + BACKUP_SUFFIX)
                shutil.copy2(folder / name, copy, follow_symlinks=False)
                undo.append(lambda copy=copy: copy.unlink(missing_ok=True))
        for old, new in plan.renames:
            os.replace(folder / old, folder / new)
            undo.append(lambda old=old, new=new: os.replace(folder / new, folder / old))
        # new scripts first, then skill.yaml (SKILL.md alone would lose the moved fields), SKILL.md last
        order = sorted(plan.writes, key=lambda name: (name == "SKILL.md", name == "skill.yaml", name))
        for name in order:
            target = folder / name
            for parent in reversed(target.relative_to(folder).parents[:-1]):
                if not (folder / parent).is_dir():
                    (folder / parent).mkdir()
                    undo.append(lambda made=folder / parent: made.rmdir())
            before = target.read_bytes() if target.is_file() else None
            write_atomic(target, plan.writes[name])
            undo.append(lambda target=target, before=before: target.unlink() if before is None
                        else write_atomic(target, before))
        for name in plan.removes:
            before = (folder / name).read_bytes()
            (folder / name).unlink()
            undo.append(lambda name=name, before=before: write_atomic(folder / name, before))
    except OSError as exc:
        for step in reversed(undo):
            with contextlib.suppress(OSError):
                step()
        raise SkillyardError(f"{folder}: the conversion stopped ({exc.strerror or exc}); the folder was put back as "
                             "it was.", "Fix the cause (space, permissions) and run migrate again.") from None


def apply_plan(folder: Path, plan: MigrationPlan, *, backup: bool = True) -> list[Finding]:
    _apply(folder, plan, backup=backup)
    return load_skill(folder, Policy(strict=True)).findings


def expand_batch(folder: Path) -> list[Path]:
    """The skill folders `skillyard validate` finds under `folder` (the same walk: collections nested at any depth,
    skills inside skills; hidden folders and links not entered), sorted; a folder with none stands for itself (and
    is refused with its reason). The count is bounded."""
    if folder.is_symlink() or not folder.is_dir():
        return [folder]
    found = [Path(p) for p in find_skill_folders(folder, nested=True)]
    if folder not in found and any(os.path.lexists(folder / n) for n in SKILL_FILES):
        found.insert(0, folder)  # a METADATA.yml package without SKILL.md: refused with its reason
    if len(found) > MAX_BATCH:
        raise SkillyardError(f"{folder}: more than {MAX_BATCH:,} skill folders.", "Migrate it in parts.")
    return found or [folder]
