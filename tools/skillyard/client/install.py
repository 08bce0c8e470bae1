"""`skill install`: turn a ref into checked bytes, then into an installed, locked skill — or into nothing.

Order matters and is the point of this module: resolve → inputs (type-checked) → MCP dependencies → download and
verify every file (size, sha256, whole-skill integrity) → render inputs → write atomically → place targets → lock.
Everything that can fail runs before the first write, and the write itself is a rename (see `store`).
A skill.yaml-only package (design 000) gains, right after verification, the SKILL.md `skillyard migrate` writes
(`with_generated_skill_md`), which then follows the same path as every other file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.client import inputs as inputs_mod
from skillyard.client import lockfile, store
from skillyard.client import mcp as mcp_mod
from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError
from skillyard.format import timeversion
from skillyard.format.inputs import RENDERED_FILES as RENDERED  # the site renders the same files
from skillyard.format.policy import INSTALL_TOLERATED_RULES


@dataclass
class Candidate:
    """A skill ready to install: its published files (verified), metadata and where it came from."""

    name: str
    version: str
    source: dict  # resolved_source for the lock (type, source?, url?, commit?, path?, integrity)
    files: list[StagedFile]  # as published, before inputs are rendered
    inputs: list[dict] = field(default_factory=list)
    mcp_deps: list[dict] = field(default_factory=list)
    description: str = ""
    warnings: list[str] = field(default_factory=list)  # registry-policy findings the client tolerates
    meta: dict = field(default_factory=dict)  # the merged metadata (license, tags, ...) for `skill info`


@dataclass
class Options:
    scope: str = "user"
    project_root: Path = field(default_factory=Path.cwd)
    home: Path = field(default_factory=Path.home)
    targets: list[str] = field(default_factory=list)
    cli_inputs: dict = field(default_factory=dict)
    dry_run: bool = False
    force: bool = False
    skip_deps_check: bool = False
    copy: bool = False

    @property
    def root(self) -> Path:
        return store.scope_root(self.scope, project_root=self.project_root, home=self.home)


@dataclass
class Outcome:
    name: str
    version: str
    status: str  # installed | updated | unchanged | planned
    path: str
    scope: str
    targets: list[dict]
    files: list[dict]
    inputs: dict
    deps: dict
    source: dict
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "status": self.status, "path": self.path,
                "scope": self.scope, "targets": self.targets, "files": self.files, "inputs": self.inputs,
                "deps": self.deps, "source": self.source, "warnings": self.warnings,
                "total_size": sum(f["size"] for f in self.files)}


# ---------------------------------------------------------------------------------------------- verification


def verify_files(files: list[StagedFile], expected: list[dict], *, integrity: str | None, what: str) -> None:
    """Every expected file present with its size and sha256, nothing extra, and the whole-set integrity."""
    got = {f.path: f for f in files}
    for entry in expected:
        item = got.get(entry["path"])
        if item is None:
            raise SkillyardError(f"{what}: the file {entry['path']} is missing; nothing was installed.",
                                 "The source changed under its pin; try again later or report it to its owner.")
        if len(item.data) != entry["size"]:
            raise SkillyardError(f"{what}: {entry['path']} is {len(item.data)} bytes, but {entry['size']} were "
                                 "expected; nothing was installed.",
                                 "The download was cut short or the file was changed; try again, or report it.")
        if item.sha256 != entry["sha256"]:
            raise SkillyardError(f"{what}: the sha256 of {entry['path']} does not match ({item.sha256[:12]}… "
                                 f"instead of {entry['sha256'][:12]}…); nothing was installed.",
                                 "The file was tampered with or corrupted on the way; do not install it. "
                                 "Report it to the registry's maintainers.")
    extra = sorted(set(got) - {e["path"] for e in expected})
    if extra:
        raise SkillyardError(f"{what}: unexpected file(s) {', '.join(extra)}; nothing was installed.",
                             "Report it to the registry's maintainers.")
    if integrity:
        actual = integrity_of(files)
        if actual != integrity:
            raise SkillyardError(f"{what}: the skill's integrity {actual} does not match {integrity}; "
                                 "nothing was installed.", "Report it to the registry's maintainers.")


def integrity_of(files: list[StagedFile]) -> str:
    """The registry's one digest over a file list (StagedFile has the `path` and `sha256` it reads)."""
    from skillyard.format.package import integrity_of as integrity

    return integrity(files)


# ---------------------------------------------------------------------------------------------- candidates


SHOWN_ERRORS = 5  # a hostile or mistaken folder can hold thousands: the message names the first few and counts the rest


def summarize_errors(errors, *, with_lines: bool = False) -> str:
    """The first few error findings on one line, then how many more: enough to act on, never a wall of text."""
    shown = "; ".join(f"{f.file or '.'}{':' + str(f.line) if with_lines and f.line else ''}: {f.message}"
                      for f in errors[:SHOWN_ERRORS])
    rest = len(errors) - SHOWN_ERRORS
    return shown + (f"; and {rest} more error(s)" if rest > 0 else "")


# ---------------------------------------------------------------------------------------------- client policy
# Limits for installing are the client's own (config `install.*`, sized like `npx skills`): a registry's stricter
# policy is for publishing. Standard violations every runtime tolerates warn, and refuse only with --strict /
# `install.strict`. Everything else that validation calls an error (paths, links, invisible characters, YAML,
# encoding, ...) is safety and always refuses.

TOLERATED_RULES = INSTALL_TOLERATED_RULES  # format/policy.py: the list is policy, not install code
LIMIT_KEYS = {"package-too-large": "install.max_total_bytes", "file-too-large": "install.max_file_bytes",
              "too-many-files": "install.max_files"}


def client_policy(config):
    """The format Policy installs validate with: lenient, and the client's own size and count limits."""
    from skillyard.format import Policy

    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    return Policy(strict=False, max_total_bytes=config.install_max_total_bytes,
                  max_file_bytes=config.install_max_file_bytes, max_files=config.install_max_files)


def is_strict(config, strict: bool | None) -> bool:
    if strict is not None:
        return strict
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    return config.install_strict


