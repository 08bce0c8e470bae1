"""`github:owner/repo[/path]@ref` installs: parse the ref, read the commit's tarball safely, find the skill folder.

Reading the tarball and picking the folder's files is `format/tarball.py` (shared with `skillyard external add`);
its names are re-exported here, and `read_archive` reads this module's limits so they can be tuned in one place.
"""

from __future__ import annotations

from skillyard.errors import SkillyardError
from skillyard.format import tarball
from skillyard.format.githubref import GITHUB_REF, GitHubRef, is_github_ref, parse_ref  # noqa: F401 (re-exported)
from skillyard.format.tarball import (  # noqa: F401 (re-exported: the client's archive code and tests use them)
    SKILL_FILES,
    Archive,
    _refuse,
    choose_folder,
    folder_files,
    skill_folders,
)

MAX_MEMBERS = tarball.MAX_MEMBERS
MAX_TOTAL_BYTES = tarball.MAX_TOTAL_BYTES
MAX_STREAM_BYTES = tarball.MAX_STREAM_BYTES
MAX_HEADER_BYTES = tarball.MAX_HEADER_BYTES


def repo_from_url(url: str) -> tuple[str, str]:
    """(owner, repo) from a recorded repository URL such as https://github.com/owner/repo."""
    parts = [p for p in url.split("?")[0].rstrip("/").split("/") if p]
    if len(parts) < 2:
        raise SkillyardError(f"Cannot tell the repository from {url!r}.", "Reinstall the skill from its github: ref.")
    return parts[-2], parts[-1].removesuffix(".git")


def tarball_url(codeload_base: str, ref: GitHubRef, commit_or_ref: str | None = None) -> str:
    from urllib.parse import quote

    return f"{codeload_base.rstrip('/')}/{ref.owner}/{ref.repo}/tar.gz/{quote(commit_or_ref or ref.ref, safe='')}"


def read_archive(data: bytes, *, max_stream: int | None = None, strip_top: bool = True) -> Archive:
    """`format.tarball.read_archive` with this module's limits (see the module docstring)."""
    return tarball.read_archive(data, max_stream=max_stream or MAX_STREAM_BYTES, strip_top=strip_top,
                                max_members=MAX_MEMBERS)


def find_skill_folder(archive_paths: list[str], ref: GitHubRef) -> str:
    """The repo-relative folder holding the skill: the ref's path, else the root, else the folder named like the
    repository, else the only one found."""
    return choose_folder(archive_paths, path=ref.path, preferred=ref.repo, what=f"{ref.slug}@{ref.ref}",
                         name_one=f"github:{ref.slug}/<path>@{ref.ref}")


def skill_files(data: bytes, ref: GitHubRef) -> tuple[str, dict[str, tuple[bytes, bool]], str | None]:
    """(folder, {path inside the skill folder: (bytes, executable)}, commit) from a tarball, safely."""
    folder, files, commit, _ = skill_snapshot(data, ref)
    return folder, files, commit


def skill_snapshot(data: bytes, ref: GitHubRef) -> tuple[str, dict[str, tuple[bytes, bool]], str | None, float]:
    """`skill_files` and the folder's newest file time (its commit's time: a versionless skill's version)."""
    archive = read_archive(data)
    folder = find_skill_folder(list(archive.files) + list(archive.links), ref)
    return folder, folder_files(archive, folder), archive.commit, tarball.newest_time(archive, folder)
