"""Candidates: a ref turned into a skill's checked bytes, with nothing written. One reader per kind of source — a
local folder, a `github:` tarball, an archive file, a registry entry — each validated with the client's policy
(install_policy) and verified (fetch) before it becomes a `Candidate`. A skill.yaml-only package (design 000)
gains, right after verification, the SKILL.md `skillyard migrate` writes (`with_generated_skill_md`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.client import accept, skillname, store
from skillyard.client.fetch import (
    download_capped,
    fetch_files,
    github_token,
    integrity_of,
    is_offline,
    reuse_note,
    verify_files,
)
from skillyard.client.install_policy import (
    check_entry_limits,
    check_verified,
    client_policy,
    download_cap,
    folder_name,
    is_strict,
    judge,
    summarize_errors,
)
from skillyard.client.store import StagedFile
from skillyard.errors import SkillyardError
from skillyard.format import timeversion
from skillyard.format.inputs import RENDERED_FILES as RENDERED  # the site renders the same files
from skillyard.format.verdict import judge as judge_skill  # the one judge: same bytes, same findings


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
    stale: bool = False  # chosen from a cached registry whose server could not be reached (not a fresh answer)
    accepted: list[dict] = field(default_factory=list)  # findings the user accepted (--accept; client/accept.py)


def from_local(path: Path, config=None, *, strict: bool | None = None, accepted: list[dict] = ()) -> Candidate:
    """A local skill folder, validated first with the client's policy: a safety error refuses the install.
    `accepted`: the security findings the user accepted (client/accept.py)."""
    from skillyard.client import archive
    if not Path(path).is_dir() and archive.is_archive_ref(str(path)):  # a lock entry of an archive install
        return from_archive(str(path), config, strict=strict, accepted=accepted)
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise SkillyardError(f"{path} is not a folder.", "Give the path to a skill folder (the one holding SKILL.md).")
    # a folder's own exceptions were reviewed by no registry; the user's own accepts count (client/accept.py)
    accepted = accept.in_force(accepted, lambda rel: _file_sha256(folder, rel))
    verdict = judge_skill(folder, client_policy(config), reviewed=accept.reviewed(list(accepted)))
    package, withdrawn = verdict.package, verdict.withdrawn
    said = accept.check(package, list(accepted), where=str(path))
    strict = is_strict(config, strict)
    warnings = judge(package, where=str(path), strict=strict, with_lines=True, withdrawn=withdrawn) + said
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
                     str(package.data.get("description") or ""), [*warnings, *renamed], dict(package.data),
                     accepted=accept.record(list(accepted)))


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _file_sha256(folder: Path, rel: str) -> str | None:
    """A regular file's sha256 inside `folder` (None for anything else: a carried accept then lapses)."""
    path = folder / rel
    try:
        return _sha256(path.read_bytes()) if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


MANIFEST = "skill.yaml"


GENERATED = "SKILL.md"  # what a skill.yaml-only package gets, so every target and third-party client can load it


