"""The registry's own settings: `[tool.skillyard]` in pyproject.toml (or a `skillyard.toml` beside it)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.errors import SkillyardError
from skillyard.format.policy import Policy

DEFAULT_RAW_URL = "https://raw.githubusercontent.com"


@dataclass(frozen=True)
class RegistryConfig:
    root: Path
    section: dict = field(default_factory=dict)

    @property
    def skills_dir(self) -> Path:
        return self.root / self.section.get("skills_dir", "skills")

    @property
    def name(self) -> str:
        return str(self.section.get("name", self.root.resolve().name))

    @property
    def slug(self) -> str | None:
        return self.section.get("repository")

    def policy(self, mode: str | None = None) -> Policy:
        return Policy.from_config(self.section, mode=mode)

    def repository_block(self) -> dict:
        """Where clients fetch a skill's files: a URL template with `{commit}` and `{path}`."""
        slug = self.slug
        raw = str(self.section.get("raw_url", DEFAULT_RAW_URL)).rstrip("/")
        if "raw_url_template" in self.section:
            template = self.section["raw_url_template"]
        elif slug:
            template = f"{raw}/{slug}/{{commit}}/{{path}}"
        else:
            template = f"{self.root.resolve().as_uri()}/{{path}}?commit={{commit}}"
        block = {"url": self.section.get("repository_url") or (f"https://github.com/{slug}" if slug else ""),
                 "raw_url_template": template}
        if slug:
            block["slug"] = slug
        return block


def load_registry_config(root: str | Path = ".") -> RegistryConfig:
    """Read the registry settings from `skillyard.toml` or `pyproject.toml`'s `[tool.skillyard]` under `root`."""
    root = Path(root)
    for file_name, key_path in (("skillyard.toml", ()), ("pyproject.toml", ("tool", "skillyard"))):
        path = root / file_name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise SkillyardError(f"{path}: not valid TOML ({exc}).", "Fix the syntax error it names.") from exc
        for key in key_path:
            data = data.get(key, {})
        if data:
            return RegistryConfig(root, dict(data))
    return RegistryConfig(root, {})
