"""A pointer skill's upstream content at site build time: fetched, checked against the pin, or why not.

The site copies a pointer skill's files (its page shows the SKILL.md body; `/.well-known/agent-skills/` serves the
files for `npx skills`) only when (1) its licence allows redistribution (`format.licences`) and (2) this build
fetched the pinned commit's tarball and every file the pointer lists has exactly its recorded size and sha256.
Otherwise its page says why and links the upstream folder. Fetching is opt-in (`skillyard site build
--fetch-upstream`, which the publish workflow passes): an offline build never touches the network.

One tarball per (repository, commit), read with the client's bounded reader (`format/tarball.py`), however many
pointers share it; the whole fetch has one deadline and every tarball a size cap. What a page says depends only on
the registry entry and the bytes fetched (never on timings or error texts, which go to the build's notes), so two
builds from the same inputs give the same pages.

The network is at the edge: the caller passes `get(url, *, accept, max_bytes, deadline) -> bytes`, which raises
on any failure (the CLI gives the client's bounded HTTP layer, `client/http.py`).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from skillyard.format import licences, tarball
from skillyard.format.frontmatter import split_frontmatter

Get = Callable[..., bytes]
DEFAULT_DEADLINE = 300.0  # seconds for all upstream fetches of one build
MAX_TARBALL_BYTES = 64 * 1024 * 1024  # one repository's tarball at one commit, as sent
MAX_BODY_BYTES = 2_000_000

REPOSITORY = re.compile(r"[A-Za-z0-9-]+/[A-Za-z0-9._-]+")
COMMIT = re.compile(r"[0-9a-f]{40}")
SHOWN, LICENCE, NOT_FETCHED, MISMATCH = "shown", "licence", "not-fetched", "mismatch"


@dataclass
class Fetcher:
    """Where codeload tarballs are (`SKILL_GITHUB_CODELOAD_URL`), how to GET, and the bounds."""

    get: Get
    codeload_url: str
    deadline: float = DEFAULT_DEADLINE
    max_tarball_bytes: int = MAX_TARBALL_BYTES


@dataclass
class Content:
    """One pointer skill's content state for this build. `files` and `body` are set only when `state` is SHOWN."""

    state: str
    reason: str
    licence_allowed: bool
    licence_reason: str
    files: dict[str, bytes] = field(default_factory=dict, repr=False)
    body: str = ""

    def view(self) -> dict:
        """What the page shows (added to the entry the page is rendered from, so the page cache keys on it)."""
        return {"state": self.state, "reason": self.reason, "licence_allowed": self.licence_allowed,
                "licence_reason": self.licence_reason}


def pointer_skills(registry: dict) -> list[dict]:
    return [skill for skill in registry["skills"] if "source_url" in skill]


def collect(registry: dict, fetcher: Fetcher | None, notes: list[str] | None = None,
            clock: Callable[[], float] = time.monotonic) -> dict[str, Content]:
    """{name: Content} for every pointer skill. `fetcher` None: an offline build (nothing fetched)."""
    notes = notes if notes is not None else []
    out: dict[str, Content] = {}
    wanted: dict[tuple[str, str], list[dict]] = {}
    for skill in pointer_skills(registry):
        decision = licences.decide(skill.get("license"))
        if not decision.allowed:
            out[skill["name"]] = Content(LICENCE, decision.reason, False, decision.reason)
            continue
        repository = str((skill.get("source") or {}).get("repository") or "")
        commit = str(skill.get("commit") or "")
        out[skill["name"]] = Content(NOT_FETCHED, "upstream content not fetched in this build", True,
                                     decision.reason)
        if REPOSITORY.fullmatch(repository) and ".." not in repository and COMMIT.fullmatch(commit):
            wanted.setdefault((repository, commit), []).append(skill)
        elif fetcher is not None:
            notes.append(f"skill {skill['name']!r}: upstream not fetched (its repository or commit is not a plain "
                         "owner/repo and 40-hex SHA)")
    if fetcher is None:
        return out
    ends = clock() + fetcher.deadline
    for (repository, commit), skills in sorted(wanted.items()):
        left = ends - clock()
        if left <= 0:
            notes.append(f"upstream {repository}@{commit[:12]}: not fetched, the fetch deadline of "
                         f"{fetcher.deadline:g} s had passed")
            continue
        try:
            archive = _archive(fetcher, repository, commit, left)
        except Exception as exc:  # noqa: BLE001 (any failure of a stranger's server or archive: that repository only)
            message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
            notes.append(f"upstream {repository}@{commit[:12]}: not fetched ({str(message)[:300]}); the pages of "
                         + ", ".join(s["name"] for s in skills) + " show no body")
            continue
        for skill in skills:
            out[skill["name"]] = _checked(skill, archive, out[skill["name"]], notes)
    return out


def _archive(fetcher: Fetcher, repository: str, commit: str, deadline: float) -> tarball.Archive:
    from skillyard.errors import SkillyardError

    url = f"{fetcher.codeload_url.rstrip('/')}/{repository}/tar.gz/{commit}"
    data = fetcher.get(url, accept=None, max_bytes=fetcher.max_tarball_bytes, deadline=deadline)
    archive = tarball.read_archive(data)
    if archive.commit is not None and archive.commit != commit:
        raise SkillyardError(f"the tarball is of commit {archive.commit}, not {commit}",
                             "Check SKILL_GITHUB_CODELOAD_URL.")
    return archive


def _checked(skill: dict, archive: tarball.Archive, content: Content, notes: list[str]) -> Content:
    """The skill's content when every listed file is in the tarball's folder with its recorded size and sha256."""
    try:
        found = tarball.folder_files(archive, skill["path"])
    except Exception as exc:  # noqa: BLE001 (a hostile folder: links out, special files, bad names)
        reason = "the upstream folder at the pinned commit cannot be read safely"
        notes.append(f"skill {skill['name']!r}: {reason} ({getattr(exc, 'message', exc)})")
        return Content(MISMATCH, reason, True, content.licence_reason)
    files: dict[str, bytes] = {}
    for entry in sorted(skill["files"], key=lambda f: f["path"]):
        rel = entry["path"]
        if rel not in found:
            reason = f"the upstream file {rel} is missing at the pinned commit"
        else:
            data = found[rel][0]
            reason = "" if len(data) == entry["size"] and hashlib.sha256(data).hexdigest() == entry["sha256"] \
                else f"the upstream file {rel} differs from its pinned size and sha256"
        if reason:
            notes.append(f"skill {skill['name']!r}: upstream content not shown: {reason}")
            return Content(MISMATCH, reason, True, content.licence_reason)
        files[rel] = found[rel][0]
    return Content(SHOWN, "fetched from the pinned commit when this site was built; every file matched its pinned "
                   "size and sha256", True, content.licence_reason, files, body_of(files.get("SKILL.md", b"")))


def body_of(data: bytes) -> str:
    """SKILL.md without its frontmatter (empty when the block never closes)."""
    text = data[:MAX_BODY_BYTES].decode("utf-8", "replace")
    try:
        parts = split_frontmatter(text)
    except ValueError:
        return ""
    return parts[1] if parts else text