def judge(package, *, where: str, strict: bool, with_lines: bool = False) -> list[str]:
    """Refuse on any safety error (or, with strict, any tolerated one too); return the tolerated ones as warnings.
    A limit error names the config key that raises it."""
    tolerated = [f for f in package.findings if f.rule in TOLERATED_RULES and str(f.severity) != "info"]
    refusing = [f for f in package.errors if f.rule not in TOLERATED_RULES] + (tolerated if strict else [])
    if refusing:
        lines = summarize_errors(refusing, with_lines=with_lines)
        keys = sorted({LIMIT_KEYS[f.rule] for f in refusing if f.rule in LIMIT_KEYS})
        if keys:
            fix = (f"This is over the client's install limit: if you trust the skill, raise `{keys[0]}` in the "
                   f"client's config.yaml (or set ${_env_name(keys[0])}).")
        elif strict and all(f.rule in TOLERATED_RULES for f in refusing):
            fix = "Runtimes tolerate this; install without --strict (and `install.strict: false`) to accept it."
        else:
            fix = f"Fix the findings (`skillyard validate {where}` explains each), then install again."
        raise SkillyardError(f"{where} is not a valid skill: {lines}; nothing was installed.", fix)
    return [f"{where}: {f.file or '.'}: {f.message} (runtimes tolerate it; `--strict` refuses it)"
            for f in tolerated]


def folder_name(name: object, *, where: str, strict: bool, fallback: str | None = None) -> tuple[str, list[str]]:
    """The installed folder's name for a skill `name`, and a warning when it is not the name itself.

    A standard name is its own folder. An odd name runtimes tolerate (`Odd_Name`, `PDF Tools`: one plain
    component, no path, no control or invisible character) installs as its slug (`odd-name`, cut to 64 characters
    at a hyphen), so two names that differ only by case never meet on a case-insensitive disk; a name with no
    letters or digits in ASCII (`文档助手`) installs under its source folder's name (`fallback`) when that is a
    standard name. `--strict` refuses all of these. Anything else is refused."""
    from skillyard.format.paths import component_problem, is_hidden, path_problem
    from skillyard.format.slug import ascii_slug  # the shared rule; cut below at a hyphen, not mid-word

    try:
        return store.check_name(name), []
    except SkillyardError as exc:
        refusal = exc
    slug = ""
    if (isinstance(name, str) and len(name) <= 4 * store.MAX_NAME and "/" not in name and not is_hidden(name)
            and not component_problem(name) and not path_problem(name)):
        slug = ascii_slug(name)
        if len(slug) > store.MAX_NAME:  # cut at the last hyphen within the limit, else at the limit
            cut = slug[:store.MAX_NAME]
            if slug[store.MAX_NAME] != "-" and "-" in cut:
                cut = cut.rsplit("-", 1)[0]
            slug = cut.strip("-")
        if (not slug or not store.NAME_RE.match(slug)) and fallback and len(fallback) <= store.MAX_NAME \
                and store.NAME_RE.match(fallback) and not component_problem(fallback):
            slug = fallback
    if not slug or not store.NAME_RE.match(slug) or component_problem(slug):
        raise SkillyardError(f"{where}: SKILL.md `name`: {refusal.message}; nothing was installed.",
                             "Rename the skill to lowercase letters, digits and hyphens in SKILL.md (and its "
                             "folder).") from None
    if strict:
        raise SkillyardError(f"{where}: SKILL.md `name` {name!r} is not a standard skill name (lowercase letters, "
                             "digits and single hyphens); nothing was installed.",
                             f"Runtimes tolerate it (it would install as `{slug}`); install without --strict to "
                             f"accept it, or rename the skill to `{slug}`.")
    return slug, [f"{where}: SKILL.md `name` {name!r} is not a standard skill name; installed as `{slug}` "
                  "(runtimes tolerate it; `--strict` refuses it)"]


def _env_name(key: str) -> str:
    from skillyard.client.config import _ENV_KEYS

    return _ENV_KEYS[key][0]


def from_local(path: Path, config=None, *, strict: bool | None = None) -> Candidate:
    """A local skill folder, validated first with the client's policy: a safety error refuses the install."""
    from skillyard.client import archive
    from skillyard.format import load_skill

    if not Path(path).is_dir() and archive.is_archive_ref(str(path)):  # a lock entry of an archive install
        return from_archive(str(path), config, strict=strict)
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise SkillyardError(f"{path} is not a folder.", "Give the path to a skill folder (the one holding SKILL.md).")
    package = load_skill(folder, client_policy(config))
    strict = is_strict(config, strict)
    warnings = judge(package, where=str(path), strict=strict, with_lines=True)
    name, renamed = folder_name(package.name, where=str(path), strict=strict, fallback=folder.name)
    files = []
    newest = 0.0  # a versionless folder's version is the time of its newest file (format/timeversion.py)
    for entry in package.files:
        real = os.path.realpath(folder / entry.path)
        if os.path.commonpath([str(folder), real]) != str(folder):
            raise SkillyardError(f"{path}/{entry.path} points outside the skill folder.", "Replace the link with a file.")
        with open(real, "rb") as handle:
            files.append(StagedFile(entry.path, handle.read(), entry.executable))
            newest = max(newest, os.fstat(handle.fileno()).st_mtime)
    verify_files(files, [f.to_dict() for f in package.files], integrity=package.integrity(), what=str(path))
    files = with_generated_skill_md(files, where=str(path))
    return Candidate(name, timeversion.declared_or(package.data, timeversion.from_timestamp(newest)),
                     {"type": "local", "path": str(folder), "integrity": package.integrity()}, files,
                     list(package.data.get("inputs") or []), list(package.data.get("mcp_deps") or []),
                     str(package.data.get("description") or ""), [*warnings, *renamed], dict(package.data))


MANIFEST = "skill.yaml"
GENERATED = "SKILL.md"  # what a skill.yaml-only package gets, so every target and third-party client can load it


