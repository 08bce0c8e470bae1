"""`skill update`: compare each installed skill's lock with its source, show what would change, apply it.

Registry skills are looked up in the source they were installed from; GitHub skills follow the repository's
default branch (HEAD); local skills are re-read from their folder. Files the user edited since the install are
never overwritten without `force` — the refusal names them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from skillyard.client import install as inst
from skillyard.client import lockfile, store
from skillyard.client.fetch import github_token
from skillyard.client.inputs import resolve as resolve_inputs
from skillyard.client.restore import locked_deps_handling
from skillyard.errors import SkillyardError


@dataclass
class Change:
    name: str
    scope: str
    from_version: str
    to_version: str
    status: str  # up-to-date | would-update | updated | refused
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checked: bool = True  # False: its source could not be reached, so "up-to-date" is not a fresh answer

    def to_dict(self) -> dict:
        return {"name": self.name, "scope": self.scope, "from_version": self.from_version,
                "to_version": self.to_version, "status": self.status, "added": self.added,
                "removed": self.removed, "changed": self.changed, "edited": self.edited, "warnings": self.warnings,
                "checked": self.checked}


_SEMVER = re.compile(r"[vV]?(\d{1,18})(?:\.(\d{1,18}))?(?:\.(\d{1,18}))?(?:-([0-9A-Za-z.-]{1,200}))?(?:\+[0-9A-Za-z.-]{0,200})?", re.ASCII)


def version_key(version: str) -> tuple | None:
    """A sort key giving SemVer 2.0 precedence (a pre-release sorts before its release; build metadata is ignored;
    a leading `v` and missing minor/patch are tolerated), or None when `version` is not a version at all. A dozen
    lines, so no dependency: registries publish SemVer."""
    match = _SEMVER.fullmatch(version) if isinstance(version, str) and len(version) <= 256 else None
    if match is None:
        return None
    core = tuple(int(part or 0) for part in match.group(1, 2, 3))
    if match.group(4) is None:
        return (core, 1, ())
    return (core, 0, tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in match.group(4).split(".")))


@dataclass
class Outdated:
    """An installed skill against the newest version its source knows: state is outdated, current or unknown."""

    name: str
    scope: str
    installed: str
    latest: str | None
    source: str
    state: str
    reason: str = ""

    commits: dict | None = None  # a GitHub install: {"ref", "installed", "latest"} (full commit shas)
    # False when the answer could not be had now (offline, a server unreachable, no cached registry): `current`
    # or `unknown` then means "not known to be outdated", and `skill outdated` exits 3 rather than 0.
    checked: bool = True

    def to_dict(self) -> dict:
        out = {"name": self.name, "scope": self.scope, "installed": self.installed, "latest": self.latest,
               "source": self.source, "state": self.state, "checked": self.checked}
        if self.reason:
            out["reason"] = self.reason
        if self.commits is not None:
            out["commits"] = self.commits
        return out


_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}", re.ASCII)  # SHA-1 and SHA-256 repositories
SHORT = 12  # a commit as shown in the table


def github_commit(url: str, ref: str, config) -> str:
    """The commit `ref` names now in the GitHub repository at `url`: the REST API's `GET /repos/{owner}/{repo}/
    commits/{ref}` as a bare sha (`github.api_url`, `$SKILL_GITHUB_API_URL`), one small bounded answer."""
    from urllib.parse import quote

    from skillyard.client import github, http

    owner, repo = github.repo_from_url(url)
    endpoint = (f"{config.github_api_url.rstrip('/')}/repos/{quote(owner, safe='')}/{quote(repo, safe='')}/commits/"
                f"{quote(ref, safe='')}")
    body = http.fetch(endpoint, token=github_token(config), accept="application/vnd.github.sha",
                      max_bytes=1024, **http.settings(config)).body
    text = body.decode("ascii", "replace").strip()
    if not _SHA.fullmatch(text):
        raise SkillyardError(f"{http.safe_url(endpoint)} did not answer with a commit sha.",
                             "Check github.api_url (or $SKILL_GITHUB_API_URL): it must be a GitHub REST API root.")
    return text


def github_known(item: dict, config, *, offline: bool) -> Outdated:
    """A GitHub install against the commit its tracked ref (the branch or tag asked for, else the default branch)
    names now: current when it is the installed commit, outdated when the ref moved, unknown when it cannot be
    asked. `installed` and `latest` are the short commits; `commits` has them in full."""
    source = item["source"]
    ref = str(source.get("ref") or "HEAD")
    where = str(source.get("url") or "github")
    installed = str(source.get("commit") or "")
    out = Outdated(item["name"], item["scope"], installed[:SHORT] or item["version"], None, where, "unknown",
                   commits={"ref": ref, "installed": installed, "latest": None})
    if offline:
        out.reason, out.checked = "offline: the GitHub API is not asked", False
        return out
    try:
        latest = github_commit(where, ref, config)
    except SkillyardError as exc:
        out.reason, out.checked = f"cannot ask GitHub for {ref}: {exc.message}", False
        return out
    out.latest, out.commits["latest"] = latest[:SHORT], latest
    out.state = "current" if latest == installed else "outdated"
    if out.state == "outdated":
        out.reason = f"{ref} moved; `skill update` compares its files"
    return out


def newest_known(item: dict, registries: dict[str, dict], stale: set[str] | frozenset = frozenset()) -> Outdated:
    """Compare one installed skill (`skill list`'s item: name, version, scope, source) with the newest entry of
    that name in the registry it came from. GitHub and local installs have no version list: unknown. A source in
    `stale` answered from its cached copy (its server could not be reached): the result is not `checked`."""
    source = item["source"]
    where = source.get("source") or source.get("type", "?")
    out = Outdated(item["name"], item["scope"], item["version"], None, str(where), "unknown")
    if source.get("type") != "registry":
        out.reason = f"installed from {source.get('type')}; `skill update` compares its files"
        return out
    registry = registries.get(source.get("source"))
    if registry is None:
        out.reason, out.checked = f"source {where!r} is not configured or has no cached registry", False
        return out
    if source.get("source") in stale:
        out.checked = False
        out.reason = f"compared with the cached copy of {where!r}: its server could not be reached"
    versions = [(version_key(entry.get("version", "")), entry.get("version")) for entry in
                registry.get("skills", []) if isinstance(entry, dict) and entry.get("name") == item["name"]]
    versions = [v for v in versions if v[0] is not None]
    if not versions:
        out.reason = f"source {where!r} no longer lists it"
        return out
    best = max(versions)
    out.latest = best[1]
    mine = version_key(item["version"])
    if mine is None:
        out.reason = f"the installed version {item['version']!r} is not a SemVer version"
        return out
    out.state = "outdated" if mine < best[0] else "current"
    return out


def known_registries(config, names: set[str], *, offline: bool, strict: bool, refresh: bool = False,
                     warn=None, stale: set[str] | None = None) -> dict[str, dict]:
    """{source name: registry} for the named sources (`refresh`: ask the servers first, conditionally). `strict`
    raises the first source's error (`skill outdated` must say why it cannot tell); otherwise a source without a
    usable copy is left out (`skill list` stays quiet)."""
    from skillyard.client.cache import load_registries

    quiet = warn or (lambda message: None)
    out = {}
    for source in config.sources:
        if source.name not in names:
            continue
        try:
            (loaded,) = load_registries(config, offline=offline, refresh=refresh, sources=[source], warn=quiet)
        except SkillyardError:
            if strict:
                raise
            continue
        out[source.name] = loaded.registry
        if stale is not None and (loaded.stale or offline):
            stale.add(source.name)
    return out


def latest(name: str, lock: dict, config, *, progress=None) -> inst.Candidate:
    """The newest candidate from where the skill came from."""
    source = lock["resolved_source"]
    if source["type"] == "registry":
        from skillyard.client import resolve

        resolved = resolve.resolve(name, config, source=source.get("source"))
        if resolved.skill.get("integrity") == source["integrity"] and resolved.version == lock["version"]:
            # Same content: no need to download anything.
            return inst.Candidate(name, resolved.version, dict(source), [], list(resolved.skill.get("inputs") or []),
                                  list(resolved.skill.get("mcp_deps") or []), stale=resolved.stale)
        candidate = inst.from_resolved(resolved, config, progress=progress)
        candidate.stale = resolved.stale
        return candidate
    if source["type"] == "github":
        from skillyard.client import github

        owner, repo = github.repo_from_url(source.get("url", ""))
        wanted = f"@{source['ref']}" if source.get("ref") else ""  # the branch or tag asked for, else the default
        return inst.from_github(f"github:{owner}/{repo}{wanted}", config, path=source.get("path", ""),
                                accepted=_carried(lock))
    return inst.from_local(Path(source.get("path", "")), accepted=_carried(lock))


def _carried(lock: dict) -> list[dict]:
    """The findings the install accepted (--accept), still accepted while their files are unchanged."""
    from skillyard.client.accept import Carried

    return Carried(lock.get("accepted") or [], lock.get("files") or [])


def diff(old: list[dict], new: list[dict]) -> tuple[list[str], list[str], list[str]]:
    before = {f["path"]: f["sha256"] for f in old}
    after = {f["path"]: f["sha256"] for f in new}
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    return added, removed, changed


def update_one(name: str, opts: inst.Options, config, *, cli_inputs: dict | None = None, progress=None) -> Change:
    root = opts.root
    folder = store.canonical_dir(root, store.check_name(name))
    if not (folder / store.SKILL_LOCK).is_file():
        raise SkillyardError(f"{name} is not installed ({opts.scope} scope).",
                             "See `skill list`; install it with `skill install " + name + "`.")
    lock = lockfile.read_skill_lock(folder)
    candidate = latest(name, lock, config, progress=progress)
    change = Change(name, opts.scope, lock["version"], candidate.version, "up-to-date", checked=not candidate.stale)
    change.edited = store.edited_files(folder, lock.get("files", []))
    declared = {d["name"] for d in candidate.inputs}
    configured = {k: v for k, v in lock.get("resolved_inputs", {}).items() if k in declared}
    if config is not None:
        configured.update(config.skill_inputs(name))
    values = resolve_inputs(candidate.inputs, cli=cli_inputs, configured=configured, skill=name)
    if not candidate.files and values == lock.get("resolved_inputs") and not cli_inputs:
        return change  # same integrity, same inputs: nothing to do
    if not candidate.files:  # inputs changed: the files are needed after all
        candidate = _refetch(name, lock, config, progress=progress)
    new_files = inst.render_files(candidate.files, values)
    change.added, change.removed, change.changed = diff(lock.get("files", []),
                                                        [f.entry() for f in new_files])
    if not (change.added or change.removed or change.changed) and candidate.version == lock["version"]:
        return change
    if opts.dry_run:
        change.status = "would-update"
        return change
    if change.edited and not opts.force:
        change.status = "refused"
        return change
    # Keep the skill where it was placed; a lock without targets had only the canonical copy.
    targets = sorted({t["target"] for t in lock.get("targets", [])}) or ["agents"]
    run = inst.Options(scope=opts.scope, project_root=opts.project_root, home=opts.home, targets=targets,
                       force=True, skip_deps_check=opts.skip_deps_check, copy=opts.copy)
    run = locked_deps_handling(run, lock)  # MCP tools handled as the install did (skipped, required)
    outcome = inst.install(candidate, run, config, locked_inputs=values)
    change.status = "updated"
    change.warnings = outcome.warnings
    return change


def _refetch(name: str, lock: dict, config, *, progress=None) -> inst.Candidate:
    from skillyard.client import resolve

    resolved = resolve.resolve(name, config, source=lock["resolved_source"].get("source"))
    return inst.from_resolved(resolved, config, progress=progress)


def update(names: list[str], opts: inst.Options, config, *, cli_inputs: dict | None = None,
           progress=None) -> list[Change]:
    """Update each named skill (all installed ones when `names` is empty)."""
    for name in names:
        store.check_name(name)
    inst.recover_locked(opts.root)  # a killed earlier run is finished before the locks are read
    wanted = names or store.installed_names(opts.root)
    return [update_one(n, opts, config, cli_inputs=cli_inputs if len(wanted) == 1 else None, progress=progress)
            for n in wanted]
