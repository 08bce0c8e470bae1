"""`github:owner/repo[/path][@ref]`: the one parser of a GitHub skill reference, shared by `skill install` and
`skillyard external add`. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillyard.errors import SkillyardError

GITHUB_REF = re.compile(r"^github:(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/(?P<repo>[A-Za-z0-9._-]+)"
                        r"(?:/(?P<path>[^@]+?))?/?(?:@(?P<ref>[^@\s]+))?\Z")


@dataclass(frozen=True)
class GitHubRef:
    owner: str
    repo: str
    path: str = ""
    ref: str = "HEAD"

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}"

    @property
    def url(self) -> str:
        """The repository's web address (recorded in the lock; never carries a token)."""
        return f"https://github.com/{self.slug}"


def is_github_ref(text: str) -> bool:
    return text.startswith("github:")


def parse_ref(text: str) -> GitHubRef:
    match = GITHUB_REF.match(text)
    if not match or match.group("repo") in (".", ".."):
        raise SkillyardError(f"{text!r} is not a valid GitHub reference.",
                             "Write it as github:owner/repo[/path/to/skill][@ref], e.g. github:acme/skills/pdf@v1.2.0.")
    path = (match.group("path") or "").strip("/")
    if path and any(part in ("", ".", "..") for part in path.split("/")):
        raise SkillyardError(f"The path {path!r} in {text!r} must be a plain folder path inside the repository.",
                             "Remove `.`/`..` parts from the path.")
    return GitHubRef(match.group("owner"), match.group("repo"), path, match.group("ref") or "HEAD")