def _frontmatter_of(files: list[StagedFile], name_hint: str) -> dict:
    """The skill's metadata before validation (it names the check folder): SKILL.md's frontmatter merged with
    skill.yaml, or the manifest's fields alone; conflicts are left for validation to report."""
    from skillyard.format import parse_skill_md
    from skillyard.format.manifest import MANIFEST_ONLY_FIELDS, merge_manifest

    data = None
    item = next((f for f in files if f.path in RENDERED), None)
    if item is not None:
        try:
            data = parse_skill_md(item.data.decode("utf-8"), strict=False, file=item.path).data
        except UnicodeDecodeError:
            raise SkillyardError(f"{name_hint}: {item.path} is not UTF-8 text; nothing was installed.",
                                 "Ask the author to save it as UTF-8.") from None
    manifest = _manifest_of(files, where=name_hint)
    if manifest is not None:
        data = merge_manifest(data, manifest)[0] if data is not None else \
            {k: v for k, v in manifest.items() if k not in MANIFEST_ONLY_FIELDS}
    if data is None:
        raise SkillyardError(f"{name_hint} has no SKILL.md or skill.yaml.", "Check the repository and path.")
    return data


def _manifest_of(files: list[StagedFile], *, where: str) -> dict | None:
    """The parsed top-level skill.yaml, None without one; unreadable is an error (validation says why)."""
    from skillyard.format.manifest import parse_manifest

    item = next((f for f in files if f.path == MANIFEST), None)
    if item is None:
        return None
    try:
        manifest, _, findings = parse_manifest(item.data.decode("utf-8"), file=MANIFEST)
    except UnicodeDecodeError:
        manifest, findings = None, []
    if manifest is None:
        detail = summarize_errors([f for f in findings if f.is_error]) or "skill.yaml is not UTF-8 text"
        raise SkillyardError(f"{where}: its skill.yaml cannot be read: {detail}; nothing was installed.",
                             "Ask the author to fix skill.yaml (`skillyard validate` explains each finding).")
    return manifest


def with_generated_skill_md(files: list[StagedFile], *, where: str) -> list[StagedFile]:
    """A skill.yaml-only package (design 000: `system_prompt` is the body) gains the SKILL.md `skillyard migrate`
    would write - the same function - so every target and third-party client finds the skill; skill.yaml stays
    beside it. Runs on verified files, before inputs are rendered and before anything is written; the generated
    file then goes through the same path checks, rendering, lock entry and journaled write as any other."""
    from skillyard.format.manifest import manifest_to_skill_md
    from skillyard.format.paths import path_set_problems

    if any(f.path in RENDERED for f in files):
        return files
    manifest = _manifest_of(files, where=where)
    if manifest is None:
        return files
    prompt = manifest.get("system_prompt")
    if not isinstance(prompt, str) or not prompt.strip():  # as `migrate` refuses: no instructions, no skill
        got = "missing" if prompt is None else f"{type(prompt).__name__} {str(prompt)[:40]!r}"
        raise SkillyardError(f"{where}/skill.yaml: `system_prompt` must be the skill's instructions as text (it "
                             f"becomes the body of SKILL.md), but it is {got}; nothing was installed.",
                             "Write the instructions as `system_prompt: |` followed by indented lines, or add a "
                             "SKILL.md (`skillyard migrate`).")
    # The shared rule on the set with the new name: `Skill.md` (one file on a case-insensitive disk) or a
    # `SKILL.md/` folder would be overwritten or fail half-way. The published set already passed it alone.
    clashes = path_set_problems([f.path for f in files] + [GENERATED])
    if clashes:
        rel, problem = clashes[0]
        raise SkillyardError(f"{where}: {rel} {problem}, with the SKILL.md generated from skill.yaml; nothing was "
                             "installed.", "Ask the author to rename it, or to add a SKILL.md (`skillyard migrate`).")
    text = manifest_to_skill_md(manifest)
    return sorted([*files, StagedFile(GENERATED, text.encode("utf-8"))], key=lambda f: f.path)


def from_github(ref_text: str, config, *, commit: str | None = None, path: str | None = None,
                integrity: str | None = None, strict: bool | None = None) -> Candidate:
    """A skill folder out of a repository tarball (codeload layout), read safely in memory."""
    from skillyard.client import github

    ref = github.parse_ref(ref_text)
    if path is not None:
        ref = github.GitHubRef(ref.owner, ref.repo, path, ref.ref)
    url = github.tarball_url(config.github_codeload_url, ref, commit)
    data = download_capped(url, config, token=_github_token(config), what=f"github:{ref.slug}")
    try:
        folder, raw, archive_commit = github.skill_files(data, ref)
    except SkillyardError as exc:
        if "not a readable tarball" in exc.message:  # name what was downloaded, and from where
            raise SkillyardError(f"{url}: {exc.message}", exc.fix) from None
        raise
    where = f"github:{ref.slug}/{folder}".rstrip("/")
    candidate = _from_archive_files(raw, where=where, config=config, strict=strict,
                                    fallback=folder.rsplit("/", 1)[-1] if folder else ref.repo.lower())
    actual = candidate.source["integrity"]
    if integrity and actual != integrity:
        raise SkillyardError(f"github:{ref.slug}@{commit}: the skill's integrity {actual} does not match the "
                             f"locked {integrity}; nothing was installed.",
                             "The repository's history was rewritten or the archive was tampered with.")
    candidate.source = {"type": "github", "url": ref.url, "commit": archive_commit or commit or ref.ref,
                        "path": folder, "integrity": actual}
    if ref.ref != "HEAD":
        candidate.source["ref"] = ref.ref  # what `skill update` follows (a branch or tag moves; a commit stays put)
    return candidate


def from_archive(ref_text: str, config, *, strict: bool | None = None) -> Candidate:
    """A skill out of a local .zip/.tar.gz/.tgz/.tar (design 001 §8.1), read by the same code and rules as a
    GitHub tarball (see `client.archive`); `ARCHIVE/folder` picks one of several skills."""
    from skillyard.client import archive

    split = archive.split_ref(ref_text)
    if split is None:
        raise SkillyardError(f"{ref_text} is not an archive file.", "Give a .zip, .tar.gz, .tgz or .tar file.")
    path, inner = split
    path = path.resolve()
    folder, raw = archive.skill_files(path, inner, max_bytes=download_cap(config))
    where = f"{path}/{folder}".rstrip("/")
    candidate = _from_archive_files(raw, where=where, config=config, strict=strict,
                                    fallback=folder.rsplit("/", 1)[-1] if folder else None)
    candidate.source = {"type": "local", "path": where, "integrity": candidate.source["integrity"]}
    return candidate


