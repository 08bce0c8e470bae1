"""Turn a user's skill reference into one registry entry.

References: `name`, `name@version` (`v1.2.0` and `1.2.0` are the same), `name@source` (a configured source
name wins over a version with the same spelling), and `--source` (the `source=` argument). Without a source,
the highest-priority source that has the name wins.

`resolve(ref, config, source=None, offline=False) -> Resolved`; `Resolved.file_url(path)` is where a file of
the skill is downloaded from: the registry's `repository.raw_url_template` with `{commit}` and `{path}`
(repository-relative, URL-quoted), relative to the registry.json URL when it has no scheme (a static host:
registry.json's folder served as-is, no commit pin; the sha256 of every file is checked); a template on https://raw.githubusercontent.com is pointed at
`config.github_raw_url`, which is how GitHub Enterprise users (and tests) redirect downloads. A pointer entry
(`source_url`, registry.json's documentation) is fetched through its own `source.raw_url_template`: the upstream
repository at its pinned `commit`, its `path` being the folder there; every file's size and sha256 are checked the
same way.

A registry is untrusted: before anything is downloaded, the chosen entry's paths must pass the shared path rule
(`format.paths`) — no VCS or tool metadata, no client bookkeeping, no hidden files (validate never publishes
them), no names that collide by case or are both a file and a folder — and `file_url` refuses any other path.
Its declared sizes are bounded too (`MAX_ENTRY_BYTES`, `MAX_ENTRY_FILES`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin, urlsplit

from skillyard.client.cache import SourceRegistry, load_registries, stderr_warn
from skillyard.client.config import DEFAULT_GITHUB_RAW_URL, Config, Source
from skillyard.client.tokens import token_for, token_for_url, upstream_token
from skillyard.errors import SkillyardError
from skillyard.format.paths import component_problem, is_hidden, path_problem, path_set_problems

# What one registry entry may ask the client to download (the same bound as a github: archive's contents); each
# file is fetched with its declared size as the cap, so a server cannot send more than the entry declares.
MAX_ENTRY_BYTES = 64 * 1024 * 1024
MAX_ENTRY_FILES = 20000

__all__ = ["Resolved", "available", "check_entry", "entry_problems", "file_url", "parse_ref", "resolve", "token_for", "token_for_url"]


@dataclass
class Resolved:
    """The chosen entry: its source, the skill dict as in registry.json, and the whole registry."""

    source: Source
    skill: dict
    registry: dict
    config: Config | None = field(default=None, repr=False)
    stale: bool = False
    others: list[tuple[Source, dict]] = field(default_factory=list)  # same name in lower-priority sources

    @property
    def name(self) -> str:
        return self.skill["name"]

    @property
    def version(self) -> str:
        return self.skill["version"]

    def file_url(self, file_path: str) -> str:
        """Download URL of `file_path` (relative to the skill folder)."""
        return file_url(self.registry, self.skill, file_path, self.config, base=self.source.url)

    def token_for(self, url: str) -> str | None:
        """The source's token if `url` may receive it (its own origin, or its own repository on GitHub); for a
        pointer entry's upstream file, the user's own GitHub token (`tokens.upstream_token`), never the source's."""
        token = token_for_url(self.source, url, self.config)
        if token is None and "source_url" in self.skill:
            token = upstream_token(url, self.config)
        return token


def raw_template(registry: dict, config: Config | None, skill: dict | None = None) -> str:
    """The template a skill's files are fetched through: the registry's, or a pointer entry's own (its `source`:
    the upstream repository at the pinned commit)."""
    template = registry["repository"]["raw_url_template"]
    if skill is not None and "source_url" in skill:
        template = pointer_template(skill)
    if config is not None and template.startswith(DEFAULT_GITHUB_RAW_URL + "/"):
        template = config.github_raw_url + template[len(DEFAULT_GITHUB_RAW_URL):]
    return template


