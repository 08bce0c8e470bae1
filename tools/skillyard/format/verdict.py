"""The one verdict: the findings a skill's bytes get, under the security exceptions a registry reviewed.

Every path that judges a skill calls `judge` (or `judge_files` for bytes not yet on disk): `skillyard validate` and
the build (whose findings registry.json, the site's findings block and the PR bot's report carry), `skillyard
external add/verify/bump`, and `skill install` from a folder, an archive, `github:` or a registry. So the same bytes
under the same reviewed exceptions get the same findings whichever path asks; what differs between paths is only
the input: the policy (a registry's house rules, the client's limits) and which exceptions were reviewed.

Exceptions: the skill's own skill.yaml `security_exceptions` count only where a registry reviewed them as part of
the skill (`own_reviewed`: validate and build in the registry that holds the skill). Anywhere else they are
withdrawn (`Verdict.withdrawn` keeps them, so a refusal can say so) and `reviewed` -- a registry entry's or a
pointer's `registry.security_exceptions` -- applies instead.

Every finding's line is one its file has: a line past the end (a rule that could not place a position) is dropped
to no line rather than shown on a line that does not hold what the finding describes.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillyard.format import exceptions
from skillyard.format.findings import Finding
from skillyard.format.policy import Policy

SECURITY_PREFIX = "security-"


class Verdict:
    """The checked package (its `findings` are the verdict), and the skill's own exceptions withdrawn."""

    __slots__ = ("package", "withdrawn")

    def __init__(self, package, withdrawn: list[Finding]):
        self.package, self.withdrawn = package, withdrawn

    @property
    def findings(self) -> list[Finding]:
        return self.package.findings

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.package.findings if f.is_error]

    def security(self) -> list[dict]:
        """The security findings as registry.json, source.yaml and the site record them."""
        return security_dicts(self.package.findings)


def security_dicts(findings) -> list[dict]:
    """Security findings (Finding objects or their dicts) in the one recorded form and order."""
    out = [f if isinstance(f, dict) else f.to_dict() for f in findings]
    out = [f for f in out if str(f.get("rule", "")).startswith(SECURITY_PREFIX)]
    return sorted(out, key=_dict_key)


def _dict_key(f: dict) -> tuple:
    order = {"error": 0, "warning": 1, "info": 2}
    return (f.get("file") or "", f.get("line") or 0, order.get(f.get("severity"), 3), f.get("rule", ""),
            f.get("field") or "", f.get("message", ""))


def judge(folder: str | os.PathLike, policy: Policy, *, reviewed: list[dict] | tuple | None = None,
          own_reviewed: bool = False, rel_path: str | None = None) -> Verdict:
    """The verdict for the skill in `folder`. `reviewed`: the exceptions ({rule, file, reason}) a registry reviewed
    for these bytes; `own_reviewed`: the skill's skill.yaml exceptions were reviewed with it (a registry's own
    skill, judged in that registry)."""
    from skillyard.format.package import load_skill

    package = load_skill(folder, policy, rel_path=rel_path)
    withdrawn: list[Finding] = []
    if not own_reviewed:
        package.findings, withdrawn = exceptions.withdraw(package.findings)
        # The skill's own entries are not in force here, so "this entry covers nothing" says nothing either.
        package.findings = [f for f in package.findings if f.rule != "exception-stale"]
        if reviewed:
            package.findings = exceptions.apply(package.findings, exceptions.from_entry(list(reviewed)))
    package.findings = placed(package.findings, package.folder, package.line_counts)  # the Path load_skill made
    return Verdict(package, withdrawn)


def judge_files(files: dict[str, tuple[bytes, bool]], folder_name: str, policy: Policy, *,
                reviewed: list[dict] | tuple | None = None) -> Verdict:
    """`judge` over bytes ({path: (content, executable)}), written to a private temporary folder named
    `folder_name` (a checked name: it becomes a path component)."""
    import tempfile  # here: tempfile (with random and shutil) is not free, and validate never writes a folder

    with tempfile.TemporaryDirectory(prefix="skillyard-judge-") as tmp:
        root = Path(tmp) / folder_name
        root.mkdir()
        for rel, (content, executable) in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            target.chmod(0o755 if executable else 0o644)
        return judge(root, policy, reviewed=reviewed, rel_path=folder_name)


def placed(findings: list[Finding], folder: Path, known: dict[str, int] | None = None) -> list[Finding]:
    """The findings with any line past the end of its file set to None (each file is counted once, and only when
    a finding names a line in it; `known`: counts already made from the bytes the check read)."""
    counts: dict[str, int | None] = dict(known or {})
    out = []
    for finding in findings:
        if finding.file and finding.line is not None:
            if finding.file not in counts:
                counts[finding.file] = _line_count(folder, finding.file)
            total = counts[finding.file]
            if total is not None and not 1 <= finding.line <= total:
                finding = Finding(finding.rule, finding.severity, finding.message, finding.fix, finding.file, None,
                                  finding.field, finding.allowed, finding.digest)
        out.append(finding)
    return out


def _line_count(folder: Path, rel: str) -> int | None:
    """Lines of a file in the folder (None when it cannot be read: a finding about a missing file keeps its line)."""
    path = folder / rel
    try:
        if path.is_symlink() or not path.is_file():
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return data.count(b"\n") + 1  # the scanner's count: the empty line after a final newline is line N + 1
