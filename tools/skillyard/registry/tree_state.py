"""Which published skill files differ from HEAD: a registry must never publish a hash its pinned commit does
not hold. `skillyard build` refuses such files for a host that pins by commit and reports them for a static one."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.registry import gitlog
from skillyard.registry.build import skills_folder_in_repo
from skillyard.registry.config import RegistryConfig


class TreeState:
    """Which skill files differ from HEAD, read by `git status` while the build runs (on another core).

    A host that pins files by commit serves a skill's files from its last commit, so a file the working tree changed
    (modified, staged, untracked, ignored but published) or deleted would be listed with a sha256 its commit does not
    hold: every install of it fails. `differing` names those files; the build refuses them, or, for a static host
    that serves the working tree itself, reports them.
    """

    def __init__(self, root: Path, config: RegistryConfig):
        self.top = gitlog.repo_toplevel(root)
        self.head = gitlog.head_commit(root) if self.top is not None else None
        skills_rel = skills_folder_in_repo(root, config, self.top)
        self.scan = gitlog.StatusScan(self.top, skills_rel) if self.top is not None and skills_rel else None

    @property
    def in_git(self) -> bool:
        return self.scan is not None

    def differing(self, registry: Callable[[], Mapping]) -> list[str]:
        """Repository-relative paths of the listed skills' files that differ from HEAD (with ` (deleted)` after a
        file the working tree lost), sorted. Outside git: nothing to compare with, so none."""
        if self.scan is None:
            return []
        entries = self.scan.entries()
        if entries is None:
            raise SkillyardError("git cannot tell which skill files differ from HEAD (`git status` failed).",
                                 "Run `git status` in the registry to see why, then build again.")
        if not entries:
            return []  # (a clean tree: registry.json is not even parsed)
        skills = registry().get("skills", [])
        folders = {skill["path"] for skill in skills}
        published = {f"{skill['path']}/{entry['path']}" for skill in skills
                     for entry in skill.get("files", [])}
        found: set[str] = set()
        for code, path in entries:
            if path.endswith("/"):  # an untracked or ignored folder: the published files inside it
                found.update(p for p in published if p.startswith(path))
            elif path in published:
                found.add(path)
            elif "D" in code and gitlog.owner_folder(path, folders) is not None:
                found.add(f"{path} (deleted)")
        return sorted(found)

    def finish(self) -> None:
        if self.scan is not None:
            self.scan.finish()


def pins_by_commit(config: RegistryConfig) -> bool:
    """Whether clients fetch the files by commit (`{commit}` in the raw URL template) rather than as served."""
    return "{commit}" in config.repository_block()["raw_url_template"]
