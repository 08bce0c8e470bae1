"""`skillyard external add`: list a skill that lives in its own GitHub repository by pointer (`format/pointer.py`).

Resolve the ref to a commit (REST API), download the codeload tarball at that commit, read it with the client's
bounded reader (`format/tarball.py`), take only the skill's folder, check it as the open standard does (lenient mode:
what the reference validator accepts) plus the full security scan, and write `skills/<name>/source.yaml` with the
facts registry.json needs. Any refusal writes nothing.

The network is at the edge: the caller passes `get(url, accept=..., max_bytes=...) -> bytes`, which raises
SkillyardError (with `status` for an HTTP answer). Everything else here is deterministic.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from skillyard.errors import SkillyardError
from skillyard.format import tarball
from skillyard.format.exceptions import EXCEPTABLE_RULES
from skillyard.format.findings import error
from skillyard.format.githubref import GitHubRef, parse_ref
from skillyard.format.pointer import POINTER_FILE, Pointer, dump_pointer, parse_pointer
from skillyard.format.policy import Policy
from skillyard.registry.config import RegistryConfig

Get = Callable[..., bytes]
SHA = re.compile(r"[0-9a-f]{40}")
API_MAX_BYTES = 1024 * 1024  # one commit's or repository's JSON
# A whole repository's tarball, as sent: the same bound as the reader's (format/tarball.py, 64 MB of contents) and
# as the site's upstream fetch (site/upstream.py), so a repository add can read, the site can read too. Not tied to
# the skill's own size limit: the tarball holds every other folder of the repository as well.
TARBALL_MAX_BYTES = tarball.MAX_TOTAL_BYTES
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
SKILL_KEYS = ("description", "version", "tags", "display_name", "author", "maintainers", "license", "homepage",
              "compatibility", "allowed_tools", "metadata", "runtime", "capabilities", "mcp_deps", "inputs")


class Hosts:
    """Where GitHub's API, tarballs and raw files are (the client's `SKILL_GITHUB_*` settings)."""

    def __init__(self, api_url: str, codeload_url: str, raw_url: str):
        self.api_url, self.codeload_url, self.raw_url = (u.rstrip("/") for u in (api_url, codeload_url, raw_url))


def pointer_policy(config: RegistryConfig) -> Policy:
    """How upstream content is judged: the open standard (lenient) unless `[tool.skillyard] external_mode =
    "strict"` asks for this registry's house style; the registry's size limits apply either way."""
    mode = config.section.get("external_mode", "lenient")
    if mode not in ("strict", "lenient"):
        raise SkillyardError(f"{config.file}: external_mode must be 'strict' or 'lenient', not {str(mode)[:40]!r}",
                             'Set external_mode = "lenient" (the open standard) or "strict".')
    return config.policy(mode)


def _refused(message: str, fix: str) -> SkillyardError:
    return SkillyardError(f"{message}; nothing was written", fix)


def _api_json(get: Get, url: str, what: str) -> dict:
    try:
        body = get(url, accept="application/vnd.github+json", max_bytes=API_MAX_BYTES)
    except SkillyardError as exc:
        if getattr(exc, "status", None) in (404, 422):
            raise _refused(f"{what}: not found ({url})", "Check the repository, and that the ref is a branch, tag or "
                           "commit in it.") from None
        raise _refused(f"{what}: {exc.message}", exc.fix or "Try again later.") from None
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise _refused(f"{what}: the API answered something other than a JSON object ({url})",
                       "Check SKILL_GITHUB_API_URL.")
    return data


def resolve_commit(get: Get, hosts: Hosts, ref: GitHubRef) -> tuple[str, str | None]:
    """(the full SHA `ref.ref` names now, its committer date in UTC or None) from
    `GET /repos/{owner}/{repo}/commits/{ref}`; the date dates a versionless skill (`Pointer.version`)."""
    url = f"{hosts.api_url}/repos/{ref.owner}/{ref.repo}/commits/{quote(ref.ref, safe='')}"
    data = _api_json(get, url, f"github:{ref.slug}@{ref.ref}")
    sha = data.get("sha")
    if not isinstance(sha, str) or not SHA.fullmatch(sha):
        raise _refused(f"github:{ref.slug}@{ref.ref}: the API gave no full commit SHA", "Check SKILL_GITHUB_API_URL.")
    if SHA.fullmatch(ref.ref) and sha != ref.ref:
        raise _refused(f"github:{ref.slug}@{ref.ref}: the API resolved the commit to {sha}",
                       "Give the full 40-hex SHA of a commit in the repository.")
    return sha, utc_date(((data.get("commit") or {}).get("committer") or {}).get("date")
                         if isinstance(data.get("commit"), dict) else None)


def utc_date(value: object) -> str | None:
    """An ISO 8601 date-time (`Z` or an offset) as UTC `YYYY-MM-DDTHH:MM:SSZ`; None when it is not one."""
    import datetime

    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        moment = moment.astimezone(datetime.UTC) if moment.tzinfo is not None else None
    except (ValueError, OverflowError):  # (a zone that moves the time past year 1 or 9999)
        return None
    if moment is None or not 1000 <= moment.year <= 9999:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def repository_facts(get: Get, hosts: Hosts, ref: GitHubRef) -> tuple[str, str | None]:
    """(default branch, the repository's SPDX licence or None) from `GET /repos/{owner}/{repo}`."""
    data = _api_json(get, f"{hosts.api_url}/repos/{ref.owner}/{ref.repo}", f"github:{ref.slug}")
    branch = data.get("default_branch")
    licence = data.get("license") if isinstance(data.get("license"), dict) else {}
    spdx = licence.get("spdx_id")
    spdx = spdx if isinstance(spdx, str) and re.fullmatch(r"[A-Za-z0-9.+-]{1,100}", spdx) and spdx != "NOASSERTION" \
        else None
    return (branch if isinstance(branch, str) and branch else "main"), spdx


def download_folder(get: Get, hosts: Hosts, ref: GitHubRef, commit: str, *, max_bytes: int = TARBALL_MAX_BYTES,
                    root_licences: dict[str, bytes] | None = None) -> tuple[str, dict[str, tuple[bytes, bool]]]:
    """(folder, {path in the folder: (bytes, executable)}) of the tarball at `commit`, read safely. `root_licences`,
    when given, receives the repository root's LICENSE*/COPYING* files (for the licence lookup)."""
    url = f"{hosts.codeload_url}/{ref.owner}/{ref.repo}/tar.gz/{commit}"
    what = f"github:{ref.slug}@{commit[:12]}"
    try:
        data = get(url, accept=None, max_bytes=max_bytes)
        archive = tarball.read_archive(data)
        if archive.commit is not None and archive.commit != commit:
            raise SkillyardError(f"{what}: the tarball is of commit {archive.commit}, not {commit}",
                                 "Check SKILL_GITHUB_CODELOAD_URL.")
        paths = list(archive.files) + list(archive.links)
        folder = tarball.choose_folder(paths, path=ref.path, preferred=ref.repo, what=what,
                                       name_one=f"github:{ref.slug}/<path>@{ref.ref}")
        files = tarball.folder_files(archive, folder)
        if root_licences is not None:
            from skillyard.format.licence_text import licence_files

            root_licences.update({p: archive.files[p][0] for p in licence_files(archive.files)})
    except SkillyardError as exc:
        message = exc.message.replace("; nothing was installed.", "").replace("nothing was installed", "").rstrip(". ")
        if getattr(exc, "kind", None) == "too-large":
            message = f"{what}: the tarball is larger than {max_bytes:,} bytes"
        refused = _refused(message, exc.fix or "")
        refused.status = getattr(exc, "status", None)  # verify tells a pin gone upstream (404) from other faults
        raise refused from None
    return folder, files


def check_folder(files: dict[str, tuple[bytes, bool]], folder_name: str, policy: Policy,
                 allowed: list[dict] | tuple = ()):
    """The folder checked as a local skill is (`format.package.load_skill`), in a private temporary folder.

    Security exceptions come from this registry alone: the upstream skill.yaml's own `security_exceptions` are
    withdrawn (upstream authors did not have them reviewed here, and a bump would otherwise let them in unseen), and
    `allowed` -- the pointer's `registry.security_exceptions`, which a maintainer reviewed -- applied instead. An
    entry that covers no finding is a `pointer-exception-stale` error: a pin never keeps a stale allowance."""
    from skillyard.format.verdict import judge_files

    entries = [dict(e) for e in allowed]
    pkg = judge_files(files, folder_name, policy, reviewed=entries).package  # the one judge (format/verdict.py)
    covered = pkg.findings
    stale = [f for f in covered if f.rule == "exception-stale"]
    pkg.findings = [f for f in covered if f.rule != "exception-stale"] + [
        error("pointer-exception-stale", f.message.replace("in skill.yaml", "in source.yaml"),
              "Remove the entry from `registry.security_exceptions` (or correct its rule or file).",
              file=POINTER_FILE, field="registry.security_exceptions") for f in stale]
    pkg.security_exceptions = sorted(entries, key=lambda e: (e["file"], e["rule"]))
    return pkg


def pointer_data(pkg, *, name: str, ref: GitHubRef, folder: str, commit: str, tracks: str, licence: str,
                 licence_source: str | None = None) -> dict:
    """The source.yaml document for a checked upstream folder: the metadata exactly as the build compiles it."""
    from skillyard.registry.compile import REGISTRY_FINDING_PREFIXES, VERSION_SLOT, compile_skill

    entry = compile_skill(pkg)
    skill = {"name": str(pkg.data.get("name") or pkg.name)}
    skill.update({key: entry[key] for key in SKILL_KEYS if key in entry})
    for key in ("tags", "capabilities", "mcp_deps", "inputs"):
        if not skill.get(key):
            skill.pop(key, None)
    if skill.get("version") == VERSION_SLOT:  # versionless upstream: the build dates it (see source.schema.json)
        del skill["version"]
    skill["skill_md_lines"] = entry["inventory"].get("skill_md_lines", 0)
    data = {"schema_version": 1, "name": name,
            "upstream": {"host": "github", "repository": ref.slug, "path": folder, "commit": commit, "tracks": tracks},
            "license": licence, "skill": skill, "files": entry["files"]}
    if licence_source:
        data["license_source"] = licence_source
    findings = [f.to_dict() for f in pkg.findings if f.rule.startswith(REGISTRY_FINDING_PREFIXES) and not f.is_error]
    if findings:
        data["findings"] = findings
    return data


class Prepared:
    """A checked pointer ready to write: its document, the scan's non-error findings, and where it came from."""

    __slots__ = ("data", "warnings", "where")

    def __init__(self, data: dict, warnings: list[dict], where: str):
        self.data, self.warnings, self.where = data, warnings, where


def prepare(ref: GitHubRef, config: RegistryConfig, get: Get, hosts: Hosts, *, name: str | None = None,
            track: str | None = None, licence: str | None = None, commit: str | None = None,
            previous: dict | None = None, allowed: list[dict] | tuple = ()) -> Prepared:
    """Resolve, download, check and scan `ref` and build its pointer, writing nothing (`add` and `external bump`
    both go through here, so a bump is held to exactly what an add is). `commit` skips resolving the ref;
    `previous`: the pointer a bump replaces (its registry-set licence stands only while upstream names none); `allowed`: reviewed
    security exceptions ({rule, file, reason}) this registry grants the folder (`registry.security_exceptions`)."""
    policy = pointer_policy(config)
    commit, committed_at = resolve_commit(get, hosts, ref if commit is None else GitHubRef(ref.owner, ref.repo,
                                                                                         ref.path, commit))
    default_branch, repo_licence = repository_facts(get, hosts, ref)
    tracks = track or (default_branch if ref.ref == "HEAD" or re.fullmatch(r"[0-9a-fA-F]{7,40}", ref.ref)
                       else ref.ref)
    root_licences: dict[str, bytes] = {}
    folder, files = download_folder(get, hosts, ref, commit, root_licences=root_licences)
    where = f"github:{ref.slug}/{folder}@{commit[:12]}".replace("/@", "@")
    upstream_name = _upstream_name(files)
    chosen = name or upstream_name
    if not isinstance(chosen, str) or not NAME.fullmatch(chosen) or len(chosen) > 64:
        raise _refused(f"{where}: the upstream name {str(upstream_name)[:80]!r} is not a plain registry name "
                       "(lowercase letters, digits, hyphens)", "Choose one: --name NAME.")
    pkg = check_folder(files, chosen, policy, allowed)
    errors = [f for f in pkg.findings if f.is_error]
    if errors:
        shown = "; ".join(f"{f.file or '.'}{':' + str(f.line) if f.line else ''}: {f.message}" for f in errors[:5])
        more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
        exceptable = sorted({(f.rule, f.file) for f in errors if f.rule in EXCEPTABLE_RULES and f.file
                             and f.field is None})
        hint = (" A maintainer who has reviewed a dual-use skill (one that quotes attacks to teach them) may allow a "
                "finding: " + " ".join(f"--allow '{rule}:{file}:REASON'" for rule, file in exceptable[:5]) + "."
                if exceptable and len(exceptable) == len({(f.rule, f.file) for f in errors}) else "")
        said, raise_it = size_limits(errors, files, policy, config)
        raise _refused(f"{where} does not pass the checks ({policy.mode} mode): {shown}{more}{said}",
                       "Ask the upstream authors to fix it, or point at another commit." + hint + raise_it)
    found = choose_licence(config, where, pkg.data.get("license"), files, repo_licence, root_licences,
                           given=licence, previous=previous)
    data = pointer_data(pkg, name=chosen, ref=ref, folder=folder, commit=commit, tracks=tracks, licence=found.spdx,
                        licence_source=found.source)
    if committed_at:
        data["upstream"]["committed_at"] = committed_at
    warnings = still_missing(pkg.findings, data)
    if found.warning:
        warnings.insert(0, noassertion_warning(found))
    if pkg.security_exceptions:
        data["registry"] = {"security_exceptions": pkg.security_exceptions}
    if "SKILL.md" not in files:  # skill.yaml alone (design 000): listed, and said what that means for other clients
        warnings.append({"rule": "pointer-manifest-only", "severity": "warning",
                         "message": "the upstream skill is described by skill.yaml alone (no SKILL.md): `skill "
                                    "install` generates its SKILL.md from `system_prompt`, as for `github:` installs, "
                                    "but clients that read SKILL.md from the repository (Claude Code's marketplace, "
                                    "npx skills) will not find the skill there",
                         "fix": "Ask the upstream authors to add the SKILL.md `skillyard migrate` writes."})
    return Prepared(data, warnings, where)


def noassertion_warning(found) -> dict:
    """The warning for a NOASSERTION pointer: --license is the way out only where upstream names no licence."""
    from skillyard.format.licence_facts import names_none

    said = ("to record a licence you have checked, add again with --license SPDX-ID" if names_none(found) else
            "upstream states these terms itself, so --license cannot replace them")
    return {"rule": "licence-noassertion", "severity": "warning",
            "message": f"{found.warning}: listed as NOASSERTION, so the site never serves or renders its content "
                       f"(installs fetch it from upstream as always); {said}",
            "fix": "Check the upstream licence; if it allows redistribution, add again with --license SPDX-ID."
                   if names_none(found) else "Ask the upstream authors to state an SPDX licence."}


def still_missing(findings, data: dict) -> list[dict]:
    """The warnings worth printing for a new pointer: a registry-required field the pointer itself supplies is not
    missing - `license` once the lookup or --license found one, `version` (a versionless pointer is versioned by
    its pin's date) - and a missing `tags` says where a maintainer adds them (the pointer's `registry.tags`)."""
    out = []
    for finding in findings:
        if finding.is_error:
            continue
        item = finding.to_dict()
        if finding.rule == "policy-required-field":
            if finding.field == "version" or (finding.field == "license"
                                              and data.get("license") not in (None, "", "NOASSERTION")):
                continue
            if finding.field == "tags":
                item["message"] = "This registry requires `tags`, and the upstream skill has none."
                item["fix"] = "Add them to the pointer: `registry: {tags: [...]}` in source.yaml."
        out.append(item)
    return out


LIMIT_SETTINGS = {"file-too-large": "max_file_bytes", "package-too-large": "max_total_bytes",
                  "too-many-files": "max_files"}


def size_limits(errors, files: dict[str, tuple[bytes, bool]], policy: Policy,
                config: RegistryConfig) -> tuple[str, str]:
    """(what to add to a refusal, what to add to its fix) when a size limit was hit: which limit, which files (the
    largest, with their sizes), and the registry setting that raises it."""
    hit = [rule for rule in LIMIT_SETTINGS if any(f.rule == rule for f in errors)]
    if not hit:
        return "", ""
    largest = sorted(files.items(), key=lambda item: (-len(item[1][0]), item[0]))[:3]
    sizes = ", ".join(f"{path} {len(data):,} bytes" for path, (data, _) in largest)
    total = sum(len(data) for data, _ in files.values())
    limits = {"max_file_bytes": policy.max_file_bytes, "max_total_bytes": policy.max_total_bytes,
              "max_files": policy.max_files}
    said = (f" [size limits: {len(files)} files, {total:,} bytes in all; largest: {sizes}; "
            + "; ".join(f"`{LIMIT_SETTINGS[r]}` is {limits[LIMIT_SETTINGS[r]]:,}" for r in hit) + "]")
    fix = (" If the size is expected, raise " + " and ".join(f"`{LIMIT_SETTINGS[r]}`" for r in hit)
           + f" in {config.file} (keep it within the clients' install limits: `install.max_total_bytes`, "
           "`install.max_file_bytes`, `install.max_download_bytes`).")
    return said, fix


def choose_licence(config: RegistryConfig, where: str, frontmatter: object, files: dict[str, tuple[bytes, bool]],
                   repo_licence, root_licences: dict[str, bytes], *, given: str | None = None,
                   previous: dict | None = None):
    """The pointer's licence: what upstream names (`format.licence_text.find`'s order), as `format.licence_facts`
    rules -- `given` (--license) only where upstream names none, a bump's `previous` registry-set licence only
    while upstream still names none, never one upstream withdrew. NOASSERTION is refused by a registry with
    `external_require_license = true`. `repo_licence`: the API's licence, or a function giving it."""
    from skillyard.format import licence_facts
    from skillyard.format.licence_text import NOASSERTION, find

    if given and not re.fullmatch(r"[A-Za-z0-9.+() -]{1,200}", given):
        raise _refused(f"{where}: --license {given[:80]!r} is not an SPDX expression",
                       "Pass an SPDX licence ID or expression, e.g. --license MIT.")
    found = find(frontmatter, {p: b for p, (b, _) in files.items()}, repo_licence, root_licences)
    try:
        chosen = licence_facts.choose(found, where=where, given=given, previous=previous)
    except SkillyardError as exc:
        raise _refused(exc.message, exc.fix or "") from None
    if chosen.spdx == NOASSERTION and config.require_license:
        raise _refused(f"{where}: {found.warning} (this registry sets external_require_license = true)",
                       "Check the upstream licence, then pass --license SPDX-ID." if licence_facts.names_none(found)
                       else "Ask the upstream authors to state an SPDX licence (frontmatter `license` or a "
                            "standard LICENSE text): --license cannot override terms upstream states.")
    return chosen


def checked_text(prepared: Prepared) -> str:
    """The pointer's text once `parse_pointer` accepts it: what add or bump writes, validate must accept."""
    name = prepared.data["name"]
    text = dump_pointer(prepared.data)
    pointer, problems = parse_pointer(text, folder_name=name)
    if pointer is None:
        raise _refused(f"{prepared.where}: the pointer would not be valid: {problems[0].message}",
                       "Ask the upstream authors to fix it (a value over a pointer's limit: shorten it), or point "
                       "at another folder.")
    return text


def add(target: str, config: RegistryConfig, get: Get, hosts: Hosts, *, name: str | None = None,
        track: str | None = None, licence: str | None = None, allowed: list[dict] | tuple = ()) -> dict:
    """Write the pointer for `github:OWNER/REPO/PATH[@REF]`; returns what was written. Raises SkillyardError (and
    writes nothing) on any refusal. `allowed`: reviewed security exceptions a maintainer grants the folder."""
    ref = parse_ref(target if target.startswith("github:") else f"github:{target}")
    prepared = prepare(ref, config, get, hosts, name=name, track=track, licence=licence, allowed=allowed)
    data = prepared.data
    text = checked_text(prepared)
    chosen, upstream = data["name"], data["upstream"]
    destination = config.skills_dir / chosen
    if os.path.lexists(destination):
        raise _refused(f"{destination} already exists", "Remove it first, or choose another name with --name.")
    _write_new(destination, text)
    return {"name": chosen, "pointer": str(destination / POINTER_FILE), "repository": ref.slug,
            "path": upstream["path"], "commit": upstream["commit"], "tracks": upstream["tracks"],
            "license": data["license"], "license_source": data.get("license_source"),
            "version": Pointer(data).version, "files": len(data["files"]), "warnings": prepared.warnings}


def _upstream_name(files: dict[str, tuple[bytes, bool]]) -> object:
    """The skill's declared `name` as `skill install github:` reads it (`format.manifest.declared_fields`): SKILL.md's
    frontmatter merged with skill.yaml, or skill.yaml alone for a skill.yaml-only skill (design 000); None when
    there is none or it cannot be read (the checks then say why)."""
    from skillyard.format.frontmatter import parse_skill_md
    from skillyard.format.manifest import declared_fields, parse_manifest

    try:
        frontmatter = next((parse_skill_md(files[rel][0].decode("utf-8"), strict=False, file=rel).data
                            for rel in ("SKILL.md", "skill.md") if rel in files), None)
        manifest = parse_manifest(files["skill.yaml"][0].decode("utf-8"))[0] if "skill.yaml" in files else None
    except UnicodeDecodeError:
        return None
    data = declared_fields(frontmatter, manifest)
    return data.get("name") if isinstance(data, dict) else None


def _write_new(destination: Path, text: str) -> None:
    """The folder and its source.yaml appear together: written beside, then renamed into place."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=destination.parent))
    try:
        (staging / POINTER_FILE).write_text(text, encoding="utf-8")
        staging.chmod(0o755)
        os.rename(staging, destination)
    except BaseException:
        import shutil

        shutil.rmtree(staging, ignore_errors=True)
        raise
