"""Read one skill folder: its files (hashed), frontmatter, manifest, inventory and every finding.

This is the one place in `format/` that touches the file system. It never follows a link out of the folder and
never executes anything it reads.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections import namedtuple
from functools import lru_cache
from pathlib import Path

from skillyard.format import exceptions, paths, rules
from skillyard.format.findings import Finding, error, info, strict_or_warning, warning
from skillyard.format.frontmatter import parse_skill_md
from skillyard.format.manifest import MANIFEST_ONLY_FIELDS, merge_manifest, parse_manifest
from skillyard.format.policy import Policy
from skillyard.format.portable import manifest_findings as misplaced_standard_keys
from skillyard.format.portable import metadata_findings, portability_findings
from skillyard.format.record import Record
from skillyard.format.scan import judge as security
from skillyard.format.scan import opaque as scan_opaque
from skillyard.format.scan import skill_level as scan_skill
from skillyard.format.scan import values as valuescan
from skillyard.format.scan import vendor as scan_vendor

RECOGNISED_DIRS = ("scripts", "references", "assets", "tests", "config")
BACKUP_SUFFIX = ".legacy"  # `skillyard migrate` keeps `<file>.legacy` beside each file it rewrites: never published
CODE_SUFFIXES = frozenset({".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".ps1",
                           ".bat", ".cmd", ".exe", ".dll", ".so", ".dylib", ".jar", ".go", ".rs", ".lua", ".r"})
CODE_DIRS = ("scripts/", "tests/")
BINARY_SNIFF_BYTES = 8000  # git's and GitHub's window for "is this file binary?"


class FileEntry(namedtuple("FileEntry", ("path", "size", "sha256", "executable"), defaults=(False,))):
    """One published file (path: str, size: int, sha256: str, executable: bool). A named tuple, not a frozen
    dataclass: a skill check makes one per file, and a tuple is built in a fraction of the time `object.__setattr__`
    per field takes. `collections.namedtuple`, not `typing.NamedTuple`: importing typing costs ~4 ms a command."""

    __slots__ = ()

    def to_dict(self) -> dict:
        out = {"path": self.path, "size": self.size, "sha256": self.sha256}
        if self.executable:
            out["executable"] = True
        return out


class SkillPackage(Record):
    """A checked skill folder: its frontmatter data, body, published files and findings."""

    FIELDS = ("folder", "rel_path", "name", "data", "body", "files", "findings", "inventory", "skill_md_name",
              "manifest_only", "security_exceptions")

    def __init__(self, folder: Path, rel_path: str, name: str, data: dict, body: str,
                 files: list[FileEntry] | None = None, findings: list[Finding] | None = None,
                 inventory: dict | None = None, skill_md_name: str | None = "SKILL.md", manifest_only: bool = False,
                 security_exceptions: list[dict] | None = None):
        self.folder = folder
        self.rel_path = rel_path
        self.name = name
        self.data = data
        self.body = body
        self.files = [] if files is None else files
        self.findings = [] if findings is None else findings
        self.inventory = {} if inventory is None else inventory
        self.skill_md_name = skill_md_name
        self.manifest_only = manifest_only
        self.security_exceptions = [] if security_exceptions is None else security_exceptions  # format/exceptions.py
        # Lines of the files the findings place a line in (load_skill fills it from the bytes it read; not a field,
        # so never compared, recorded or printed): verdict.placed reads only files missing here.
        self.line_counts: dict[str, int] = {}

    @property
    def valid(self) -> bool:
        return not any(f.is_error for f in self.findings)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.is_error]

    def integrity(self) -> str:
        return integrity_of(self.files)


def integrity_of(files) -> str:
    """One digest over the whole file list: sha256 of `<sha256>  <path>\\n` lines sorted by path."""
    lines = "".join(f"{f.sha256}  {f.path}\n" for f in sorted(files, key=lambda f: f.path))
    return "sha256-" + hashlib.sha256(lines.encode("utf-8")).hexdigest()


# Pure functions of a name, asked for every file of every skill: most skills repeat the same few names (SKILL.md,
# skill.yaml, scripts/..., references/...), so each process judges a name once. The caches are bounded, so a tree of
# unique names costs only the uncached price.
_path_problem = lru_cache(maxsize=8192)(paths.path_problem)
_is_metadata = lru_cache(maxsize=4096)(paths.is_metadata)
_SMALL_SET = 32  # file lists up to this long have their collisions judged once per distinct list


@lru_cache(maxsize=1024)
def _small_set_problems(rels: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return tuple(paths.path_set_problems(rels))


def _set_problems(rels: list[str]) -> list[tuple[str, str]] | tuple[tuple[str, str], ...]:
    return _small_set_problems(tuple(rels)) if len(rels) <= _SMALL_SET else paths.path_set_problems(rels)


@lru_cache(maxsize=4096)
def _name_kind(name: str, top: bool, ignored_names: frozenset[str]) -> tuple[bool, bool]:
    """(a migrate backup's name -- reported when the entry is a file, a name never published: hidden, metadata,
    ignored by policy, client state at the top). A pure function of the name, asked for every entry of every
    skill: judged once per distinct name."""
    ignored = (name in ignored_names or name.startswith(".") or paths.is_metadata(name)
               or (top and name.casefold() in paths.CLIENT_STATE_NAMES))
    return name.endswith(BACKUP_SUFFIX), ignored


def _walk(folder: Path, policy: Policy, findings: list[Finding]) -> list[tuple[str, str]]:
    """(relative posix path, absolute path to read) for every file to publish.

    Every name passes the shared path rule (`format/paths.py`), so whatever this accepts the site can serve and the
    client can install. Hidden and metadata names are skipped (never published); links and special files are checked
    here; the walk never descends below `paths.MAX_DEPTH` and stops after a bounded number of entries.
    """
    out: list[tuple[str, str]] = []
    budget = max(1000, 5 * policy.max_files)  # entries looked at, ignored ones included
    seen = 0
    stack = [("", str(folder), 0)]
    while stack:
        prefix, directory, depth = stack.pop()
        try:  # no need to sort here: the file list and the findings are sorted at the end
            entries = os.scandir(directory)
        except OSError as exc:
            findings.append(error("unreadable", f"Cannot read the folder: {exc.strerror}.", "Fix its permissions.",
                                  file=paths.shown(prefix) or "."))
            continue
        with entries:
            for entry in entries:
                seen += 1
                if seen > budget:
                    findings.append(error(
                        "too-many-files", f"The folder holds more than {budget:,} files and folders; the limit is "
                        f"{policy.max_files} files.", "Bundle or remove files.", file="."))
                    out.sort()
                    return out
                rel = prefix + entry.name
                backup, ignored = _name_kind(entry.name, not prefix, policy.ignored_names)
                if backup and entry.is_file(follow_symlinks=False):
                    findings.append(warning("migration-backup", f"`{paths.shown(rel)}` is a backup `skillyard migrate` "
                                            "kept; it is not published.", "Delete it once the migrated skill is "
                                            "checked (`skillyard migrate --no-backup` keeps none).",
                                            file=paths.shown(rel)))
                    continue
                if ignored:
                    findings.append(info("ignored-file", f"`{paths.shown(rel)}` is hidden, metadata, client bookkeeping or build output "
                                         "and is not published.", "Nothing to do if it should stay local; move anything "
                                         "the skill needs to a plain name.",
                                         file=paths.shown(rel)))
                    continue
                problem = _path_problem(rel)
                if problem is not None:
                    findings.append(error("path-unsafe", f"The path `{paths.shown(rel)}` {problem}.",
                                          "Rename it to a plain, portable name (letters, digits, `-`, `_`, one `.` "
                                          f"before the extension) at most {paths.MAX_DEPTH} folders deep.",
                                          file=paths.shown(rel)))
                    continue
                if entry.is_symlink():
                    real = _link_target(folder, entry, rel, policy.strict, findings)
                    if real is not None:
                        out.append((rel, real))
                elif entry.is_dir(follow_symlinks=False):
                    if depth + 1 >= paths.MAX_DEPTH:
                        findings.append(error(
                            "path-unsafe", f"The folder `{rel}/` is {depth + 1} levels deep: files inside it would "
                            f"exceed the limit of {paths.MAX_DEPTH} levels.",
                            "Flatten the folder structure.", file=rel))
                        continue
                    stack.append((rel + "/", entry.path, depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    out.append((rel, entry.path))
                else:
                    findings.append(error("special-file", f"`{rel}` is not a regular file (device, pipe or socket).",
                                          "Remove it.", file=rel))
    out.sort()
    return out


def _link_target(folder: Path, entry: os.DirEntry, rel: str, strict: bool, findings: list[Finding]) -> str | None:
    """The real path of a link to a file inside the folder, or None (with an error) for any other link.

    The site serves and the client installs plain files, and GitHub serves a link as its target's name, not its
    content: so a registry (strict) refuses every link, and lenient mode reads an in-folder link as its file.
    """
    try:
        target = os.readlink(entry.path)
    except OSError as exc:
        findings.append(error("unreadable", f"Cannot read the link `{rel}`: {exc.strerror}.", "Remove the link.",
                              file=rel))
        return None
    shown_target = paths.shown(target)
    if os.path.isabs(target):
        findings.append(error("symlink-absolute", f"`{rel}` is a link to the absolute path `{shown_target}`.",
                              "Replace the link with the file itself.", file=rel))
        return None
    root_real = os.path.realpath(folder)
    real = os.path.realpath(entry.path)
    if os.path.commonpath([root_real, real]) != root_real:
        findings.append(error("symlink-escape", f"`{rel}` links outside the skill folder (`{shown_target}`).",
                              "Replace the link with a copy of the file inside the folder.", file=rel))
        return None
    if os.path.isdir(real):
        findings.append(error("symlink-dir", f"`{rel}` is a link to a folder.",
                              "Replace the link with the folder's files.", file=rel))
        return None
    if not os.path.isfile(real):
        findings.append(error("symlink-broken", f"`{rel}` is a broken link (`{shown_target}`).",
                              "Remove the link.", file=rel))
        return None
    findings.append(strict_or_warning(
        strict, "symlink-file", f"`{rel}` is a link to `{shown_target}`: registries serve and install files, "
        "not links (lenient mode reads it as a copy of that file).",
        f"Replace the link with a copy of the file: `cp --remove-destination \"$(readlink {rel})\" {rel}`.",
        file=rel))
    return real


def _read_file(path: str, limit: int) -> tuple[bytes | None, int, int]:
    """(content or None when over `limit`, size, mode) in four system calls: on sandboxed machines each costs ~20 µs.

    Never follows a link that replaced the file after the walk, and never blocks on one that became a pipe."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(0, "not a regular file")
        if st.st_size > limit:
            return None, st.st_size, st.st_mode
        content = os.read(fd, st.st_size + 1)  # a short read of a regular file means end of file
        if len(content) > st.st_size:  # the file grew while we read it
            rest = [content]
            while len(content) <= limit and (chunk := os.read(fd, 1 << 16)):
                rest.append(chunk)
                content = b"".join(rest)
        if len(content) > limit:
            return None, len(content), st.st_mode
        return content, len(content), st.st_mode
    finally:
        os.close(fd)


