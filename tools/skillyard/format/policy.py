"""What a registry accepts. The values live in config (`[tool.skillyard]`), never in code."""

from __future__ import annotations

from skillyard.format.record import FrozenRecord

DEFAULT_IGNORED_NAMES = frozenset({".DS_Store", "__pycache__", ".git"})


class Policy(FrozenRecord):
    FIELDS = ("strict", "required_fields", "max_file_bytes", "max_total_bytes", "max_files", "max_frontmatter_lines",
              "ignored_names")
    # The defaults, readable on the class as they were on the dataclass (from_config reads them there).
    strict: bool = True
    required_fields: tuple[str, ...] = ()
    max_file_bytes: int = 1024 * 1024
    max_total_bytes: int = 5 * 1024 * 1024
    max_files: int = 200
    max_frontmatter_lines: int = 200
    ignored_names: frozenset[str] = DEFAULT_IGNORED_NAMES

    def __init__(self, strict: bool = True, required_fields: tuple[str, ...] = (), max_file_bytes: int = 1024 * 1024,
                 max_total_bytes: int = 5 * 1024 * 1024, max_files: int = 200, max_frontmatter_lines: int = 200,
                 ignored_names: frozenset[str] = DEFAULT_IGNORED_NAMES):
        values = (strict, required_fields, max_file_bytes, max_total_bytes, max_files, max_frontmatter_lines,
                  ignored_names)
        for name, value in zip(self.FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    @classmethod
    def from_config(cls, section: dict, *, mode: str | None = None) -> Policy:
        """Build from a `[tool.skillyard]`-style mapping; `mode` ("strict"/"lenient") overrides the config's."""
        chosen = mode or section.get("mode", "strict")
        if chosen not in ("strict", "lenient"):
            from skillyard.errors import SkillyardError

            raise SkillyardError(f"mode must be 'strict' or 'lenient', not {chosen!r}", "Set mode = \"strict\" in [tool.skillyard].")
        return cls(
            strict=chosen == "strict",
            required_fields=tuple(section.get("required_fields", ())),
            max_file_bytes=int(section.get("max_file_bytes", cls.max_file_bytes)),
            max_total_bytes=int(section.get("max_total_bytes", cls.max_total_bytes)),
            max_files=int(section.get("max_files", cls.max_files)),
        )

    @property
    def mode(self) -> str:
        return "strict" if self.strict else "lenient"


# ---------------------------------------------------------------------------------------------- install policy
# What the `skill` client tolerates at install that a registry refuses to publish: standard violations runtimes
# accept in the wild (a long description, an odd name, a name unlike its folder) and format problems in optional,
# informational metadata no client acts on (homepage, tags, author, ...). They warn, and refuse only with --strict.
# Everything else validation calls an error (paths, links, invisible characters, YAML, encoding, inputs, mcp_deps,
# allowed-tools, security, sizes) stays a refusal.
INSTALL_TOLERATED_RULES = frozenset({
    "name-format", "description-format", "name-folder-mismatch", "frontmatter-line-too-long",
    "homepage-format", "tags-format", "author-format", "maintainers-format", "display-name-format",
    "license-format", "compatibility-format", "metadata-format", "capabilities-format",
    "catalog-field-type",  # category, keywords, domain, origin, when_to_use: catalogue text, read by no runtime
})
