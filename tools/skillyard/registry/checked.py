"""The result of checking one skill folder: what the build, the reports and the cache need of it."""

from __future__ import annotations

from skillyard.format.findings import Finding
from skillyard.format.record import Record


class CheckedSkill(Record):
    """`path`: repo-relative (or as given) folder path; `line`: the registry.json line, with slots for the git fields;
    `lines`: the skill's line in each other output (see `registry/load.output_lines`)."""

    FIELDS = ("path", "name", "version", "line", "findings", "lines")

    def __init__(self, path: str, name: str, version: str | None, line: str, findings: list[Finding],
                 lines: dict[str, str] | None = None):
        self.path = path
        self.name = name
        self.version = version
        self.line = line
        self.findings = findings
        self.lines = {} if lines is None else lines

    @property
    def valid(self) -> bool:
        return not any(f.is_error for f in self.findings)
