"""The registry's own settings: `[tool.skillyard]` in pyproject.toml (or a `skillyard.toml` beside it)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit  # pathlib imports it anyway

from skillyard.errors import SkillyardError
from skillyard.format.policy import Policy
from skillyard.format.record import FrozenRecord
from skillyard.format.schemas import schema_errors

DEFAULT_RAW_URL = "https://raw.githubusercontent.com"


class RegistryConfig(FrozenRecord):
    """`file`: where the settings were read, for messages."""

    FIELDS = ("root", "section", "file")

    def __init__(self, root: Path, section: dict | None = None, file: str = "pyproject.toml [tool.skillyard]"):
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "section", {} if section is None else section)
        object.__setattr__(self, "file", file)

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

    @property
    def require_license(self) -> bool:
        """`external_require_license = true`: `external add` and `bump` refuse a skill whose licence they cannot
        determine, instead of listing it as NOASSERTION (whose content the site never redistributes)."""
        value = self.section.get("external_require_license", False)
        if not isinstance(value, bool):
            raise self._problem("external_require_license", f"is {value!r}", "Set it to true or false.")
        return value

    def home_page(self) -> dict:
        """The site's front door (issue 37): `title` (the heading; default the registry's `name`), `pitch` (one
        line under it; default its `description`), `client_install` (the command that gets `skill`; default the
        README's pipx line) and `featured` (skill names a maintainer chose; none: no featured section). Only the
        keys set are returned, checked; the site fills the defaults."""
        out: dict = {}
        for key in ("title", "pitch", "client_install"):
            if key in self.section:
                value = self.section[key]
                if not isinstance(value, str) or not value.strip() or "\n" in value:
                    raise self._problem(key, f"is {value!r}", "Set it to one line of text.")
                out[key] = value.strip()
        if "featured" in self.section:
            value = self.section["featured"]
            if not isinstance(value, list) or not all(isinstance(name, str) and name for name in value):
                raise self._problem("featured", f"is {value!r}", 'Set it to a list of skill names, e.g. ["pdf-tools"].')
            out["featured"] = list(dict.fromkeys(value))
        return out

    def repository_block(self) -> dict:
        """Where clients fetch a skill's files: `raw_url_template`, by `host` (see site/pages/registry-json.md).

        github (the default when `repository` is set) and github-enterprise pin files by `{commit}`; static
        (the default without `repository`) serves registry.json's folder as-is: `{path}` relative to registry.json,
        or under an absolute `files_url`, with the per-file sha256 guarding the bytes instead of a commit.
        """
        slug = self.slug
        host = self.section.get("host", "github" if slug else "static")
        if host not in HOSTS:
            raise self._problem("host", f"is {host!r}", f"Use one of: {', '.join(HOSTS)}.")
        if "raw_url_template" in self.section:
            template = str(self.section["raw_url_template"])
            if schema_errors("registry", {"schema_version": "1.0", "name": "x", "description": "", "skills": [],
                                          "repository": {"url": "", "raw_url_template": template}}):
                raise self._problem("raw_url_template", f"is {template!r}",
                                    "Use `{commit}` before `{path}`, or a static `{path}` (see `host`).")
        elif host == "static":
            template = self._files_base() + "{path}"
        else:
            if not slug or slug.count("/") != 1 or not all(slug.split("/")):
                raise self._problem("repository", f"is {slug!r}", 'Set it to "owner/name" for a GitHub host.')
            if host == "github-enterprise" and "raw_url" not in self.section:
                raise self._problem("raw_url", "is missing", 'Set it to the raw host, e.g. "https://ghe.example.com/raw".')
            raw = self._http_url("raw_url", str(self.section.get("raw_url", DEFAULT_RAW_URL))).rstrip("/")
            template = f"{raw}/{slug}/{{commit}}/{{path}}"
        url = self.section.get("repository_url")
        if not url and slug and host == "github":
            url = f"https://github.com/{slug}"
        elif not url and slug and host == "github-enterprise":
            url = f"{_web_origin(template)}/{slug}"
        block = {"url": url or "", "raw_url_template": template}
        if slug:
            block["slug"] = slug
        return block

    def _files_base(self) -> str:
        """`files_url` with one trailing slash, or "" (relative to registry.json)."""
        if "files_url" not in self.section:
            return ""
        return self._http_url("files_url", str(self.section["files_url"])).rstrip("/") + "/"

    def _http_url(self, key: str, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment \
                or "{" in value or "}" in value or parts.username or parts.password:
            raise self._problem(key, f"is {value!r}", "Use a plain http(s) base URL without query or credentials.")
        return value

    def _problem(self, key: str, what: str, fix: str) -> SkillyardError:
        return SkillyardError(f"{self.root / self.file}: `{key}` {what}.", fix)


HOSTS = ("github", "github-enterprise", "static")


def _web_origin(template: str) -> str:
    """The web origin of a GitHub Enterprise raw URL: `https://raw.ghe.x` or `https://ghe.x/raw` -> `https://ghe.x`."""
    parts = urlsplit(template)
    host = parts.netloc[4:] if parts.netloc.startswith("raw.") else parts.netloc
    return f"{parts.scheme}://{host}"


def load_registry_config(root: str | Path = ".") -> RegistryConfig:
    """Read the registry settings from `skillyard.toml` or `pyproject.toml`'s `[tool.skillyard]` under `root`."""
    root = Path(root)
    for file_name, key_path in (("skillyard.toml", ()), ("pyproject.toml", ("tool", "skillyard"))):
        path = root / file_name
        if not path.is_file():
            continue
        import tomllib

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise SkillyardError(f"{path}: not valid TOML ({exc}).", "Fix the syntax error it names.") from exc
        for key in key_path:
            data = data.get(key, {})
        if data:
            return RegistryConfig(root, dict(data), file_name + (" [tool.skillyard]" if key_path else ""))
    return RegistryConfig(root, {})