def _text_of(rel: str, content: bytes, suffix: str) -> tuple[str | None, str | None]:
    """(text, None) for a text file, (None, None) for a binary one, (None, why) for text that is not UTF-8.

    Binary means git's rule: a NUL byte in the first 8,000 bytes (git and GitHub then show no diff), unless the suffix
    says text. Everything else is text a reviewer and a model read, so it must be UTF-8 and is scanned in full."""
    text_suffix = suffix in security.TEXT_SUFFIXES or rel in ("SKILL.md", "skill.md", "skill.yaml")
    if not text_suffix and b"\0" in content[:BINARY_SNIFF_BYTES]:
        return None, None
    try:
        return content.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        kind = f"a `{suffix}` file" if text_suffix and suffix else "text (no NUL byte in its first 8,000 bytes)"
        return None, f"`{rel}` is {kind} but not UTF-8: byte 0x{content[exc.start]:02X} at offset {exc.start:,}."


def _inventory(files: list[FileEntry], skill_md_lines: int) -> dict:
    paths = [f.path for f in files]
    scripts = [p for p in paths if p.startswith("scripts/")]
    references = [p for p in paths if p.startswith("references/") or
                  ("/" not in p and p.lower().endswith(".md") and p not in ("SKILL.md", "skill.md", "README.md"))]
    assets = [p for p in paths if p.startswith("assets/")]
    return {
        "has_scripts": bool(scripts), "has_references": bool(references), "has_assets": bool(assets),
        "script_files": scripts, "reference_files": references, "asset_files": assets,
        "total_files": len(files), "total_size": sum(f.size for f in files), "skill_md_lines": skill_md_lines,
    }