def _frontmatter_of(files: list[StagedFile], name_hint: str) -> dict:
    """The skill's metadata before validation (it names the check folder): SKILL.md's frontmatter merged with
    skill.yaml, or the manifest's fields alone; conflicts are left for validation to report."""
    from skillyard.format import parse_skill_md
    from skillyard.format.manifest import declared_fields

    data = None
    item = next((f for f in files if f.path in RENDERED), None)
    if item is not None:
        try:
            data = parse_skill_md(item.data.decode("utf-8"), strict=False, file=item.path).data
        except UnicodeDecodeError:
            raise SkillyardError(f"{name_hint}: {item.path} is not UTF-8 text; nothing was installed.",
                                 "Ask the author to save it as UTF-8.") from None
    data = declared_fields(data, _manifest_of(files, where=name_hint))  # as `skillyard external add` reads it
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
                             f"Ask the author to fix skill.yaml (`skill validate {where}` lists each finding)."
                             if where.startswith("github:") or "/" in where else
                             "Ask the author to fix skill.yaml (`skill validate` on the skill's folder or "
                             "`github:` ref lists each finding).")
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
                integrity: str | None = None, strict: bool | None = None, accepted: list[dict] = ()) -> Candidate:
    """A skill folder out of a repository tarball (codeload layout), read safely in memory."""
    from skillyard.client import github

    ref = github.parse_ref(ref_text)
    if path is not None:
        ref = github.GitHubRef(ref.owner, ref.repo, path, ref.ref)
    url = github.tarball_url(config.github_codeload_url, ref, commit)
    data = download_capped(url, config, token=github_token(config), what=f"github:{ref.slug}")
    try:
        folder, raw, archive_commit, newest = github.skill_snapshot(data, ref)
    except SkillyardError as exc:
        if "not a readable tarball" in exc.message:  # name what was downloaded, and from where
            raise SkillyardError(f"{url}: {exc.message}", exc.fix) from None
        raise
    where = f"github:{ref.slug}/{folder}".rstrip("/")
    pinned = archive_commit or commit or (ref.ref if ref.ref != "HEAD" else None)
    candidate = _from_archive_files(raw, where=where, config=config, strict=strict,
                                    fallback=folder.rsplit("/", 1)[-1] if folder else ref.repo.lower(),
                                    requested=ref.path.rsplit("/", 1)[-1] or None, newest=newest,
                                    advise=where + (f"@{pinned}" if pinned else ""), accepted=accepted)
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


def from_archive(ref_text: str, config, *, strict: bool | None = None, accepted: list[dict] = ()) -> Candidate:
    """A skill out of a local .zip/.tar.gz/.tgz/.tar (design 001 §8.1), read by the same code and rules as a
    GitHub tarball (see `client.archive`); `ARCHIVE/folder` picks one of several skills."""
    from skillyard.client import archive

    split = archive.split_ref(ref_text)
    if split is None:
        raise SkillyardError(f"{ref_text} is not an archive file.", "Give a .zip, .tar.gz, .tgz or .tar file.")
    path, inner = split
    path = path.resolve()
    folder, raw, newest = archive.skill_files(path, inner, max_bytes=download_cap(config))
    where = f"{path}/{folder}".rstrip("/")
    candidate = _from_archive_files(raw, where=where, config=config, strict=strict,
                                    fallback=folder.rsplit("/", 1)[-1] if folder else None,
                                    requested=(inner or "").strip("/").rsplit("/", 1)[-1] or None, newest=newest,
                                    accepted=accepted)
    candidate.source = {"type": "local", "path": where, "integrity": candidate.source["integrity"]}
    return candidate


def _from_archive_files(raw: dict, *, where: str, config, strict: bool | None, fallback: str | None = None,
                        requested: str | None = None, newest: float = 0.0, advise: str | None = None,
                        accepted: list[dict] = ()) -> Candidate:
    """A candidate from a skill folder's files taken out of an archive: named from its metadata, validated like a
    local folder (client policy) in a private folder, a skill.yaml-only package given its SKILL.md."""
    files = [StagedFile(p, content, executable) for p, (content, executable) in raw.items()]
    store.check_paths([item.path for item in files])
    published = {item.path: item for item in files}
    accepted = accept.in_force(accepted, lambda rel: _sha256(published[rel].data) if rel in published else None)
    # The name first (the check folder is named after it), then validate like a local folder, in a private one.
    name = _frontmatter_of(files, where).get("name")
    if not isinstance(name, str) or not name:
        raise SkillyardError(f"The SKILL.md (or skill.yaml) in {where} has no `name`; nothing was installed.",
                             "Ask the author to add `name:` to the frontmatter or skill.yaml.")
    meta, warnings, folder_name = _check_package(files, name, where=where, config=config, strict=strict,
                                                 fallback=fallback, advise=advise, accepted=accepted)
    warnings += skillname.requested_name_differs(requested, name, folder_name, where=where,
                                                 strict=is_strict(config, strict))
    actual = integrity_of(files)  # over the published files: what the source pins, before SKILL.md is generated
    files = with_generated_skill_md(files, where=where)
    version = timeversion.declared_or(meta, timeversion.from_timestamp(newest) if newest > 0 else timeversion.UNKNOWN)
    return Candidate(folder_name, version, {"integrity": actual}, files,
                     list(meta.get("inputs") or []), list(meta.get("mcp_deps") or []),
                     str(meta.get("description") or ""), warnings, meta, accepted=accept.record(list(accepted)))


