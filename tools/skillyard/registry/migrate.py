"""Plan and apply the conversion of legacy skill folders (skill.yaml only, lowercase skill.md) to SKILL.md form."""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.findings import Finding
from skillyard.format.manifest import manifest_to_skill_md, parse_manifest
from skillyard.format.package import load_skill
from skillyard.format.policy import Policy
from skillyard.fsutil import write_atomic


@dataclass
class MigrationPlan:
    folder: Path
    new_skill_md: str | None = None
    old_skill_md: str = ""
    renames: list[tuple[str, str]] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def changes(self) -> bool:
        return bool(self.new_skill_md is not None or self.renames or self.removes)

    def diff(self) -> str:
        if self.new_skill_md is None:
            return ""
        return "".join(difflib.unified_diff(self.old_skill_md.splitlines(True), self.new_skill_md.splitlines(True),
                                            "a/SKILL.md", "b/SKILL.md"))

    def describe(self) -> str:
        if not self.changes:
            return f"{self.folder}: already in SKILL.md form; nothing to do\n"
        lines = [f"{self.folder}:"]
        lines += [f"  rename {a} -> {b}" for a, b in self.renames]
        lines += [f"  remove {r}" for r in self.removes]
        text = "\n".join(lines) + "\n"
        return text + self.diff()

    def to_dict(self) -> dict:
        return {"folder": str(self.folder), "renames": [list(r) for r in self.renames], "removes": self.removes,
                "diff": self.diff()}


def plan_migration(folder: Path) -> MigrationPlan:
    if not folder.is_dir():
        raise SkillyardError(f"{folder}: not a folder.", "Pass the skill's folder.")
    plan = MigrationPlan(folder)
    names = {p.name for p in folder.iterdir()}
    if "SKILL.md" not in names and "skill.md" in names:
        plan.renames.append(("skill.md", "SKILL.md"))
    elif "SKILL.md" not in names and "skill.yaml" in names:
        text = (folder / "skill.yaml").read_text(encoding="utf-8")
        manifest, _, findings = parse_manifest(text)
        if manifest is None:
            raise SkillyardError(f"{folder / 'skill.yaml'}: {findings[0].message}", findings[0].fix)
        if not manifest.get("system_prompt"):
            raise SkillyardError(f"{folder / 'skill.yaml'} has no `system_prompt` to become the SKILL.md body.",
                                 "Add the skill's instructions as `system_prompt: |` and run migrate again.")
        plan.new_skill_md = manifest_to_skill_md(manifest)
        plan.removes.append("skill.yaml")
    plan.findings = _preview_findings(folder, plan)
    return plan


def _preview_findings(folder: Path, plan: MigrationPlan) -> list[Finding]:
    """Validate what the folder would look like after the plan, in a scratch copy."""
    import shutil

    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / folder.resolve().name
        shutil.copytree(folder, target, symlinks=True)
        _apply(target, plan, keep_manifest=False)
        return load_skill(target, Policy(strict=True)).findings


def _apply(folder: Path, plan: MigrationPlan, *, keep_manifest: bool) -> None:
    for old, new in plan.renames:
        os.replace(folder / old, folder / new)
    if plan.new_skill_md is not None:
        write_atomic(folder / "SKILL.md", plan.new_skill_md)
    if not keep_manifest:
        for name in plan.removes:
            (folder / name).unlink()


def apply_plan(folder: Path, plan: MigrationPlan, *, keep_manifest: bool = False) -> list[Finding]:
    _apply(folder, plan, keep_manifest=keep_manifest)
    return load_skill(folder, Policy(strict=True)).findings
