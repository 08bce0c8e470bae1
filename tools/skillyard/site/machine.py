"""The machine-readable files published with the site: registry.json, index.json and the well-known layout.

`/.well-known/agent-skills/index.json` follows the Agent Skills discovery schema 0.2.0 (`{"$schema", "skills":
[{"name", "description", "type": "archive", "url", "digest"}]}`): every skill the site may serve is one
deterministic `<name>.tar.gz` beside the index (`format.skill_archive`), so other clients (`npx skills`) install
straight from the site. An archive is downloaded, never run by a browser, so skills with HTML, JS or SVG files are
listed too (`publish.archive_problems`). The index can be only one version (clients pick the reader by `$schema`);
the per-file copies under `/.well-known/agent-skills/<name>/` (the 0.1 layout) are kept only for skills whose
every file is inert in a browser, because the skill pages link them, and the index does not list them (see
`publish`). Files are packed and copied only after their sha256 matches registry.json, so the site never publishes
bytes the registry did not vouch for. Own skills' files are rendered with each input's default (`{{inputs.x}}` ->
the default), as `skill install` would write them with no values given: a third-party client has no inputs and
would otherwise show the placeholder raw; an archive holds exactly the files registry.json lists.
A pointer skill (its files upstream) is served only when this build fetched its pinned commit and every file
matched its sha256 and the licence allows redistribution (`site.upstream`; NOASSERTION never); its files are
served as upstream has them, byte for byte.

A static host's registry.json (`raw_url_template` `{path}`, relative to it) makes clients fetch each file from
`<skill path>/<file>` beside registry.json; the site serves those too (`raw_prefix`), exactly the registry's bytes
(checked against their sha256, never rendered), beside the skill's page at `skills/<name>/index.html`. So the one
folder serves `skill source add SITE/registry.json` (or `SITE/sparse/index.json`) and `npx skills add SITE`. The
same skills are served there as one by one under the well-known path, for the same reason (the site's origin).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

from skillyard.errors import SkillyardError
from skillyard.format.inputs import RENDERED_FILES, RenderTooLarge, defaults, render_bytes
from skillyard.format.paths import path_problem
from skillyard.registry.compile import dumps, index_document
from skillyard.site import publish, staged
from skillyard.site.archives import ArchiveDigests, plan_archive
from skillyard.site.model import WELL_KNOWN


def dump(data: object) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n").encode("utf-8")


DISCOVERY_SCHEMA = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
_ENTRY_KEYS = ["name", "description", "type", "url", "digest"]


def dump_well_known_index(index: dict) -> bytes:
    """`dump(index)` of a `well_known_index`, joined from C-encoded strings: json's indenting encoder is pure Python
    (a third of a second at 5,000 skills). Anything not of the index's shape goes through `dump`."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    skills = index.get("skills") if list(index) == ["$schema", "skills"] else None
    if not skills or not all(isinstance(s, dict) and list(s) == _ENTRY_KEYS
                             and all(isinstance(s[key], str) for key in _ENTRY_KEYS) for s in skills):
        return dump(index)
    parts = ["    {\n" + ",\n".join(f'      "{key}": ' + encode(skill[key]) for key in sorted(_ENTRY_KEYS)) + "\n    }"
             for skill in skills]
    return ('{\n  "$schema": ' + encode(index["$schema"]) + ',\n  "skills": [\n' + ",\n".join(parts)
            + "\n  ]\n}\n").encode("utf-8")


def well_known_index(registry: dict, digests: dict[str, str]) -> dict:
    """The discovery index (schema 0.2.0): every skill in `digests` ({name: "sha256:…" of its archive}), sorted by
    name, as an archive beside the index (`<name>.tar.gz`, relative to index.json)."""
    return {"$schema": DISCOVERY_SCHEMA,
            "skills": [{"name": s["name"], "description": s["description"], "type": "archive",
                        "url": f"{s['name']}.tar.gz", "digest": digests[s["name"]]}
                       for s in sorted(registry["skills"], key=lambda s: s["name"]) if s["name"] in digests]}


