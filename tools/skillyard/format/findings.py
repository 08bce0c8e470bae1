"""A finding: one thing a check noticed, with enough context for an author to fix it in one try."""

from __future__ import annotations

from enum import StrEnum

from skillyard.format.record import FrozenRecord


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Finding(FrozenRecord):
    """Immutable and hashable, in slots: a registry build makes hundreds of thousands of them. `allowed` is the
    reason of the skill's reviewed security exception that covers it (format/exceptions.py): such a finding stays
    in every report but is not an error."""

    __slots__ = FIELDS = ("rule", "severity", "message", "fix", "file", "line", "field", "allowed")

    def __init__(self, rule: str, severity: Severity, message: str, fix: str | None = None, file: str | None = None,
                 line: int | None = None, field: str | None = None, allowed: str | None = None):
        set_field = object.__setattr__
        set_field(self, "rule", rule)
        set_field(self, "severity", severity)
        set_field(self, "message", message)
        set_field(self, "fix", fix)
        set_field(self, "file", file)
        set_field(self, "line", line)
        set_field(self, "field", field)
        set_field(self, "allowed", allowed)

    def _values(self) -> tuple:
        return (self.rule, self.severity, self.message, self.fix, self.file, self.line, self.field, self.allowed)

    @property
    def is_error(self) -> bool:
        """Whether it blocks: an error no reviewed exception allows."""
        return self.severity is Severity.ERROR and self.allowed is None

    def to_dict(self) -> dict:
        out = {"rule": self.rule, "severity": str(self.severity), "message": self.message}
        for key in ("fix", "file", "line", "field", "allowed"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def sort_key(self) -> tuple:
        order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
        return (self.file or "", self.line or 0, order[self.severity], self.rule, self.field or "", self.message)

    def with_file(self, file: str) -> Finding:
        return Finding(self.rule, self.severity, self.message, self.fix, file, self.line, self.field, self.allowed)

    def with_allowed(self, reason: str | None) -> Finding:
        return Finding(self.rule, self.severity, self.message, self.fix, self.file, self.line, self.field, reason)


def error(rule: str, message: str, fix: str | None = None, **where) -> Finding:
    return Finding(rule, Severity.ERROR, message, fix, **where)


def warning(rule: str, message: str, fix: str | None = None, **where) -> Finding:
    return Finding(rule, Severity.WARNING, message, fix, **where)


def info(rule: str, message: str, fix: str | None = None, **where) -> Finding:
    return Finding(rule, Severity.INFO, message, fix, **where)


def strict_or_warning(strict: bool, rule: str, message: str, fix: str | None = None, **where) -> Finding:
    """The checks where the ecosystem is tolerant: an error in strict mode, a warning in lenient mode."""
    return Finding(rule, Severity.ERROR if strict else Severity.WARNING, message, fix, **where)