def _check_package(files: list[StagedFile], name: str, *, where: str, config=None,
                   strict: bool | None = None, fallback: str | None = None,
                   advise: str | None = None, accepted: list[dict] = ()) -> tuple[dict, list[str], str]:
    """Run the format checks on downloaded files by loading them from a private temporary folder; returns the
    skill's data as a local folder's would be (frontmatter merged with skill.yaml: version, inputs, mcp_deps),
    the warnings, and the installed folder's name (`folder_name`). The files' own security exceptions count for
    nothing: no registry reviewed them."""
    import tempfile

    strict = is_strict(config, strict)
    # The untrusted name becomes a folder name below (`../../x` must not leave tmp), and later the installed one.
    installed_as, renamed = folder_name(name, where=where, strict=strict, fallback=fallback)
    with tempfile.TemporaryDirectory(prefix="skill-check-") as tmp:
        folder = Path(tmp) / installed_as
        folder.mkdir()
        store.write_tree(folder, files)
        verdict = judge_skill(folder, client_policy(config), reviewed=accept.reviewed(list(accepted)))
        package, withdrawn = verdict.package, verdict.withdrawn
        said = accept.check(package, list(accepted), where=where)
        warnings = judge(package, where=where, strict=strict, withdrawn=withdrawn, advise=advise) + said
        return dict(package.data), [*warnings, *renamed], installed_as


def scan_entry(files: list[StagedFile], skill: dict, config, *, what: str):
    """The security scan over a registry entry's downloaded files (a registry may serve anything): a scanner finding
    refuses the install unless the entry's own `security_exceptions`, which the registry reviewed, allow it. The
    fetched skill.yaml's exceptions count for nothing. The registry's format checks are trusted as before. Returns
    the verdict (format/verdict.py) when nothing refuses."""
    import tempfile

    from skillyard.format import exceptions

    with tempfile.TemporaryDirectory(prefix="skill-scan-") as tmp:
        folder = Path(tmp) / store.check_name(skill["name"])
        folder.mkdir()
        store.write_tree(folder, files)
        verdict = judge_skill(folder, client_policy(config), reviewed=skill.get("security_exceptions") or ())
    package, withdrawn = verdict.package, verdict.withdrawn
    refusing = [f for f in package.errors if f.rule in exceptions.EXCEPTABLE_RULES]
    if refusing:
        untrusted = {(f.rule, f.file) for f in withdrawn} & {(f.rule, f.file) for f in refusing}
        raise SkillyardError(f"{what}: {summarize_errors(refusing, with_lines=True)}; nothing was installed.",
                             "The skill's skill.yaml lists `security_exceptions` for this, but the registry's entry does "
                             "not carry them: a security exception is only honoured from a registry that reviewed it. "
                             "Ask the registry's maintainers." if untrusted else
                             "The registry serves a file its own checks refuse: tell its maintainers" +
                             _validate_advice(skill) + ".")
    return verdict


def _validate_advice(skill: dict) -> str:
    """For a pointer entry: the `skill validate` command that lists each finding of the pinned upstream files."""
    from skillyard.client.pointer_info import upstream

    facts = upstream(skill) or {}
    folder = str(skill.get("path") or "").strip("/")
    if not facts.get("repository") or not facts.get("commit") or any(p in (".", "..") for p in folder.split("/")):
        return ""
    slug = facts["repository"].removeprefix("https://github.com/")
    return f" (`skill validate github:{slug}{'/' + folder if folder else ''}@{facts['commit']}` lists each finding)"