def check_skill_path(skill: dict) -> None:
    """Refuse registry.json when a skill's `path` breaks the path rule (`skillyard build` never writes one)."""
    problem = path_problem(skill["path"])
    if problem:
        raise SkillyardError(f"registry.json: skill {skill['name']!r} has path {skill['path']!r} outside the root "
                             f"(it {problem})", "Rebuild registry.json with `skillyard build`.")


def skill_folder(skill: dict, root: Path) -> Path:
    """The skill's folder under `root`. A `path` that breaks the path rule refuses the registry as a whole (it is
    not what `skillyard build` wrote); a folder that is a symlink out of the root is that skill's problem alone
    (UnreadableFile: the caller leaves the skill's files out)."""
    check_skill_path(skill)
    return _resolved_folder(skill, root, Path(os.path.realpath(root)))


def _resolved_folder(skill: dict, root: Path, real_root: Path) -> Path:
    """`skill_folder` of a checked path, `real_root` being `root` resolved. A path with no symlink under the root
    resolves to itself (one lstat per component of the skill's path, not per component of the whole path)."""
    if not publish.symlink_on_the_way(real_root, skill["path"]):
        return real_root / skill["path"]
    folder = (root / skill["path"]).resolve()
    if not folder.is_relative_to(real_root):
        raise publish.UnreadableFile(f"{root / skill['path']}: a symlink leads out of the repository")
    return folder


_REAL_ROOT = "\0root"  # the key `known_folder` keeps the resolved root under (no skill has this name)


def known_folder(skill: dict, root: Path, folders: dict[str, Path | publish.UnreadableFile] | None) -> Path:
    """`skill_folder`, asked once per build: resolving a path costs a system call per component, and the bodies
    and the served files are read from the same folders. Records the answer in `folders` when there is one."""
    found = folders.get(skill["name"]) if folders is not None else None
    if found is None:
        try:
            if folders is None:
                found = skill_folder(skill, root)
            else:
                check_skill_path(skill)
                real_root = folders.get(_REAL_ROOT) or folders.setdefault(_REAL_ROOT, Path(os.path.realpath(root)))
                found = _resolved_folder(skill, root, real_root)
        except publish.UnreadableFile as exc:
            found = exc
        if folders is not None:
            folders[skill["name"]] = found
    if isinstance(found, publish.UnreadableFile):
        raise found
    return found


def read_skill_files(skill: dict, root: Path, folder: Path | None = None) -> dict[str, bytes]:
    """{path: bytes} of every file of a publishable skill, each checked against its registry sha256.

    Raises UnreadableFile for a symlink or a file that is not regular: the caller leaves the skill out. Other
    bytes than registry.json's (a sha256 mismatch, the file grew) mean registry.json is stale for the whole tree:
    SkillyardError stops the build. `folder`: `skill_folder(skill, root)` when the caller has it already.
    """
    folder = folder or skill_folder(skill, root)
    return {entry["path"]: read_checked(folder, entry) for entry in skill["files"]}


def read_checked(folder: Path, entry: dict) -> bytes:
    """One listed file's bytes, when they are the bytes its registry entry's sha256 vouches for (see
    `read_skill_files` for what is raised otherwise)."""
    data = publish.read_regular(folder, entry["path"], entry["size"])
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise SkillyardError(f"{folder / entry['path']}: sha256 differs from registry.json (the file changed "
                             "after the build)",
                             "Run `skillyard build` to refresh registry.json, then build the site again.")
    return data


def rendered_with_defaults(skill: dict, files: dict[str, bytes]) -> dict[str, bytes]:
    """The verified files with `{{inputs.x}}` filled from each input's default in the files `skill install` renders
    (SKILL.md; never a script, whose `${{ inputs.x }}` is not ours); other files, text that is not UTF-8 and
    placeholders of inputs without a default stay as they are. Raises RenderTooLarge past the render bound."""
    values = defaults(skill.get("inputs"))
    out = {}
    for rel, data in files.items():
        if rel not in RENDERED_FILES:
            out[rel] = data
            continue
        try:
            out[rel] = render_bytes(data, values)
        except UnicodeDecodeError:
            out[rel] = data
    return out