POINTER_TEMPLATE = re.compile(r"https://[^\s{}?#/@]+/[A-Za-z0-9-]+/[A-Za-z0-9._-]+/\{commit\}/\{path\}")
COMMIT = re.compile(r"[0-9a-f]{40}")


def pointer_template(skill: dict) -> str:
    """A pointer entry's raw URL template, refused unless it is a plain https URL of one repository pinned by a
    full commit: the entry came from an untrusted registry, and its files must come from exactly that commit."""
    source = skill.get("source")
    template = source.get("raw_url_template") if isinstance(source, dict) else None
    if not isinstance(template, str) or not POINTER_TEMPLATE.fullmatch(template) \
            or not COMMIT.fullmatch(str(skill.get("commit", ""))):
        raise SkillyardError(f"refusing the registry entry {skill.get('name')!r}: it points at another repository "
                             "without a valid `source.raw_url_template` or a full 40-hex `commit`; nothing was "
                             "installed", "Report the registry entry to its maintainers.")
    return template


def file_url(registry: dict, skill: dict, file_path: str, config: Config | None = None, *,
             base: str | None = None) -> str:
    """The file's URL; a static host's template without a scheme (`{path}`) is relative to `base`, the
    registry.json URL, so the files must sit beside it as in the repository."""
    problem = _file_problem(file_path)
    if problem:
        raise SkillyardError(f"refusing the file path {file_path!r} of skill {skill.get('name')!r}: it {problem}; "
                             "nothing was installed", "Report the registry entry to its maintainers.")
    parts = [p for p in f"{skill['path']}/{file_path}".split("/") if p]
    if any(p in (".", "..") for p in parts):
        raise SkillyardError(f"refusing the file path {file_path!r} of skill {skill.get('name')!r}: it leaves the "
                             "skill folder", "Report the registry entry to its maintainers.")
    url = (raw_template(registry, config, skill).replace("{commit}", quote(skill["commit"], safe=""))
           .replace("{path}", quote("/".join(parts), safe="/")))
    if urlsplit(url).scheme:
        return url
    if not base:
        raise SkillyardError(f"registry {registry.get('name')!r} serves files relative to its registry.json, but "
                             "its URL is unknown", "Install it from a source added with `skill source add`.")
    return urljoin(base, url)


def _file_problem(rel) -> str | None:
    problem = path_problem(rel)
    if problem is None and is_hidden(rel):
        problem = "is a hidden file, which a registry never publishes"
    return problem


def entry_problems(skill: dict) -> list[str]:
    """Why a registry entry must not be installed (its name, folder and file list), as messages; [] when fine."""
    out = []
    name = skill.get("name")
    if not isinstance(name, str) or component_problem(name) or is_hidden(name):
        out.append(f"the skill name {name!r} is not a plain folder name")
    if "source_url" in skill or "source" in skill:
        try:
            pointer_template(skill)
        except SkillyardError as exc:
            out.append(exc.message.split(": ", 1)[1].split("; nothing", 1)[0])
    folder = str(skill.get("path") or "").strip("/")
    if folder not in ("", ".") and path_problem(folder):
        out.append(f"the skill folder {folder!r} {path_problem(folder)}")
    files = skill.get("files") or []
    sizes = [f.get("size") if isinstance(f, dict) else None for f in files]
    if any(not isinstance(size, int) or isinstance(size, bool) or size < 0 for size in sizes):
        out.append("a file size is not a whole number of bytes")
    elif sum(sizes) > MAX_ENTRY_BYTES or len(files) > MAX_ENTRY_FILES:
        out.append(f"its {len(files):,} files add up to {sum(sizes):,} bytes; the client accepts at most "
                   f"{MAX_ENTRY_FILES:,} files and {MAX_ENTRY_BYTES:,} bytes")
    paths = [str(f.get("path")) if isinstance(f, dict) else "" for f in files]
    for rel in paths:
        problem = _file_problem(rel)
        if problem:
            out.append(f"the file path {rel!r} {problem}")
    if len(set(paths)) != len(paths):
        out.append("a file path is listed twice")
    out += [f"the file path {rel!r} {problem}" for rel, problem in path_set_problems(set(paths))]
    return out


