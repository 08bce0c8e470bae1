"""What a registry accepts. The values live in config (`[tool.skillyard]`), never in code."""

from __future__ import annotations

from skillyard.format.record import FrozenRecord

DEFAULT_IGNORED_NAMES = frozenset({".DS_Store", "__pycache__", ".git"})


# Size limits, derived from what the ecosystem publishes (measured 2026-11): the 594 skill folders of 8 public
# repositories in shared/corpus total 15 KB at the median, 104 KB at p90, 746 KB at p99 and 1.13 MB at most
# (K-Dense's pptx); their files are 4.4 KB at the median, 50 KB at p99 and 377 KB at most (a Zoom reference page);
# they hold 145 files at most. The largest official skill is Anthropic's canvas-design, 5.55 MB with its fonts,
# which the old 5 MiB total refused. The defaults leave headroom over all of them, and stay at or below the
# client's install defaults (install.max_total_bytes 25 MiB, install.max_file_bytes 10 MiB,
# install.max_download_bytes 10 MiB, install.max_files 1000) so a skill a registry accepts is never refused by
# `skill install` with default settings (tests/registry/test_limits.py holds this).
DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024  # 11x the largest file measured
DEFAULT_MAX_TOTAL_BYTES = 10 * 1024 * 1024  # 1.9x canvas-design, 9x the largest corpus skill; = the download cap
DEFAULT_MAX_FILES = 200  # 1.4x the most files measured (145)


class Policy(FrozenRecord):
    FIELDS = ("strict", "required_fields", "max_file_bytes", "max_total_bytes", "max_files", "max_frontmatter_lines",
              "ignored_names")
    # The defaults, readable on the class as they were on the dataclass (from_config reads them there).
    strict: bool = True
    required_fields: tuple[str, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    max_files: int = DEFAULT_MAX_FILES
    max_frontmatter_lines: int = 200
    ignored_names: frozenset[str] = DEFAULT_IGNORED_NAMES

    def __init__(self, strict: bool = True, required_fields: tuple[str, ...] = (),
                 max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
                 max_files: int = DEFAULT_MAX_FILES, max_frontmatter_lines: int = 200,
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
