"""A finding: one thing a check noticed, with enough context for an author to fix it in one try."""

from __future__ import annotations

import hashlib
from enum import StrEnum

from skillyard.format.record import FrozenRecord


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Finding(FrozenRecord):
    """Immutable and hashable, in slots: a registry build makes hundreds of thousands of them. `allowed` is the
    reason of the skill's reviewed security exception that covers it (format/exceptions.py): such a finding stays
    in every report but is not an error. `digest` (`text_digest` of the whole text the check matched, never of the
    message, which quotes it cut for display) is what a finding is across two versions: `identity`."""

    __slots__ = FIELDS = ("rule", "severity", "message", "fix", "file", "line", "field", "allowed", "digest")

    def __init__(self, rule: str, severity: Severity, message: str, fix: str | None = None, file: str | None = None,
                 line: int | None = None, field: str | None = None, allowed: str | None = None,
                 digest: str | None = None):
        set_field = object.__setattr__
        set_field(self, "rule", rule)
        set_field(self, "severity", severity)
        set_field(self, "message", message)
        set_field(self, "fix", fix)
        set_field(self, "file", file)
        set_field(self, "line", line)
        set_field(self, "field", field)
        set_field(self, "allowed", allowed)
        set_field(self, "digest", digest)

    def _values(self) -> tuple:
        return (self.rule, self.severity, self.message, self.fix, self.file, self.line, self.field, self.allowed,
                self.digest)

    @property
    def is_error(self) -> bool:
        """Whether it blocks: an error no reviewed exception allows."""
        return self.severity is Severity.ERROR and self.allowed is None

    def to_dict(self) -> dict:
        out = {"rule": self.rule, "severity": str(self.severity), "message": self.message}
        for key in ("fix", "file", "line", "field", "allowed", "digest"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def sort_key(self) -> tuple:
        order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
        return (self.file or "", self.line or 0, order[self.severity], self.rule, self.field or "", self.message)

    def with_file(self, file: str) -> Finding:
        return Finding(self.rule, self.severity, self.message, self.fix, file, self.line, self.field, self.allowed,
                       self.digest)

    def with_allowed(self, reason: str | None) -> Finding:
        return Finding(self.rule, self.severity, self.message, self.fix, self.file, self.line, self.field, reason,
                       self.digest)

    @classmethod
    def of_match(cls, rule: str, severity: Severity, message: str, fix: str | None, file: str | None,
                 line: int | None, matched: str) -> Finding:
        """A scanner finding, its digest taken from `matched`: the whole text the check matched."""
        return cls(rule, severity, message, fix, file, line, digest=text_digest(matched))

    @classmethod
    def from_dict(cls, d: dict) -> Finding:
        """The inverse of `to_dict` (a cached or recorded finding read back, its digest kept)."""
        return cls(d["rule"], Severity(d["severity"]), d["message"], d.get("fix"), d.get("file"), d.get("line"),
                   d.get("field"), d.get("allowed"), d.get("digest"))


# Hex characters of sha256 kept: 128 bits. Upstream writes both versions, so two texts with one digest are a birthday
# search: 64 bits would be 2^32 tries, 128 bits is 2^64.
DIGEST_CHARS = 32


def text_digest(text: str) -> str:
    """The digest of a matched text, as `Finding.digest` and registry.json carry it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:DIGEST_CHARS]


def finding_identity(finding: dict) -> tuple[str, str, str]:
    """What a recorded finding (a dict, as a pointer or registry.json holds it) is across two versions: its rule,
    file and the digest of the whole text it matched. One recorded before digests existed is keyed by its message,
    prefixed so that it never equals a digest key: comparing it with a digested finding says "changed", never
    "the same" (a message quotes at most the first ~80 characters of what it found)."""
    digest = finding.get("digest")
    what = f"sha256:{digest}" if isinstance(digest, str) and digest else f"message:{finding.get('message', '')}"
    return (str(finding.get("rule", "")), str(finding.get("file") or ""), what)


def error(rule: str, message: str, fix: str | None = None, **where) -> Finding:
    return Finding(rule, Severity.ERROR, message, fix, **where)


def warning(rule: str, message: str, fix: str | None = None, **where) -> Finding:
    return Finding(rule, Severity.WARNING, message, fix, **where)


def info(rule: str, message: str, fix: str | None = None, **where) -> Finding:
    return Finding(rule, Severity.INFO, message, fix, **where)


def strict_or_warning(strict: bool, rule: str, message: str, fix: str | None = None, **where) -> Finding:
    """The checks where the ecosystem is tolerant: an error in strict mode, a warning in lenient mode."""
    return Finding(rule, Severity.ERROR if strict else Severity.WARNING, message, fix, **where)
