"""`skill install` with no ref in a project: install exactly what skills.lock.json pins, each file fetched from
the locked source at the locked commit and checked against the locked integrity — even when the registry has
moved on to another build.
"""

from __future__ import annotations

from pathlib import Path

from skillyard.client import local_copy, lockfile, skillname, store
from skillyard.client.candidates import (
    GENERATED,
    MANIFEST,
    Candidate,
    declared_name,
    from_github,
    from_local,
    from_resolved,
    with_generated_skill_md,
)
from skillyard.client.fetch import download, integrity_of, is_offline
from skillyard.client.install_policy import check_entry_limits, check_verified
from skillyard.client.store import StagedFile
from skillyard.client.transaction import Options, Outcome, install_all, plan, recover_locked
from skillyard.errors import SkillyardError


def locked_candidate(name: str, entry: dict, config, *, progress=None, project_root: Path | None = None) -> Candidate:
    """Fetch exactly what a lock entry pins, verifying its integrity. A relative local path is read from
    `project_root`."""
    source = entry["resolved_source"]
    kind = source["type"]
    accepted = entry.get("accepted") or []  # the findings the install accepted: repeated, never asked again
    if kind == "registry" and accepted:
        raise SkillyardError(f"The lock entry for {name} accepts security findings, but it is a registry install: a "
                             "registry's skill installs with the exceptions its registry reviewed, and no others.",
                             f"Remove `accepted` from its entry, or reinstall it: skill install {name} --force.")
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
                                path=source.get("path", ""), integrity=source["integrity"], accepted=accepted)
    elif kind == "local":
        local = Path(source.get("path", ""))
        if not local.is_absolute() and project_root is not None:
            local = Path(project_root) / local
        candidate = from_local(local, config, accepted=accepted)
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
    # A pointer entry's folder may be its repository's root: the lock then records no path (empty values are not
    # kept), and "" is the folder. A registry's own skill always has one.
    pointer = "source_url" in resolved.skill
    prefix = source.get("path", "") if pointer else source.get("path") or resolved.skill.get("path")
    if not prefix and not pointer:
        raise SkillyardError(f"The lock entry for {name} names no path.", f"Reinstall it: skill install {name} --force.")
    from dataclasses import replace

    paths = [f["path"] for f in entry["files"]]
    if config is None:
        from skillyard.client.config import load_config

        config = load_config()
    # The locked sizes are as installed (SKILL.md rendered), so each file is capped by the client's file limit.
    check_entry_limits({"files": entry["files"]}, config, what=f"{name} (locked at {source['commit'][:12]})")
    check_verified(resolved.skill, config, what=f"{name} (locked at {source['commit'][:12]})", commit=source["commit"])
    pinned = replace(resolved, skill=dict(resolved.skill, commit=source["commit"], path=prefix))
    token = resolved.token_for(pinned.file_url(paths[0])) if paths else None
    for rel in paths:
        store.check_relpath(rel)
    local = local_copy.reuse(entry["files"])  # installed copies with the locked bytes need no download
    missing = [rel for rel in paths if rel not in local]
    if missing and is_offline(config):
        raise SkillyardError(f"{name} (locked at {source['commit'][:12]}): {len(missing)} file(s) are not on this "
                             f"machine ({', '.join(missing[:5])}) and --offline forbids downloading them; nothing "
                             "was installed.", "Run `skill install` again without --offline.")
    bar = progress(f"downloading {name}", len(missing)) if progress and missing else None
    files = []
    generated = False  # a skill.yaml-only skill: its SKILL.md was generated at install, never published
    for rel in paths:
        if rel in local:
            files.append(StagedFile(rel, local[rel]))
            continue
        try:
            files.append(StagedFile(rel, download(pinned.file_url(rel), config, token=token,
                                                  max_bytes=config.install_max_file_bytes)))
        except SkillyardError as exc:
            if not (rel == GENERATED and MANIFEST in paths and getattr(exc, "status", None) == 404):
                raise
            generated = True
        if bar:
            bar.advance()
    if bar:
        bar.close()
    skillname.check_declared_name(files, name, what=f"{name} (locked at {source['commit'][:12]})",
                                  source=f"{resolved.source.name} ({resolved.source.url})",
                                  renamed_from=declared_name(resolved.skill))
    files, published = _regenerated(files, source["integrity"], generated=generated, name=name)
    return Candidate(name, entry["version"], dict(source, integrity=published), files,
                     list(resolved.skill.get("inputs") or []), list(resolved.skill.get("mcp_deps") or []))


def _regenerated(files: list[StagedFile], locked: str, *, generated: bool, name: str) -> tuple[list[StagedFile], str]:
    """(the files, the integrity of what the source publishes) for a locked skill.yaml-only skill, whose SKILL.md
    was generated at install (`with_generated_skill_md`) and is generated again here: it was never published, so
    upstream has none (`generated`: the download found none) and a copy reused from this machine is left out of
    the integrity, which covers the published files only. Any other skill is returned as it is."""
    without = [f for f in files if f.path != GENERATED]
    if any(f.path == MANIFEST for f in files) and (generated or (integrity_of(files) != locked
                                                                  and integrity_of(without) == locked)):
        return with_generated_skill_md(without, where=name), integrity_of(without)
    return files, integrity_of(files)


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

    plans = [plan(candidate, replace(locked_deps_handling(opts, entry), targets=list(entry.get("targets") or opts.targets)),
                  config, locked_inputs=entry["resolved_inputs"], expected_files=entry["files"])
             for candidate, entry in prepared]
    return install_all(plans)


def locked_deps_handling(opts: Options, entry: dict) -> Options:
    """Handle a skill's MCP tools as its install did (the lock's `deps`): skipped stays skipped, a required check
    stays required. A flag given to this command wins; `mcp.require_deps` does not undo a deliberate skip."""
    from dataclasses import replace

    deps = entry.get("deps") or {}
    if opts.skip_deps_check or opts.require_deps is not None:
        return opts
    if deps.get("status") == "skipped":
        return replace(opts, skip_deps_check=True)
    if deps.get("required"):
        return replace(opts, require_deps=True)
    return opts