def raw_prefix(registry: dict) -> str | None:
    """Where, inside the site, registry.json's template puts the skills' files ("" when `{path}` is relative to
    registry.json, as a static host's is; "files/" for a template `files/{path}`), or None when the files are
    fetched from elsewhere (a commit-pinned code host, an absolute `files_url`)."""
    template = str((registry.get("repository") or {}).get("raw_url_template", ""))
    prefix, found, rest = template.partition("{path}")
    if not found or rest or "{" in prefix or "}" in prefix or urlsplit(prefix).scheme or prefix.startswith("/") \
            or any(c in prefix for c in "?#%\\:") or (prefix and not prefix.endswith("/")):
        return None
    if prefix and any(part in ("", ".", "..") for part in prefix[:-1].split("/")):
        return None
    return prefix


def served_here(registry: dict, registry_bytes: bytes, unserved: list[str]) -> tuple[dict, bytes, str | None]:
    """The registry.json a `--static-host` folder serves: for a registry whose files a commit-pinned code host
    serves (a `raw_url_template` with `{commit}`: `github`, `github-enterprise`), one that points at the copies
    the folder serves beside it (`{path}`), so `skill source add SITE/registry.json` installs from the folder it
    was added from, GitHub or not; the same bytes are served (checked against their sha256). Returns (registry,
    its bytes, a note saying so); any other registry comes back as it is, with no note. The repository's own
    registry.json, and the pages' links to the code host, are unchanged. `unserved`: own skills whose files the
    folder cannot serve (not inert in a browser); with any, the code host's template is kept, and the note says
    why and what to do."""
    template = str((registry.get("repository") or {}).get("raw_url_template", ""))
    if raw_prefix(registry) is not None or "{commit}" not in template:
        return registry, registry_bytes, None
    host = template.partition("{commit}")[0]
    if unserved:
        shown = ", ".join(unserved[:3]) + (f" and {len(unserved) - 3} more" if len(unserved) > 3 else "")
        return registry, registry_bytes, (
            f"--static-host: the served registry.json still fetches every skill's files from {host}…, because "
            f"this folder cannot serve {shown} (files that are not inert in a browser; their notes say which): "
            "clients of this folder need that host. To serve everything yourself, use host = \"static\" in "
            "[tool.skillyard] and `skillyard build --serve-dir DIR` from another origin")
    served = {**registry, "repository": {**registry["repository"], "raw_url_template": "{path}"}}
    note = (f"--static-host: the served registry.json fetches your skills' files from this folder (beside it), "
            f"not from {host}…; pointer skills still come from their own repositories")
    return served, dumps(served).encode("utf-8"), note


def raw_copy(folder: Path, entry: dict) -> tuple[str, Callable[[], bytes]]:
    """(content key, maker) of one file served where registry.json's template points: the registry's bytes as
    they are (`skill install` checks them against the sha256), read again and checked when written."""

    def make() -> bytes:
        try:
            return read_checked(folder, entry)
        except publish.UnreadableFile as exc:
            raise SkillyardError(f"{exc} (it changed while the site was built)", "Build the site again.") from None

    return "s" + entry["sha256"], make