def _from_archive_files(raw: dict, *, where: str, config, strict: bool | None,
                        fallback: str | None = None) -> Candidate:
    """A candidate from a skill folder's files taken out of an archive: named from its metadata, validated like a
    local folder (client policy) in a private folder, a skill.yaml-only package given its SKILL.md."""
    files = [StagedFile(p, content, executable) for p, (content, executable) in raw.items()]
    store.check_paths([item.path for item in files])
    # The name first (the check folder is named after it), then validate like a local folder, in a private one.
    name = _frontmatter_of(files, where).get("name")
    if not isinstance(name, str) or not name:
        raise SkillyardError(f"The SKILL.md (or skill.yaml) in {where} has no `name`; nothing was installed.",
                             "Ask the author to add `name:` to the frontmatter or skill.yaml.")
    meta, warnings, folder_name = _check_package(files, name, where=where, config=config, strict=strict,
                                                 fallback=fallback)
    actual = integrity_of(files)  # over the published files: what the source pins, before SKILL.md is generated
    files = with_generated_skill_md(files, where=where)
    return Candidate(folder_name, str(meta.get("version") or "0.0.0"), {"integrity": actual}, files,
                     list(meta.get("inputs") or []), list(meta.get("mcp_deps") or []),
                     str(meta.get("description") or ""), warnings, meta)


def _check_package(files: list[StagedFile], name: str, *, where: str, config=None,
                   strict: bool | None = None, fallback: str | None = None) -> tuple[dict, list[str], str]:
    """Run the format checks on downloaded files by loading them from a private temporary folder; returns the
    skill's data as a local folder's would be (frontmatter merged with skill.yaml: version, inputs, mcp_deps),
    the warnings, and the installed folder's name (`folder_name`)."""
    import tempfile

    from skillyard.format import load_skill

    strict = is_strict(config, strict)
    # The untrusted name becomes a folder name below (`../../x` must not leave tmp), and later the installed one.
    installed_as, renamed = folder_name(name, where=where, strict=strict, fallback=fallback)
    with tempfile.TemporaryDirectory(prefix="skill-check-") as tmp:
        folder = Path(tmp) / installed_as
        folder.mkdir()
        store.write_tree(folder, files)
        package = load_skill(folder, client_policy(config))
        warnings = judge(package, where=where, strict=strict)
        return dict(package.data), [*warnings, *renamed], installed_as


def _github_token(config) -> str | None:
    for name in ("SKILL_GITHUB_TOKEN", "GITHUB_TOKEN"):
        if os.environ.get(name):
            return os.environ[name]
    return None


# The client's cap on what one install downloads, sized like `npx skills` (10 MiB); named in refusals.
DOWNLOAD_KEY, DOWNLOAD_ENV = "install.max_download_bytes", "SKILL_INSTALL_MAX_DOWNLOAD_BYTES"


def download_cap(config) -> int:
    """The client's download cap (`Config.install_max_download_bytes`)."""
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    return config.install_max_download_bytes


def _over_download_cap(what: str, size: str, cap: int) -> SkillyardError:
    return SkillyardError(f"{what}: the download is {size}, over the client's limit of {cap:,} bytes; nothing was "
                          "installed.", f"If you trust it, raise `{DOWNLOAD_KEY}` in the client's config.yaml (or set "
                          f"${DOWNLOAD_ENV}).")


def download_capped(url: str, config, *, token: str | None, what: str) -> bytes:
    """`download` with the client's download cap; going over it says which setting raises it."""
    from skillyard.client.http import FetchError

    cap = download_cap(config)
    try:
        return download(url, config, token=token, max_bytes=cap)
    except FetchError as exc:
        if exc.kind == "too-large":
            raise _over_download_cap(what, "larger than that", cap) from None
        raise


def check_entry_limits(skill: dict, config, *, what: str) -> None:
    """A registry entry against the client's own limits, before any download: a registry's publishing policy is
    not the client's, and a hostile registry may list anything (`resolve.check_entry` bounds only what is sane)."""
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    files = skill.get("files") or []
    total = sum(f["size"] for f in files)
    problems = []
    if len(files) > config.install_max_files:
        problems.append((f"it lists {len(files):,} files; the client installs at most {config.install_max_files:,}",
                         "install.max_files"))
    if total > config.install_max_total_bytes:
        problems.append((f"its files add up to {total:,} bytes; the client installs at most "
                         f"{config.install_max_total_bytes:,}", "install.max_total_bytes"))
    big = [f for f in files if f["size"] > config.install_max_file_bytes]
    if big:
        problems.append((f"{big[0]['path']} is {big[0]['size']:,} bytes; the client installs files of at most "
                         f"{config.install_max_file_bytes:,}", "install.max_file_bytes"))
    if problems:
        key = problems[0][1]
        raise SkillyardError(f"{what}: {'; '.join(p for p, _ in problems)}; nothing was installed.",
                             f"This is over the client's install limit: if you trust the skill, raise `{key}` in the "
                             f"client's config.yaml (or set ${_env_name(key)}).")
    cap = download_cap(config)
    if total > cap:
        raise _over_download_cap(what, f"{total:,} bytes", cap)


def download(url: str, config, *, token: str | None = None, max_bytes: int | None = None) -> bytes:
    """Bytes at `url` through the client's HTTP layer (retries, deadline, size cap, token only to its origin)."""
    from skillyard.client import http

    limit = {} if max_bytes is None else {"max_bytes": max_bytes}
    return http.fetch(url, token=token, **http.settings(config), **limit).body


# ---------------------------------------------------------------------------------------------- install


def render_files(files: list[StagedFile], values: dict) -> list[StagedFile]:
    out = []
    for item in files:
        if item.path in RENDERED and values:
            try:
                item = StagedFile(item.path, inputs_mod.render_bytes(item.data, values), item.executable)
            except UnicodeDecodeError:
                raise SkillyardError(f"{item.path} is not UTF-8 text; inputs cannot be rendered.",
                                     "Report it to the skill's author.") from None
        out.append(item)
    return out


