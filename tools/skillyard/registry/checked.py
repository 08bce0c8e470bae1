"""The result of checking one skill folder: what the build, the reports and the cache need of it."""

from __future__ import annotations

from dataclasses import dataclass, field

from skillyard.format.findings import Finding


@dataclass
class CheckedSkill:
    path: str  # repo-relative (or as given) folder path
    name: str
    version: str | None
    line: str  # the registry.json line, with slots for the git fields
    findings: list[Finding]
    lines: dict[str, str] = field(default_factory=dict)  # the skill's line in each other output (see `output_lines`)

    @property
    def valid(self) -> bool:
        return not any(f.is_error for f in self.findings)
