"""Static security findings over a skill's text files. They ship in registry.json so users see them too.

Nothing here runs or imports the skill's code: it only reads text.
"""

from __future__ import annotations

import re

from skillyard.format import safety
from skillyard.format.findings import Finding, Severity

HIDDEN_COMMENT = re.compile(r"<!--(.*?)-->", re.S)
PIPE_TO_SHELL = re.compile(
    r"\b(?:curl|wget|fetch|iwr|Invoke-WebRequest)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b|"
    r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?python[0-9.]*\b|"
    r"\b(?:ba)?sh\s+<\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:New-Object|iwr|Invoke-WebRequest)"
)
CREDENTIAL_PATH = re.compile(
    r"(?:~|\$HOME|%USERPROFILE%|/home/[^/\s]+|/root)/\.(?:ssh|aws|gnupg|kube|docker/config\.json|netrc|npmrc|pypirc|git-credentials)\b"
    r"|(?:^|[\s'\"`(/])\.env(?:\.[a-z]+)?\b(?![.\w-])"
    r"|\bid_(?:rsa|ed25519|ecdsa)\b|/etc/shadow\b",
    re.M,
)
BASE64_BLOB = re.compile(r"[A-Za-z0-9+/]{200,}={0,2}")
# Cheap substring tests that let most files skip the regular expressions entirely.
_PIPE_HINTS = re.compile("curl|wget|fetch|iwr|Invoke-WebRequest")
# A pattern that starts with a literal lets the regex engine jump between candidates; the rest are plain substrings.
_CREDENTIAL_DOT_HINT = re.compile(r"\.(?:ssh|aws|gnupg|kube|docker|netrc|npmrc|pypirc|git-credentials|env)")


def _may_mention_credentials(text: str) -> bool:
    return "id_" in text or "/etc/shadow" in text or _CREDENTIAL_DOT_HINT.search(text) is not None


def _has_long_token(text: str) -> bool:
    """Whether any whitespace-free run reaches 200 characters; only long lines need splitting into words."""
    if len(text) < 200 or max(map(len, text.split("\n"))) < 200:
        return False
    return any(len(line) >= 200 and max(map(len, line.split()), default=0) >= 200 for line in text.split("\n"))

TEXT_SUFFIXES = {".md", ".txt", ".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".ps1",
                 ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".html", ".xml", ".csv", ".bat", ".cmd", ""}


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def scan_text(text: str, file: str, *, line_offset: int = 0, is_markdown: bool = False) -> list[Finding]:
    """Security findings for one file's text. `line_offset` maps body lines back to SKILL.md lines."""
    found: list[Finding] = []

    def add(rule: str, severity: Severity, index: int, message: str, fix: str) -> None:
        found.append(Finding(rule, severity, message, fix, file, _line(text, index) + line_offset))

    ascii_only = text.isascii()  # every invisible character is outside ASCII: most files skip the scan
    for match in () if ascii_only else safety.INVISIBLE.finditer(text):
        add("security-invisible-unicode", Severity.ERROR, match.start(),
            f"Invisible character {safety.describe_char(match.group())}: it can hide instructions from reviewers.",
            "Delete the character.")
    if is_markdown:
        for match in HIDDEN_COMMENT.finditer(text):
            if match.group(1).strip():
                add("security-hidden-comment", Severity.WARNING, match.start(),
                    "An HTML comment hides text from rendered views while models still read it.",
                    "Remove the comment or make its text visible.")
    pipe_matches = PIPE_TO_SHELL.finditer(text) if "|" in text or "<(" in text or "iex" in text else ()
    if pipe_matches and not _PIPE_HINTS.search(text):
        pipe_matches = ()
    for match in pipe_matches:
        add("security-pipe-to-shell", Severity.WARNING, match.start(),
            f"Downloads and runs code in one step: `{match.group().strip()[:80]}`.",
            "Download to a file, verify its checksum, then run it; or vendor the script under scripts/.")
    credential_matches = CREDENTIAL_PATH.finditer(text) if _may_mention_credentials(text) else ()
    for match in credential_matches:
        add("security-credential-path", Severity.WARNING, match.start(),
            f"Mentions a credential location (`{match.group().strip()[:60]}`).",
            "Do not read secrets from the user's machine; ask for the value as an input instead.")
    for match in BASE64_BLOB.finditer(text) if _has_long_token(text) else ():
        add("security-base64-blob", Severity.WARNING, match.start(),
            f"A {len(match.group())}-character base64 blob: its content cannot be reviewed.",
            "Ship the decoded file under assets/ or explain what it is.")
    return found