def default_targets(config) -> list[str]:
    raw = config.default_target if config is not None else "claude-code"
    names = raw if isinstance(raw, list) else str(raw).replace(",", " ").split()
    return names or ["claude-code"]


def _check_target_paths(name: str, opts: Options, canonical: Path, previous: list[dict]) -> None:
    """Refuse before writing when a target's folder exists and is not ours (a user's own skill)."""
    try:
        from skillyard.client import targets as targets_mod
    except ImportError:
        return
    ours = {os.path.abspath(t["path"]) for t in previous}
    for target in opts.targets:
        targets_mod.get(target)
        if targets_mod.get(target).kind != "dir":
            continue
        path = targets_mod.target_path(name, target, scope=opts.scope, project_root=opts.project_root, home=opts.home)
        if os.path.abspath(path) == os.path.abspath(canonical) or os.path.abspath(path) in ours:
            continue
        if os.path.lexists(path) and not os.path.islink(path) and not (path / targets_mod.COPY_MARKER).is_file():
            raise SkillyardError(f"{path} already exists and was not placed by `skill`; nothing was installed.",
                                 f"Move or delete it, or install with another --target than {target}.")


def _place_targets(name: str, canonical: Path, opts: Options) -> list[dict]:
    try:
        from skillyard.client import targets as targets_mod
    except ImportError:  # targets table not available: the canonical copy is the only placement
        return [{"target": "agents", "scope": opts.scope, "path": str(canonical), "mode": "canonical"}]
    placed = []
    for target in opts.targets:
        entry = targets_mod.place(canonical, name, target, scope=opts.scope, project_root=opts.project_root,
                                  home=opts.home, copy=opts.copy)
        placed.append({k: entry[k] for k in ("target", "scope", "path", "mode") if k in entry})
    return placed


def remove_targets(entries: list[dict], *, name: str, root: Path, scope: str, keep: set[str] = frozenset()) -> None:
    """Undo placements (each lock `targets` entry) except those whose path is in `keep`.

    A skill.lock.json can be committed to a project or edited by hand, so an entry is trusted only where it agrees
    with the target table: its path must be the one `target_path` gives for this skill, target and scope, and a
    generated target removes only that target's own file names. Anything else is left alone."""
    try:
        from skillyard.client import targets as targets_mod
    except ImportError:
        return
    for entry in entries:
        if entry.get("mode") not in ("link", "copy", "generated") or os.path.abspath(entry["path"]) in keep:
            continue
        try:
            table = targets_mod.get(str(entry.get("target")))
            expected = targets_mod.target_path(name, table.name, scope=scope, project_root=root, home=root)
        except SkillyardError:
            continue
        if os.path.abspath(entry["path"]) != os.path.abspath(expected):
            continue
        full = {**entry, "path": str(expected)}
        if entry.get("mode") == "generated":
            full["files"] = [str(expected / f) for f in table.files]
        targets_mod.remove(full)


def plan_inputs(candidate: Candidate, opts: Options, config, *, locked_inputs: dict | None) -> dict:
    if locked_inputs is not None:
        return dict(locked_inputs)
    configured = config.skill_inputs(candidate.name) if config is not None else {}
    return inputs_mod.resolve(candidate.inputs, cli=opts.cli_inputs, configured=configured, skill=candidate.name)


def check_deps(candidate: Candidate, opts: Options, config) -> tuple[mcp_mod.DepReport, list[str]]:
    if not candidate.mcp_deps:
        return mcp_mod.check(candidate.name, [], None), []
    hub = mcp_mod.hub_from_config(config) if config is not None else None
    report = mcp_mod.check(candidate.name, candidate.mcp_deps, hub)
    if opts.dry_run:
        return report, []
    return report, mcp_mod.enforce(report, skip_unreachable=opts.skip_deps_check)


@dataclass
class Plan:
    """One skill of a transaction, checked and ready to write: its rendered files and its outcome."""

    candidate: Candidate
    opts: Options
    files: list[StagedFile]
    outcome: Outcome


def plan(candidate: Candidate, opts: Options, config, *, locked_inputs: dict | None = None,
         expected_files: list[dict] | None = None) -> Plan:
    """Everything about one skill that can fail without touching the disk: name, inputs, MCP dependencies,
    rendering, the lockfile's expected files. Raises with the skill named; writes nothing."""
    store.check_name(candidate.name)  # it becomes a folder name: a hostile registry must not choose a path
    values = plan_inputs(candidate, opts, config, locked_inputs=locked_inputs)
    report, warnings = check_deps(candidate, opts, config)
    files = render_files(candidate.files, values)
    entries = sorted((f.entry() for f in files), key=lambda e: e["path"])
    if expected_files is not None and entries != sorted(expected_files, key=lambda e: e["path"]):
        differ = sorted({e["path"] for e in entries} ^ {e["path"] for e in expected_files} |
                        {a["path"] for a in entries for b in expected_files if a["path"] == b["path"] and a != b})
        raise SkillyardError(f"{candidate.name}: the installed files would not match the lockfile "
                             f"({', '.join(differ)}); nothing was installed.",
                             "The source changed under its pin; update the lock with `skill update`.")
    canonical = store.canonical_dir(opts.root, candidate.name)
    outcome = Outcome(candidate.name, candidate.version, "planned", str(canonical), opts.scope,
                      [{"target": t, "scope": opts.scope} for t in opts.targets], entries, values, report.to_dict(),
                      lockfile.clean_source(candidate.source), [*candidate.warnings, *warnings])
    return Plan(candidate, opts, files, outcome)


def install(candidate: Candidate, opts: Options, config, *, locked_inputs: dict | None = None,
            expected_files: list[dict] | None = None) -> Outcome:
    """Install one verified candidate. `locked_inputs`/`expected_files` come from a lockfile on restore."""
    return install_all([plan(candidate, opts, config, locked_inputs=locked_inputs,
                             expected_files=expected_files)])[0]