def from_resolved(resolved, config, *, progress=None, commit: str | None = None) -> Candidate:
    """The files of a registry entry, downloaded from the raw URL at its pinned commit and verified."""
    skill = resolved.skill
    what = f"{skill['name']} {skill.get('version', '')} from {resolved.source.name}".replace("  ", " ")
    url_for = resolved.file_url if commit is None else (lambda p: raw_url_at(resolved, commit, p, config))
    check_entry_limits(skill, config, what=what)
    check_verified(skill, config, what=what, commit=commit)
    token = resolved.token_for(url_for(skill["files"][0]["path"])) if skill["files"] else None
    reused: list[str] = []
    files = fetch_files(skill["name"], skill["files"], url_for, config, token=token, progress=progress, what=what,
                        reused=reused)
    verify_files(files, skill["files"], integrity=skill.get("integrity"), what=what)
    renamed = skillname.check_declared_name(files, skill["name"], what=what,
                                            source=f"{resolved.source.name} ({resolved.source.url})",
                                            renamed_from=declared_name(skill))
    scan_entry(files, skill, config, what=what)
    files = with_generated_skill_md(files, where=what)  # a skill.yaml-only pointer entry, as `github:` installs it
    source = {"type": "registry", "source": resolved.source.name, "url": resolved.source.url,
              "commit": commit or skill.get("commit"), "path": skill.get("path"), "integrity": skill["integrity"]}
    candidate = Candidate(skill["name"], str(skill.get("version", "0.0.0")), source, files,
                          list(skill.get("inputs") or []), list(skill.get("mcp_deps") or []),
                          str(skill.get("description") or ""), warnings=renamed, meta=dict(skill))
    # whenever bytes came from local copies, say so (never on an install that downloaded every file)
    why = ("--offline was given" if is_offline(config) else
           "the registry's server could not be reached, so its cached index was used" if resolved.stale else "")
    note = reuse_note(what, reused, len(skill["files"]), why=why)
    if note:
        candidate.warnings.append(note)
    return candidate


def declared_name(skill: dict) -> str | None:
    """A pointer entry's upstream name when the registry lists it under another (`source.declared_name`)."""
    value = (skill.get("source") or {}).get("declared_name") if "source_url" in skill else None
    return value if isinstance(value, str) and value else None


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
                  resolved_out: list | None = None, accepted: list[dict] = ()) -> Candidate:
    """Fetch and check the skill a ref names (writes nothing). `resolved_out`, when given, receives the registry
    entry a registry ref resolved to (for `skill info`'s versions). `accepted` (--accept): direct installs only."""
    kind = ref_kind(ref)
    if kind == "github":
        return from_github(ref, config, strict=strict, accepted=accepted)
    if kind == "archive":
        return from_archive(ref, config, strict=strict, accepted=accepted)
    if kind == "local":
        return from_local(Path(ref).expanduser(), config, strict=strict, accepted=accepted)
    if accepted:
        raise SkillyardError(f"{ref}: --accept is for a skill installed from a folder, an archive or `github:`; a "
                             "registry's skill installs with the security exceptions its registry reviewed, and no "
                             "others.", "Ask the registry's maintainers to review the finding, or install the skill's "
                             "folder or `github:` ref directly with --accept.")
    from skillyard.client import resolve as resolve_mod

    resolved = resolve_mod.resolve(store.check_ref_name(ref), config, source=source)
    if resolved_out is not None:
        resolved_out.append(resolved)
    return from_resolved(resolved, config, progress=progress)


def prepare(refs: list[str], config, *, source: str | None = None, progress=None,
            strict: bool | None = None, accepted: list[dict] = ()) -> list[Candidate]:
    """Resolve and download every ref before anything is written (one bad ref installs nothing). `accepted`
    (--accept) names findings of one skill, so it comes with exactly one ref."""
    if accepted and len(refs) != 1:
        raise SkillyardError("--accept names findings of one skill, but several refs were given.",
                             "Install the skill whose findings you accept on its own.")
    candidates = [candidate_for(ref, config, source=source, progress=progress, strict=strict, accepted=accepted)
                  for ref in refs]
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