def served_copy(skill: dict, folder: Path, entry: dict, digest: str | None = None,
                held: bytes | None = None) -> tuple[str, Callable[[], bytes]]:
    """(content key, maker) of one served file: the maker reads the source again, checks its sha256 and fills the
    inputs' defaults in (`rendered_with_defaults`), so the bytes written are always bytes registry.json vouches
    for. The key changes whenever those bytes would: the sha256 alone for a file served as it is; with the
    defaults (or `digest`, the skill's `page_cache.entry_digest`, which covers them) and the serving code for a
    rendered one. `held`: those very bytes, when this build has just read, checked and rendered them (the maker
    then hands them back instead of reading the file a second time)."""
    rel, sha = entry["path"], entry["sha256"]
    values = defaults(skill.get("inputs")) if rel in RENDERED_FILES else {}
    if not values:
        key = "s" + sha
    elif digest:
        key = "r" + hashlib.sha256(f"{staged.code_fingerprint()}\0{sha}\0{digest}".encode()).hexdigest()
    else:
        key = "r" + hashlib.sha256(json.dumps([staged.code_fingerprint(), sha, values], ensure_ascii=False,
                                              sort_keys=True).encode("utf-8")).hexdigest()
    if held is not None:
        return key, partial(bytes, held)

    def make() -> bytes:
        try:
            data = read_checked(folder, entry)
        except publish.UnreadableFile as exc:
            raise SkillyardError(f"{exc} (it changed while the site was built)", "Build the site again.") from None
        try:
            return render_bytes(data, values) if rel in RENDERED_FILES else data
        except UnicodeDecodeError:
            return data

    return key, make


def _held(entry: dict, data: bytes) -> tuple[str, Callable[[], bytes]]:
    """(content key, maker) of an upstream file already fetched and checked against `entry`'s sha256."""
    return "s" + entry["sha256"], lambda: data