def install_all(plans: list[Plan]) -> list[Outcome]:
    """Install planned skills of one scope as one transaction: all of them, or none.

    Under the store lock, every skill is checked against the disk (local edits, foreign target folders) before
    the first is staged; then each is staged, journaled as a member of one group, and the group's commit record
    is written - the one step that decides. A kill before it leaves journals that recovery discards (nothing was
    installed); after it, recovery finishes every member (everything was). A one-skill install needs no group."""
    if not plans or plans[0].opts.dry_run:
        return [p.outcome for p in plans]
    roots = {p.opts.root.resolve() for p in plans}
    if len(roots) != 1:  # pragma: no cover - the CLI installs into one scope per command
        raise SkillyardError("One install writes into one scope.", "Install project and user skills separately.")
    root = plans[0].opts.root
    with store.store_lock(root):
        recover(root)
        store.sweep(root)
        intents = [(p, _intent(p)) for p in plans]  # every check first: a refusal here has written nothing
        group = store.new_group() if len(plans) > 1 else None
        written: list[dict] = []
        try:
            for p, (intent, same) in intents:
                if not same or p.opts.force:
                    staging = store.stage_tree(store.canonical_dir(root, p.candidate.name), p.files,
                                               extra={store.SKILL_LOCK: lockfile.skill_lock_text(intent["lock"]).encode()})
                    intent["staging"], intent["retired"] = staging.name, store.retired_path(staging.parent / p.candidate.name).name
                if group:
                    intent["group"] = group
                written.append(intent)
                store.write_journal(root, intent)
            if group:
                store.write_commit(root, group, [i["name"] for i in written])
        except BaseException:
            for intent in written:  # not committed: undo the staging and the journals, newest first
                _discard(root, intent)
            raise
        outcomes = []
        for p, (intent, same) in intents:
            try:
                lock_doc = apply_intent(root, intent)
            except (OSError, SkillyardError) as exc:  # after the commit point: finish later, say so exactly
                done = ", ".join(o.name for o in outcomes) or "none yet"
                why = exc.message if isinstance(exc, SkillyardError) else f"{exc.strerror or exc} ({exc.filename})"
                raise SkillyardError(f"{p.candidate.name} could not be put in place: {why}. Already in place: "
                                     f"{done}; the rest of this install is journaled, not undone.",
                                     "Fix the cause, then run any `skill` command that changes skills (e.g. "
                                     "`skill install` again): it finishes the journaled install first.") from None
            p.outcome.status = "unchanged" if same and not p.opts.force else \
                ("updated" if intent.get("previous") else "installed")
            p.outcome.targets = lock_doc["targets"]
            outcomes.append(p.outcome)
        if group:
            store.clear_commit(root, group)
    return outcomes


def _intent(p: Plan) -> tuple[dict, bool]:
    """The journal entry of one planned skill, after the disk checks (local edits, foreign target folders);
    writes nothing. Returns (intent, whether the installed copy is already exactly this)."""
    candidate, opts, entries = p.candidate, p.opts, p.outcome.files
    canonical = store.canonical_dir(opts.root, candidate.name)
    previous = _previous_lock(canonical)
    if previous is not None:
        edited = store.edited_files(canonical, previous.get("files", []))
        if edited and not opts.force:
            raise SkillyardError(f"{candidate.name} has local edits that installing would overwrite: "
                                 f"{', '.join(edited)}; nothing was installed.",
                                 "Keep a copy of your changes, then run again with --force.")
    elif canonical.exists() and not opts.force:
        raise SkillyardError(f"{canonical} exists but was not installed by `skill` (no {store.SKILL_LOCK}); "
                             "nothing was installed.", "Move it away, or pass --force to replace it.")
    prev_targets = previous.get("targets", []) if previous else []
    _check_target_paths(candidate.name, opts, canonical, prev_targets)
    values = p.outcome.inputs
    same = (previous is not None and previous["resolved_source"].get("integrity") == candidate.source["integrity"]
            and previous.get("resolved_inputs") == values and previous.get("files") == entries)
    lock_doc = lockfile.skill_lock_document(skill=candidate.name, version=candidate.version,
                                            resolved_source=candidate.source, resolved_inputs=values,
                                            targets=prev_targets, files=entries)
    return {"action": "install", "name": candidate.name, "scope": opts.scope, "targets": list(opts.targets),
            "copy": opts.copy, "lock": lock_doc, "staging": None, "retired": None,
            "previous": previous is not None}, same


def _discard(root: Path, intent: dict) -> None:
    """Undo a journaled install that was never committed: drop its staged folder, then its journal."""
    if intent.get("staging"):
        store.remove_tree(store.skills_dir(root) / intent["staging"])
    store.clear_journal(root, intent["name"])


# ---------------------------------------------------------------------------------------------- journal


def apply_intent(root: Path, intent: dict) -> dict | None:
    """Carry out a journaled change to one skill, from wherever an earlier, killed run stopped; then drop the
    journal. Every step is idempotent, so it is both the normal path and the recovery.

    install: swap the staged folder in (or, if it was lost, keep the old one and give up), place the targets,
    then write the final skill.lock.json and the project's skills.lock.json entry - the two lockfiles reach the
    new version together. uninstall: remove the placements, the folder, then the project entry.
    Returns the final skill lock of an install (None for an uninstall or a rollback)."""
    root = Path(root)
    name = store.check_name(intent["name"])
    canonical = store.canonical_dir(root, name)
    scope = intent["scope"]
    project = scope == "project"
    result = None
    if intent["action"] == "install":
        swapped = True
        if intent.get("staging"):
            swapped = store.swap_in(canonical, canonical.parent / intent["staging"], canonical.parent / intent["retired"])
        if swapped:
            store.clean_lock_temps(canonical)  # before a copy target copies it
            opts = Options(scope=scope, project_root=root, home=root, targets=list(intent["targets"]),
                           copy=bool(intent.get("copy")))
            lock_doc = dict(intent["lock"])
            placed = _place_targets(name, canonical, opts)
            placed_paths = {os.path.abspath(p["path"]) for p in placed}
            kept = [t for t in lock_doc.get("targets", []) if os.path.abspath(t["path"]) not in placed_paths]
            lock_doc["targets"] = sorted(kept + placed, key=lambda t: (t["scope"], t["target"], t["path"]))
            lockfile.write_skill_lock(canonical, lock_doc)
            if project:
                lockfile.update_project_lock(root, name, lockfile.project_entry(lock_doc, root))
            result = lock_doc
    else:
        remove_targets(intent.get("targets") or [], name=name, root=root, scope=scope,
                       keep={str(canonical.absolute())})
        store.retire(canonical)
        store.remove_leftovers(root, name)  # a kill mid-retire left the old folder aside: it must not come back
        if project and intent.get("in_project_lock"):
            lockfile.update_project_lock(root, name, None)
    store.clear_journal(root, name)
    return result