def load_skill(folder: str | os.PathLike, policy: Policy | None = None, *, rel_path: str | None = None) -> SkillPackage:
    """Read and check one skill folder. Never raises for bad content: everything becomes a finding."""
    policy = policy or Policy()
    folder = Path(folder)
    strict = policy.strict
    findings: list[Finding] = []
    walked = _walk(folder, policy, findings)
    files: list[FileEntry] = []
    texts: dict[str, str] = {}
    contents: dict[str, bytes] = {}  # each text file's bytes, which the security scan reads instead of encoding again
    opaque: list[tuple[str, bytes, str]] = []  # archives and compiled files, opened or reported after the walk
    total = 0
    for rel, problem in _set_problems([rel for rel, _ in walked]):
        findings.append(error("path-collision", f"`{rel}` {problem}.",
                              "Rename or remove one of the two: they would overwrite each other when installed.",
                              file=rel))
    for rel, real in walked:
        try:
            content, size, mode = _read_file(real, min(policy.max_file_bytes, max(0, policy.max_total_bytes - total)))
        except OSError as exc:
            findings.append(error("unreadable", f"Cannot read `{rel}`: {exc.strerror}.", "Fix its permissions.", file=rel))
            continue
        total += size
        if content is None:
            if size > policy.max_file_bytes:
                findings.append(error("file-too-large", f"`{rel}` is {size:,} bytes; the limit is {policy.max_file_bytes:,}.",
                                      "Shrink the file, or link to it from the body instead of shipping it.", file=rel))
            continue  # otherwise over the package limit, reported below: the rest is not read at all
        executable = bool(mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
        files.append(FileEntry(rel, len(content), hashlib.sha256(content).hexdigest(), executable))
        suffix = os.path.splitext(rel)[1].lower()
        text, problem = _text_of(rel, content, suffix)
        if text is not None:
            texts[rel] = text
            contents[rel] = content
            if suffix in (".js", ".mjs", ".cjs") and len(content) >= scan_opaque.MINIFIED_BYTES:
                hint = scan_opaque.minified(rel, content)
                findings += [hint] if hint else []
        elif problem is None:  # binary: an archive or compiled code is opaque, everything else is data
            what = scan_opaque.kind(rel, content)
            if what:
                opaque.append((rel, content, what))
        else:
            findings.append(error("encoding", problem, "Save it as UTF-8 text (binary files must hold a NUL byte "
                                  "in their first 8,000 bytes, as git expects).", file=rel))
        if (suffix in CODE_SUFFIXES or executable) and not rel.startswith(CODE_DIRS):
            findings.append(strict_or_warning(strict, "code-outside-scripts",
                                              f"`{rel}` is executable code outside scripts/.",
                                              "Move it under scripts/ (tests under tests/).", file=rel))
    nested = sorted(rel.rsplit("/", 1)[0] for rel, _ in walked if rel.lower().endswith("/skill.md"))
    if nested:
        findings.append(strict_or_warning(strict, "nested-skill", f"The folder contains other skills: {', '.join(nested[:5])}.",
                                          "Move nested skills out to their own folders under skills/.", file="."))
    if total > policy.max_total_bytes:
        findings.append(error("package-too-large", f"The skill's files add up to {total:,} bytes; the limit is {policy.max_total_bytes:,}.",
                              "Remove large assets or fetch them at run time from a documented URL.", file="."))
    if len(walked) > policy.max_files:
        findings.append(error("too-many-files", f"The skill has {len(walked)} files; the limit is {policy.max_files}.",
                              "Bundle or remove files.", file="."))

    skill_md_name = "SKILL.md" if "SKILL.md" in texts else ("skill.md" if "skill.md" in texts else None)
    if skill_md_name == "skill.md":
        findings.append(strict_or_warning(strict, "skill-md-case", "The instructions file is `skill.md`; runtimes look for `SKILL.md`.",
                                          "Rename it to SKILL.md.", file="skill.md"))
    manifest, manifest_lines = None, {}
    if "skill.yaml" in texts:
        manifest, manifest_lines, manifest_findings = parse_manifest(texts["skill.yaml"], strict=strict)
        findings += manifest_findings
    data: dict = {}
    body = ""
    key_lines: dict[str, int] = {}
    manifest_only = False
    if skill_md_name:
        fm = parse_skill_md(texts[skill_md_name], strict=strict, file=skill_md_name,
                            max_lines=policy.max_frontmatter_lines)
        findings += fm.findings
        data, body, key_lines = fm.data, fm.body, fm.key_lines
        if data:  # only YAML that loaded (so bounded) is looked at again
            findings += portability_findings(data, fm.raw, strict=strict, file=skill_md_name, key_lines=key_lines,
                                             folder=str(folder), bom=texts[skill_md_name].startswith("\ufeff"))
        subject = data.get("name") if isinstance(data.get("name"), str) else folder.name
        homes = scan_vendor.declared_homes({**data, **(manifest or {})})  # its own site: an installer there is the vendor's
        if any(f.rule == "frontmatter-unclosed" for f in fm.findings):  # no body: scan the whole file
            findings += security.scan_text(texts[skill_md_name], skill_md_name, markup="markdown",
                                           raw=contents[skill_md_name], skill_name=subject, homes=homes)
        else:
            findings += security.scan_text(body, skill_md_name, line_offset=fm.body_line - 1, markup="markdown",
                                           skill_name=subject, homes=homes)
        if data:  # the frontmatter's values, which reach every agent's index (the YAML starts on line 2)
            findings += valuescan.scan_values(data, skill_md_name, fm.raw, first_line=2, key_lines=key_lines)
        if manifest is not None:
            data, merge_findings = merge_manifest(data, manifest, manifest_lines=manifest_lines)
            findings += merge_findings
            findings += misplaced_standard_keys(manifest, manifest_lines, strict=strict, folder=str(folder))
        findings += metadata_findings(fm.data, data, strict=strict, file=skill_md_name, key_lines=key_lines,
                                      folder=str(folder))
    elif manifest is not None:
        manifest_only = True
        findings.append(strict_or_warning(strict, "skill-md-missing", "The skill has skill.yaml but no SKILL.md.",
                                          f"Run `skillyard migrate --to-standard {folder}` to write the equivalent portable SKILL.md.", file="SKILL.md"))
        data = {k: v for k, v in manifest.items() if k not in MANIFEST_ONLY_FIELDS}
        body = str(manifest.get("system_prompt") or "")
        key_lines = manifest_lines
        findings += security.scan_text(body, "skill.yaml", markup="markdown")
    elif not any(f.rule == "encoding" for f in findings) and not {"SKILL.md", "skill.md"} & {r for r, _ in walked}:
        findings.append(error("skill-md-missing", "The folder has no SKILL.md.",
                              "Add a SKILL.md with `name` and `description` frontmatter (`skill init` writes one).",
                              file="SKILL.md"))
    if data or skill_md_name or manifest_only:
        field_findings = rules.check_frontmatter(
            data, body, strict=strict, file=skill_md_name or "skill.yaml", key_lines=key_lines,
            folder_name=folder.name, required_fields=policy.required_fields)
        field_findings += rules.resource_findings(data, (f.path for f in files), file=skill_md_name or "skill.yaml",
                                                  key_lines=key_lines)
        if skill_md_name and manifest:
            field_findings = located_in_manifest(field_findings, manifest, manifest_lines, fm.data)
        findings += field_findings
    subject = data.get("name") if isinstance(data.get("name"), str) else folder.name
    homes = scan_vendor.declared_homes({**data, **(manifest or {})})  # as for SKILL.md: skill.yaml's wins
    for rel, text in texts.items():
        if rel != skill_md_name:
            scanned = security.scan_text(text, rel, markup=security.markup_of(rel), raw=contents[rel],
                                         skill_name=subject, homes=homes)
            findings += scanned
            if rel == "skill.yaml" and manifest is not None:  # its parsed values: escapes, folded lines, keys
                findings += valuescan.scan_values(manifest, rel, text, first_line=1, key_lines=manifest_lines,
                                                  covered=scanned)
    if opaque:
        findings += scan_opaque.scan(opaque, {f.path for f in files}, security.scan_text, security.markup_of,
                                     security.TEXT_SUFFIXES, subject)
    skill_level = scan_skill.scan_skill(data, texts, skill_md_name, findings, key_lines)
    findings = scan_skill.drop_repeats(findings, skill_level) + skill_level
    allowed: list[dict] = []
    if manifest is not None and exceptions.FIELD in manifest:  # reviewed exceptions: the findings stay, allowed
        allowed, invalid, entry_lines = exceptions.parse(
            manifest[exceptions.FIELD], text=texts["skill.yaml"], key_line=manifest_lines.get(exceptions.FIELD),
            files={f.path for f in files})
        findings = exceptions.apply(findings, allowed, lines=entry_lines) + invalid
    name = data.get("name") if isinstance(data.get("name"), str) else folder.name
    skill_md_lines = texts[skill_md_name].count("\n") + 1 if skill_md_name else 0
    findings.sort(key=Finding.sort_key)
    package = SkillPackage(folder=folder, rel_path=rel_path if rel_path is not None else folder.name, name=name,
                           data=data, body=body, files=files, findings=_dedupe(findings),
                           inventory=_inventory(files, skill_md_lines), skill_md_name=skill_md_name,
                           manifest_only=manifest_only, security_exceptions=allowed)
    package.line_counts = _line_counts(package.findings, contents, walked, str(folder))
    return package


def _line_counts(findings: list[Finding], contents: dict[str, bytes], walked: list[tuple[str, str]],
                 folder: str) -> dict[str, int]:
    """Lines of each plain file (read here, not through a link) that a finding places a line in: what
    `verdict.placed` needs, counted from the bytes already read instead of reading the file a second time."""
    named = {f.file for f in findings if f.file and f.line is not None and f.file in contents}
    if not named:
        return {}
    plain = {rel for rel, real in walked if rel in named and real == os.path.join(folder, rel)}
    return {rel: contents[rel].count(b"\n") + 1 for rel in plain}


def top_key(field: str) -> str:
    """The top-level key a finding's field path starts with: `inputs` for `inputs[0].default`."""
    return field.split(".", 1)[0].split("[", 1)[0]


def located_in_manifest(findings: list[Finding], manifest: dict, manifest_lines: dict[str, int],
                        frontmatter: dict | None) -> list[Finding]:
    """The rules run on the merged fields with SKILL.md's lines; a finding about a field only skill.yaml holds
    names skill.yaml and that key's line there, so an author is sent to the file that holds the value."""
    frontmatter = frontmatter if isinstance(frontmatter, dict) else {}
    own = {str(k) for k in frontmatter}
    only_manifest = {str(k) for k in manifest if str(k) not in own}
    out = []
    for finding in findings:
        key = top_key(finding.field) if finding.field else None
        if key in only_manifest:
            finding = Finding(finding.rule, finding.severity, finding.message, finding.fix, "skill.yaml",
                              manifest_lines.get(key), finding.field, digest=finding.digest)
        out.append(finding)
    return out


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set = set()
    out = []
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            out.append(finding)
    return out