def stage_well_known(registry: dict, root: Path, folder: Path, notes: list[str], reuse: bool = False,
                     folders: dict[str, Path | publish.UnreadableFile] | None = None,
                     known_problems: dict[str, list[str]] | None = None,
                     identities: dict[str, dict[str, tuple[str, Callable[[], bytes]]]] | None = None,
                     digests: dict[str, str] | None = None,
                     pointer_files: dict[str, dict[str, bytes]] | None = None,
                     raw: dict[str, dict[str, tuple[str, Callable[[], bytes]]]] | None = None,
                     archives: dict[str, tuple[str, Callable[[], bytes], str]] | None = None,
                     known_unpackable: dict[str, list[str]] | None = None) -> set[str]:
    """Decide which skills are served under the well-known path and check their files; returns the names whose
    files are served one by one (inert in a browser: the pages link them) and adds a note for every skill served
    in no form (why, and how to get it instead). Nothing is copied here: `identities` is filled with each served
    file's `served_copy` ({name: {rel: (key, maker)}}), which the output tree writes only where it lacks those bytes
    (`plan_machine_files`). A skill's sources are read and checked now unless `staged.Manifest` (`folder` +
    ".json") proves them checked before (`reuse`); `folder` itself, where older versions kept copies, is removed.
    `folders`: each skill's `skill_folder` (or why it has none) as `known_folder` found it while reading the
    bodies; `known_problems`: `publish.skill_problems` of each skill, when the caller has them already; `digests`:
    each skill's `page_cache.entry_digest`, when the caller has them.
    `pointer_files`: the upstream files of the pointer skills this build fetched and checked (`site.upstream`:
    pinned commit, every sha256, a licence that allows redistribution), served as they are (their page is the
    upstream author's, so no input defaults are filled in); other pointer skills are not served.
    `raw`: filled like `identities` with each served file's `raw_copy`, for a registry whose files the site
    serves where registry.json points (`raw_prefix`).
    `archives`: filled with {name: (key, maker, digest)} of every skill served as a `.tar.gz` for the discovery
    index (`publish.archive_problems`: active content included, an archive is never run by a browser), the same
    bytes as the copies served one by one; the digest is remembered in `folder` + "-archives.json" by the archive's
    key, so a rebuild that changed nothing reads no source to write the index. `known_unpackable`:
    `publish.archive_problems` of each skill, when the caller has them already (`problem_cache`)."""
    unpackable_of = (known_unpackable or {}).get
    manifest = staged.Manifest(folder.with_name(folder.name + ".json"), reuse, digests)
    packed = ArchiveDigests(folder.with_name(folder.name + "-archives.json"), reuse)
    if os.path.lexists(folder):
        _remove(folder)
    published: set[str] = set()
    budget = HELD_BYTES  # the checked bytes kept for the output tree (and the archive), instead of reading them again
    try:
        for skill in registry["skills"]:
            name = skill["name"]
            if "source_url" in skill:  # a pointer entry: its files are upstream (its page says so; no note needed)
                files = (pointer_files or {}).get(name)
                if files is None:
                    continue
                copies = {entry["path"]: _held(entry, files[entry["path"]]) for entry in skill["files"]}
                found = known_problems[name] if known_problems is not None else ["not fetched"]
                if not found:
                    if identities is not None:
                        identities[name] = copies
                    published.add(name)
                if archives is not None:
                    unpackable = _unpackable(skill, unpackable_of) or plan_archive(skill, copies, packed, archives)
                    if unpackable:
                        notes.append(f"skill {name!r} is not listed in /{WELL_KNOWN}/index.json (no archive): "
                                     + "; ".join(unpackable[:3]))
                continue
            problems = list(known_problems[name]) if known_problems is not None else publish.skill_problems(skill)
            unpackable = _unpackable(skill, unpackable_of)
            held: dict[str, bytes] = {}
            if not unpackable or not problems:
                try:
                    source = known_folder(skill, root, folders)
                    if not manifest.unchanged(skill, source):
                        checked_ns = staged.now_ns()
                        held = rendered_with_defaults(skill, read_skill_files(skill, root, source))
                        manifest.record(skill, source, checked_ns)
                        size = sum(map(len, held.values()))
                        held, budget = (held, budget - size) if size <= budget else ({}, budget)
                except publish.UnreadableFile as exc:  # the file types' reasons (if any) first: they decide the most
                    unpackable = [str(exc)]
                    problems = [*problems, *unpackable]
                except RenderTooLarge as exc:
                    unpackable = [f"its inputs' defaults: {exc.message}"]
                    problems = [*problems, *unpackable]
            copies = None
            if not unpackable and archives is not None:
                digest = (digests or {}).get(name)
                copies = {entry["path"]: served_copy(skill, source, entry, digest, held.get(entry["path"]))
                          for entry in skill["files"]}
                unpackable = plan_archive(skill, copies, packed, archives)
            if unpackable and not problems and archives is not None:
                notes.append(f"skill {name!r} is served file by file but not listed in /{WELL_KNOWN}/index.json (no "
                             "archive): " + "; ".join(unpackable[:3]))
            if problems:
                more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
                if unpackable:
                    where = (f"its page links the files at the pinned commit; `skill install {name}` works"
                             if raw is None else "nor beside registry.json, so this folder cannot install it; serve "
                             "`skillyard build --serve-dir` from another origin for it")
                    notes.append(f"skill {name!r} is not served under /{WELL_KNOWN}/ ({where}): "
                                 + "; ".join(problems[:3]) + more)
                elif raw is None:
                    notes.append(f"skill {name!r} is served under /{WELL_KNOWN}/ only as {name}.tar.gz, not file by "
                                 "file (its page links the files at the pinned commit): " + "; ".join(problems[:3])
                                 + more)
                else:  # archived for `npx skills`, but `skill install` from this folder needs the files
                    notes.append(f"skill {name!r} is served only as /{WELL_KNOWN}/{name}.tar.gz (for `npx skills`), "
                                 "not beside registry.json, so `skill install` from this folder cannot install it; serve "
                                 "`skillyard build --serve-dir` from another origin for it: " + "; ".join(problems[:3])
                                 + more)
                continue
            if identities is not None:
                digest = (digests or {}).get(name)
                identities[name] = copies or {entry["path"]: served_copy(skill, source, entry, digest,
                                                                         held.get(entry["path"]))
                                              for entry in skill["files"]}
            if raw is not None:
                raw[name] = {entry["path"]: raw_copy(source, entry) for entry in skill["files"]}
            published.add(name)
    except BaseException:
        packed.close()  # no compressing thread outlives a failed stage
        raise
    packed.finish(archives if archives is not None else {})
    manifest.save()
    packed.save()
    return published


HELD_BYTES = 1 << 29  # checked source bytes a build keeps in memory for writing (beyond: read again when written)