def recover_locked(root: Path) -> list[str]:
    """`recover` for a command that reads the store before it changes it (update, restore): take the lock,
    finish journaled work, then sweep, so what it reads is one consistent state."""
    if not store.skills_dir(root).is_dir():
        return []  # nothing installed, nothing to finish (and a dry run creates no folders)
    with store.store_lock(root):
        done = recover(root)
        store.sweep(root)
    return done


def recover(root: Path) -> list[str]:
    """Finish every change a killed run left journaled in this scope (call under the store lock, before `sweep`,
    which would otherwise delete the folders a journal still needs). Returns the names it finished."""
    done = []
    committed = store.committed_groups(root)
    for path, intent in store.read_journals(root):
        if intent.get("group") is not None and intent["group"] not in committed:
            _discard(root, intent)  # a multi-skill install killed before its commit record: none of it happened
            continue
        try:
            apply_intent(root, intent)
        except SkillyardError as exc:
            raise SkillyardError(f"An interrupted change to {intent['name']} (journal {path}) could not be "
                                 f"finished: {exc.message}",
                                 exc.fix or f"Fix the cause, or delete {path.name} and reinstall with --force.") \
                from None
        except OSError as exc:
            raise SkillyardError(f"An interrupted change to {intent['name']} (journal {path}) could not be "
                                 f"finished: {exc.strerror or exc} ({exc.filename}).",
                                 f"Fix the cause, or delete {path.name} and reinstall with --force.") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a journal edited by hand
            raise SkillyardError(f"The journal {path} is malformed ({type(exc).__name__}: {exc}).",
                                 f"Delete {path.name}, then reinstall {intent['name']} with --force.") from None
        done.append(intent["name"])
    for group in committed:
        store.clear_commit(root, group)  # every member is finished (or a failure above has raised)
    return done


def _previous_lock(canonical: Path) -> dict | None:
    if not (canonical / store.SKILL_LOCK).is_file():
        return None
    return lockfile.read_skill_lock(canonical)


# ---------------------------------------------------------------------------------------------- registry


def fetch_files(name: str, entries: list[dict], url_for, config, *, token: str | None, progress=None,
                what: str) -> list[StagedFile]:
    """Download every listed file (a few at a time) and verify each against its size and sha256."""
    from concurrent.futures import ThreadPoolExecutor

    store.check_paths([entry["path"] for entry in entries])  # before the first request: refuse the list itself
    bar = progress(f"downloading {name}", len(entries)) if progress else None
    out: dict[str, StagedFile] = {}
    try:
        with ThreadPoolExecutor(max_workers=min(8, max(1, len(entries)))) as pool:
            futures = {pool.submit(download, url_for(e["path"]), config, token=token, max_bytes=e["size"]): e
                       for e in entries}
            for future, entry in futures.items():
                out[entry["path"]] = StagedFile(entry["path"], future.result(), bool(entry.get("executable")))
                if bar:
                    bar.advance()
    finally:
        if bar:
            bar.close()
    files = [out[e["path"]] for e in entries]
    verify_files(files, entries, integrity=None, what=what)
    return files


def from_resolved(resolved, config, *, progress=None, commit: str | None = None) -> Candidate:
    """The files of a registry entry, downloaded from the raw URL at its pinned commit and verified."""
    skill = resolved.skill
    what = f"{skill['name']} {skill.get('version', '')} from {resolved.source.name}".replace("  ", " ")
    url_for = resolved.file_url if commit is None else (lambda p: raw_url_at(resolved, commit, p, config))
    check_entry_limits(skill, config, what=what)
    token = resolved.token_for(url_for(skill["files"][0]["path"])) if skill["files"] else None
    files = fetch_files(skill["name"], skill["files"], url_for, config, token=token, progress=progress, what=what)
    verify_files(files, skill["files"], integrity=skill.get("integrity"), what=what)
    source = {"type": "registry", "source": resolved.source.name, "url": resolved.source.url,
              "commit": commit or skill.get("commit"), "path": skill.get("path"), "integrity": skill["integrity"]}
    return Candidate(skill["name"], str(skill.get("version", "0.0.0")), source, files,
                     list(skill.get("inputs") or []), list(skill.get("mcp_deps") or []),
                     str(skill.get("description") or ""), meta=dict(skill))


def raw_url_at(resolved, commit: str, rel: str, config) -> str:
    """A skill file's raw URL at a given commit (for restoring a lock whose commit is no longer the latest)."""
    from dataclasses import replace

    skill = dict(resolved.skill, commit=commit)
    return replace(resolved, skill=skill).file_url(rel)


def is_local_ref(ref: str) -> bool:
    return ref.startswith((".", "/", "~")) or os.sep in ref and not ref.startswith("github:") or Path(ref).is_dir()


def ref_kind(ref: str) -> str:
    """What a ref names: "github", "archive" (a .zip/.tar.gz/.tgz/.tar file, optionally /folder inside), "local"
    (a folder) or "registry" (NAME, NAME@VERSION, NAME@SOURCE). One parser for install and info."""
    from skillyard.client import archive, github

    if github.is_github_ref(ref):
        return "github"
    if archive.is_archive_ref(ref):
        return "archive"
    if is_local_ref(ref):
        return "local"
    return "registry"


def candidate_for(ref: str, config, *, source: str | None = None, progress=None, strict: bool | None = None,
                  resolved_out: list | None = None) -> Candidate:
    """Fetch and check the skill a ref names (writes nothing). `resolved_out`, when given, receives the registry
    entry a registry ref resolved to (for `skill info`'s versions)."""
    kind = ref_kind(ref)
    if kind == "github":
        return from_github(ref, config, strict=strict)
    if kind == "archive":
        return from_archive(ref, config, strict=strict)
    if kind == "local":
        return from_local(Path(ref).expanduser(), config, strict=strict)
    from skillyard.client import resolve as resolve_mod

    resolved = resolve_mod.resolve(store.check_ref_name(ref), config, source=source)
    if resolved_out is not None:
        resolved_out.append(resolved)
    return from_resolved(resolved, config, progress=progress)