def check_entry(source: Source, skill: dict) -> None:
    """Refuse a registry entry whose paths the shared rule rejects, before any file is downloaded."""
    problems = entry_problems(skill)
    if problems:
        raise SkillyardError(f"source {source.name!r}: refusing the registry entry {skill.get('name')!r}: "
                             f"{'; '.join(problems[:5])}; nothing was installed",
                             "The registry is damaged or malicious; report it to its maintainers "
                             f"({source.url}).")


def parse_ref(ref: str, source_names: set[str]) -> tuple[str, str | None, str | None]:
    """(name, version or None, source or None) from `name`, `name@version` or `name@source`."""
    name, sep, tail = ref.strip().partition("@")
    if not name or (sep and not tail):
        raise SkillyardError(f"{ref!r} is not a skill reference", "Write NAME, NAME@VERSION or NAME@SOURCE.",
                             exit_code=2)
    if not sep:
        return name, None, None
    if tail in source_names:
        return name, None, tail
    return name, tail, None


def _norm_version(version: str) -> str:
    return version[1:] if version[:1] in ("v", "V") else version


def available(registries: list[SourceRegistry], name: str) -> list[tuple[Source, dict]]:
    """Every (source, skill) entry called `name`, highest-priority source first."""
    out = []
    for item in registries:
        for skill in item.registry.get("skills", []):
            if skill.get("name") == name:
                out.append((item.source, skill))
    return out


def resolve(ref: str, config: Config, *, source: str | None = None, offline: bool = False,
            refresh: bool = False, registries: list[SourceRegistry] | None = None, warn=stderr_warn) -> Resolved:
    """Find the entry `ref` names (see the module docstring); SkillyardError says what exists otherwise."""
    offline = offline or bool(config.flags.get("offline"))  # `skill install --offline`
    names = {s.name for s in config.sources}
    name, version, ref_source = parse_ref(ref, names)
    if source and ref_source and source != ref_source:
        raise SkillyardError(f"{ref!r} names source {ref_source!r} but --source says {source!r}",
                             "Use one of them.", exit_code=2)
    wanted_source = source or ref_source
    if wanted_source:
        config.source(wanted_source)  # clear error when unknown
    if registries is None:  # only=name: a stale sparse mirror checks just this skill's entry (client/sparse.py)
        registries = load_registries(config, offline=offline, refresh=refresh, warn=warn, only=name)
    stale = {item.source.name: item.stale for item in registries}
    by_source = {item.source.name: item.registry for item in registries}
    entries = available(registries, name)
    if not entries:
        from skillyard.client.search import did_you_mean

        close = " or ".join(f"`skill install {n}`" for n in did_you_mean(config, name))
        raise SkillyardError(f"no skill named {name!r} in any source ({', '.join(sorted(names))})",
                             (f"Did you mean {close}? " if close else "") + f"Search for it: `skill search {name}`.")
    candidates = [e for e in entries if not wanted_source or e[0].name == wanted_source]
    if not candidates:
        found = ", ".join(f"{s.name} ({k['version']})" for s, k in entries)
        raise SkillyardError(f"source {wanted_source!r} has no skill named {name!r}; it is in: {found}",
                             f"Use `{name}@{entries[0][0].name}` or drop --source.")
    if version:
        matching = [e for e in candidates if _norm_version(e[1]["version"]) == _norm_version(version)]
        if not matching:
            found = ", ".join(f"{k['version']} ({s.name})" for s, k in entries)
            raise SkillyardError(f"{name}@{version} is not available; available versions: {found}",
                                 f"Use one of them, e.g. `{name}@{entries[0][1]['version']}`.")
        candidates = matching
    chosen_source, skill = candidates[0]
    check_entry(chosen_source, skill)
    others = [e for e in entries if e[0].name != chosen_source.name]
    return Resolved(chosen_source, skill, by_source[chosen_source.name], config, stale[chosen_source.name], others)