def _unpackable(skill: dict, known: Callable) -> list[str]:
    found = known(skill["name"])
    return list(found) if found is not None else publish.archive_problems(skill)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def plan_machine_files(plan, registry: dict, registry_bytes: bytes, index_bytes: bytes | None, published: set[str],
                       identities: dict[str, dict[str, tuple]], sparse: dict[str, bytes] | None = None,
                       raw: dict[str, dict[str, tuple]] | None = None,
                       archives: dict[str, tuple] | None = None) -> None:
    """Add registry.json, index.json, the sparse index and the well-known tree to the site's `output.Plan`.
    `identities`: the served files `stage_well_known` planned ({name: {rel: (key, maker)}}); only the files each
    published skill lists are planned, so nothing else is ever published. `sparse`:
    `format.sparse.sparse_files(registry)`, when the caller made it. `raw`: the `raw_copy` of each published
    skill's files, planned where registry.json's template points (`raw_prefix`); call this after the pages are
    planned, so a file that would replace one of the site's is refused by name. `archives`: what
    `stage_well_known` planned ({name: (key, maker, digest)}); the discovery index lists exactly these.

    The well-known tree: `index.json` (discovery schema 0.2.0, the one version `npx skills` reads, chosen by its
    `$schema`) lists every archive, `<name>.tar.gz` beside it; the files of the skills inert in a browser are also
    served one by one under `<name>/`, because the skills' pages link them (`sanitize`, the file tree), never
    listed in the index."""
    from skillyard.format.sparse import sparse_files

    plan.add_bytes("registry.json", registry_bytes)
    if index_bytes is None:  # no index.json beside registry.json: write what `skillyard build` would have
        index_bytes = dumps(index_document(registry)).encode("utf-8")
    plan.add_bytes("index.json", index_bytes)
    for rel, data in (sparse if sparse is not None else sparse_files(registry)).items():  # clients that read it refresh by the file (format/sparse.py)
        plan.add_bytes(f"sparse/{rel}", data)
    plan_served_files(plan, registry, published, identities, archives)
    prefix = raw_prefix(registry) if raw else None
    if prefix is not None:
        _plan_raw_files(plan, registry, prefix, published, raw)
    archives = archives or {}
    index = well_known_index(registry, {name: digest for name, (_, _, digest) in archives.items()})
    plan.add_bytes(f"{WELL_KNOWN}/index.json", dump_well_known_index(index))
    plan.add_bytes(".nojekyll", b"")  # GitHub Pages: serve dot-folders such as .well-known as they are


def plan_served_files(plan, registry: dict, published: set[str], identities: dict[str, dict[str, tuple]],
                      archives: dict[str, tuple] | None) -> None:
    """The well-known tree's copies and archives (`plan_machine_files`), which a first build starts writing
    while the pages are made (`output.write_early`)."""
    for skill in registry["skills"]:
        name = skill["name"]
        if name in published:
            planned = identities[name]
            for entry in skill["files"]:
                key, make = planned[entry["path"]]
                plan.add_lazy(f"{WELL_KNOWN}/{name}/{entry['path']}", key, make)
    for name, (key, make, _) in sorted((archives or {}).items()):
        plan.add_lazy(f"{WELL_KNOWN}/{name}.tar.gz", key, make)


def _plan_raw_files(plan, registry: dict, prefix: str, published: set[str], raw: dict[str, dict[str, tuple]]) -> None:
    taken = set(plan.files)
    for skill in registry["skills"]:
        planned = raw.get(skill["name"])  # none for a pointer entry: clients fetch it through its own template
        if planned is None or skill["name"] not in published:
            continue
        for entry in skill["files"]:
            rel = f"{prefix}{skill['path']}/{entry['path']}"
            if rel in taken or rel.partition("/")[0] in (WELL_KNOWN.partition("/")[0], "sparse") \
                    or rel in ("registry.json", "index.json"):
                raise SkillyardError(f"registry.json: skill {skill['name']!r} lists {entry['path']!r}, served at "
                                     f"/{rel}, where the site has a file of its own",
                                     "Rename the file in the skill (or move the skill's folder), then build again.")
            plan.add_lazy(rel, *planned[entry["path"]])