def prepare(refs: list[str], config, *, source: str | None = None, progress=None,
            strict: bool | None = None) -> list[Candidate]:
    """Resolve and download every ref before anything is written (one bad ref installs nothing)."""
    candidates = [candidate_for(ref, config, source=source, progress=progress, strict=strict) for ref in refs]
    names = [c.name for c in candidates]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise SkillyardError(f"{', '.join(dupes)} is named more than once.", "Install each skill once per command.")
    return candidates


def split_inputs(candidates: list[Candidate], cli: dict) -> dict[str, dict]:
    """With several skills, each gets the --input values it declares; a value nobody declares is an error."""
    if len(candidates) <= 1:
        return {c.name: dict(cli) for c in candidates}
    declared = {c.name: {d["name"] for d in c.inputs} for c in candidates}
    unused = sorted(k for k in cli if not any(k in names for names in declared.values()))
    if unused:
        raise SkillyardError(f"No skill being installed has an input named {', '.join(unused)}.",
                             "Check the spelling with `skill info <name>`.")
    return {c.name: {k: v for k, v in cli.items() if k in declared[c.name]} for c in candidates}


# ---------------------------------------------------------------------------------------------- restore


def locked_candidate(name: str, entry: dict, config, *, progress=None, project_root: Path | None = None) -> Candidate:
    """Fetch exactly what a lock entry pins, verifying its integrity. A relative local path is read from
    `project_root`."""
    source = entry["resolved_source"]
    kind = source["type"]
    if kind == "registry":
        from skillyard.client import resolve as resolve_mod

        if not source.get("source") or not source.get("commit"):
            raise SkillyardError(f"The lock entry for {name} names no source or commit.",
                                 f"Reinstall it: skill install {name} --project --force.")
        resolved = resolve_mod.resolve(name, config, source=source["source"])
        if resolved.skill.get("integrity") == source["integrity"]:
            candidate = from_resolved(resolved, config, progress=progress, commit=source["commit"])
        else:  # the registry has moved on; the locked files are still at the locked commit
            candidate = _from_registry_commit(resolved, name, entry, config, progress=progress)
    elif kind == "github":
        from skillyard.client import github

        owner, repo = github.repo_from_url(source.get("url", ""))
        candidate = from_github(f"github:{owner}/{repo}", config, commit=source.get("commit"),
                                path=source.get("path", ""), integrity=source["integrity"])
    elif kind == "local":
        local = Path(source.get("path", ""))
        if not local.is_absolute() and project_root is not None:
            local = Path(project_root) / local
        candidate = from_local(local, config)
        source = {**source, "path": candidate.source["path"]}  # each skill.lock.json keeps the absolute path
    else:  # pragma: no cover - the schema allows only the three
        raise SkillyardError(f"Unknown source type {kind!r} for {name}.", "Reinstall the skill.")
    if candidate.source["integrity"] != source["integrity"]:
        raise SkillyardError(f"{name}: the fetched files' integrity {candidate.source['integrity']} does not match "
                             f"the lockfile's {source['integrity']}; nothing was installed.",
                             "The source changed under its pin; run `skill update` to move the lock deliberately.")
    candidate.source = dict(source)
    candidate.version = entry["version"]
    return candidate


def _from_registry_commit(resolved, name: str, entry: dict, config, *, progress=None) -> Candidate:
    """The registry now lists another build of the skill: fetch the locked files by their locked hashes.

    The lock records files as installed (inputs rendered), so SKILL.md is checked after rendering by `install`,
    and the whole set against the locked integrity."""
    source = entry["resolved_source"]
    prefix = source.get("path") or resolved.skill.get("path")
    if not prefix:
        raise SkillyardError(f"The lock entry for {name} names no path.", f"Reinstall it: skill install {name} --force.")
    from dataclasses import replace

    paths = [f["path"] for f in entry["files"]]
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    # The locked sizes are as installed (SKILL.md rendered), so each file is capped by the client's file limit.
    check_entry_limits({"files": entry["files"]}, config, what=f"{name} (locked at {source['commit'][:12]})")
    pinned = replace(resolved, skill=dict(resolved.skill, commit=source["commit"], path=prefix))
    token = resolved.token_for(pinned.file_url(paths[0])) if paths else None
    bar = progress(f"downloading {name}", len(paths)) if progress else None
    files = []
    for rel in paths:
        store.check_relpath(rel)
        files.append(StagedFile(rel, download(pinned.file_url(rel), config, token=token,
                                              max_bytes=config.install_max_file_bytes)))
        if bar:
            bar.advance()
    if bar:
        bar.close()
    return Candidate(name, entry["version"], dict(source, integrity=integrity_of(files)), files,
                     list(resolved.skill.get("inputs") or []), list(resolved.skill.get("mcp_deps") or []))


def restore_project(opts: Options, config, *, progress=None) -> list[Outcome]:
    """`skill install` with no ref: install exactly what skills.lock.json lists, verifying every hash."""
    recover_locked(store.scope_root("project", project_root=opts.project_root, home=opts.home))
    document = lockfile.read_project_lock(opts.project_root)
    if document is None:
        raise SkillyardError(f"Nothing to install: no ref given and no {lockfile.PROJECT_LOCK} in {opts.project_root}.",
                             "Name a skill (skill install <name>), or run inside a project that has a lockfile.")
    opts.scope = "project"
    prepared = []
    for name, entry in sorted(document["skills"].items()):
        prepared.append((locked_candidate(name, entry, config, progress=progress, project_root=opts.project_root),
                         entry))
    from dataclasses import replace

    plans = [plan(candidate, replace(opts, targets=list(entry.get("targets") or opts.targets)), config,
                  locked_inputs=entry["resolved_inputs"], expected_files=entry["files"])
             for candidate, entry in prepared]
    return install_all(plans)
