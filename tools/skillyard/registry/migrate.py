"""Plan and apply the conversion of a skill folder to the portable form: SKILL.md with only the standard's keys in
block style, every other field in skill.yaml (with `schema_version`), merged by the one rule of format/manifest.py.

Handles the three legacy shapes: registry fields or flow style in the frontmatter, a skill.yaml-only folder
(`system_prompt` becomes the body through `manifest_to_skill_md`), and a lowercase `skill.md`. The body is kept
byte for byte. Everything is planned and checked in memory first, so a refused folder is never half-written.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.findings import Finding, error
from skillyard.format.frontmatter import parse_skill_md
from skillyard.format.manifest import manifest_to_skill_md, parse_manifest
from skillyard.format.package import load_skill
from skillyard.format.policy import Policy
from skillyard.format.portable import (
    SPEC_KEYS,
    dump_frontmatter,
    dump_manifest,
    metadata_as_written,
    portable_value,
    split_portable,
)
from skillyard.fsutil import write_atomic

BACKUP_SUFFIX = ".legacy"
MAX_INPUT_BYTES = Policy().max_file_bytes
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|$)")


@dataclass
class MigrationPlan:
    folder: Path
    writes: dict[str, str] = field(default_factory=dict)   # file name -> new text
    old: dict[str, str] = field(default_factory=dict)      # file name -> current text ("" when new)
    renames: list[tuple[str, str]] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

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
        if backup and self.backups():
            lines += [f"  keep a copy as {name}{BACKUP_SUFFIX} (delete it before publishing)" for name in self.backups()]
        return "\n".join(lines) + "\n" + self.diff()

    def to_dict(self) -> dict:
        return {"folder": str(self.folder), "renames": [list(r) for r in self.renames], "removes": self.removes,
                "writes": sorted(self.writes), "diff": self.diff()}


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
    names = {p.name for p in folder.iterdir()}
    source_name = "SKILL.md" if "SKILL.md" in names else ("skill.md" if "skill.md" in names else None)
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
        if not fm.ok:
            raise _refuse(folder / source_name, fm.findings)
        spec, rest = split_portable(fm.data)
        written = metadata_as_written(fm.raw) if isinstance(fm.data.get("metadata"), dict) else None
        if written is not None and "metadata" in spec and len(written) == len(spec["metadata"]):
            spec["metadata"] = written  # `1.10` stays "1.10": what a strict-YAML client reads
        kept = _standard_keys_to_skill_md(plan, spec, manifest or {})
        for key in ("version", "author", "homepage", "repository", "display-name"):  # text fields runtimes keep there
            if key in spec.get("metadata", {}) and key not in rest and key not in kept:
                rest[key] = spec["metadata"][key]  # Skillyard reads it from skill.yaml; the copy stays for others
        new_text = f"---\n{dump_frontmatter(spec)}---\n{raw_body(text)}"
        if new_text != text:
            plan.writes["SKILL.md"] = new_text
            plan.old["SKILL.md"] = text
        _plan_manifest(plan, rest, kept, manifest_text, existing=manifest is not None, original=manifest)
    plan.findings = _preview_findings(folder, plan)
    return plan


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
                   existing: bool = True, original: dict | None = None) -> None:
    """Merge the moved fields into skill.yaml by the one rule; refuse on a conflict; write only when it changes."""
    merged = dict(manifest)
    for key, value in moved.items():
        if key in merged and merged[key] != value and not (
                key in SPEC_KEYS and portable_value(key, merged[key]) == portable_value(key, value)):
            raise SkillyardError(
                f"{plan.folder / 'skill.yaml'}: `{key}` is {_short(merged[key])} there but {_short(value)} in SKILL.md "
                "(manifest-conflict).", "Make the two values equal or delete one, then run migrate again. "
                "Nothing was changed.")
        merged.setdefault(key, value)
    if not merged:
        if existing and original:
            plan.removes.append("skill.yaml")  # it held only the standard's keys, now in SKILL.md
        return
    if existing and merged == (manifest if original is None else original) and "schema_version" in merged:
        return  # nothing moved and already versioned: keep the author's file (and comments) as they are
    plan.writes["skill.yaml"] = dump_manifest(merged)
    if manifest_text:
        plan.old["skill.yaml"] = manifest_text


def _preview_findings(folder: Path, plan: MigrationPlan) -> list[Finding]:
    """Validate what the folder would look like after the plan, in a scratch copy (bounded: a folder the validator
    would refuse for its size is not copied at all)."""
    too_big = _too_big_to_copy(folder)
    if too_big:
        return [error("package-too-large", too_big, "Shrink the folder, then run `skillyard validate` on it.", file=".")]
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / folder.resolve().name
        shutil.copytree(folder, target, symlinks=True,
                        ignore=lambda _d, names: [n for n in names if n.endswith(BACKUP_SUFFIX)])
        _apply(target, plan, backup=False)
        return load_skill(target, Policy(strict=True)).findings


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
    if backup:
        taken = [name + BACKUP_SUFFIX for name in plan.backups() if os.path.lexists(folder / (name + BACKUP_SUFFIX))]
        if taken:
            raise SkillyardError(f"{folder / taken[0]} already exists: an earlier backup would be overwritten.",
                                 "Delete or move it, or run with --no-backup. Nothing was changed.")
        for name in plan.backups():
            shutil.copy2(folder / name, folder / (name + BACKUP_SUFFIX), follow_symlinks=False)
    for old, new in plan.renames:
        os.replace(folder / old, folder / new)
    for name in ("skill.yaml", "SKILL.md"):  # skill.yaml first: SKILL.md alone would lose the moved fields
        if name in plan.writes:
            write_atomic(folder / name, plan.writes[name])
    for name in plan.removes:
        (folder / name).unlink()


def apply_plan(folder: Path, plan: MigrationPlan, *, backup: bool = True) -> list[Finding]:
    _apply(folder, plan, backup=backup)
    return load_skill(folder, Policy(strict=True)).findings
