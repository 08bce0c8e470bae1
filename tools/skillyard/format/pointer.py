"""Pointer entries: a skill folder holding `source.yaml` lists a skill that lives in its own repository.

The file pins the upstream repository, folder and commit, names the ref a bump follows, and records the facts the
registry publishes (every file's path, size, sha256 and executable bit; the metadata read from the upstream
SKILL.md at that commit), so registry.json is compiled from it with no network. Its shape is
`schemas/source.schema.json`; this module parses it (bounded: it is outside input like any skill file), checks what
a schema cannot say (the path rule, colliding names, the folder name), and turns it into a registry entry.
Pure: text in, findings and data out.
"""

from __future__ import annotations

import hashlib
import re

from skillyard.format import licence_facts, paths
from skillyard.format.findings import Finding, error

POINTER_FILE = paths.POINTER_FILE
MAX_BYTES = 512 * 1024  # 1,000 files at ~200 bytes each, plus the metadata
GITHUB_RAW = "https://raw.githubusercontent.com"
VERIFICATION_FIX = ("Leave `verification` to the tools: a new pin is `verified: false`, and the bot records a "
                    "maintainer's approval when the PR that set the pin merges.")
HEADER = ("# A pointer entry: the skill lives in its own repository, pinned to `upstream.commit`.\n"
          "# Written by `skillyard external add`; edit only `registry` (extra tags, a display name).\n")


class Pointer:
    """A parsed, checked source.yaml: `data` is the document as the schema describes it."""

    __slots__ = ("data",)

    def __init__(self, data: dict):
        self.data = data

    @property
    def upstream(self) -> dict:
        return self.data["upstream"]

    @property
    def skill(self) -> dict:
        return self.data["skill"]

    @property
    def name(self) -> str:
        return self.data["name"]

    @property
    def files(self) -> list[dict]:
        return self.data["files"]

    @property
    def verification(self) -> dict:
        """The `verification` block (empty when absent: a pin nobody approved yet)."""
        return dict(self.data.get("verification") or {})

    @property
    def verified(self) -> bool:
        return self.verification.get("verified") is True

    @property
    def version(self) -> str | None:
        """The upstream `version`, else the time version of the pinned commit's date, else None (undated pin)."""
        from skillyard.format.timeversion import from_iso

        declared = self.skill.get("version")
        if declared:
            return declared
        committed = self.upstream.get("committed_at")
        return from_iso(committed) if committed else None

    @property
    def source_url(self) -> str:
        return f"https://github.com/{self.upstream['repository']}"

    def entry(self, registry_path: str) -> dict:
        """The registry.json entry (without `updated_at`, which the build takes from the registry's git history).

        A versionless upstream skill's `version` is made from the pinned commit's date (`upstream.committed_at`):
        it moves when the pin moves and never with this registry's own commits (a daily `checked_at`, a recorded
        approval), which would announce updates that change no file. It is None only for a pointer written before
        that date was recorded: the build then dates it from its source.yaml's last commit, as before.

        `path` and `commit` say where the files are, as for any entry, but in the upstream repository: a client
        fetches them through `source.raw_url_template`. Registry-side tags are added after the upstream ones;
        a registry-side display name is used only when upstream has none. `verified` is always there (false
        until a maintainer approved the PR that set this pin); `verification` holds the other recorded fields."""
        skill, upstream, extra = self.skill, self.upstream, self.data.get("registry") or {}
        files = [dict(f) for f in sorted(self.files, key=lambda f: f["path"])]
        for f in files:
            if not f.get("executable"):
                f.pop("executable", None)
        tags = list(skill.get("tags") or [])
        tags += [t for t in extra.get("tags") or [] if t not in tags]
        entry: dict = {
            "name": self.name, "description": skill["description"], "version": self.version, "tags": tags,
            "path": upstream["path"], "commit": upstream["commit"], "files": files,
            "integrity": integrity(files), "inventory": inventory(files, skill.get("skill_md_lines", 0)),
            "capabilities": list(skill.get("capabilities") or []), "mcp_deps": list(skill.get("mcp_deps") or []),
            "inputs": list(skill.get("inputs") or []), "findings": list(self.data.get("findings") or []),
            # the registry's finding (external add's lookup, or --license), not the raw frontmatter value: the
            # frontmatter may say "Complete terms in LICENSE.txt", which the lookup already followed
            "license": self.data["license"],
            "source_url": self.source_url,
            "source": {"host": upstream["host"], "repository": upstream["repository"], "tracks": upstream["tracks"],
                       "raw_url_template": f"{GITHUB_RAW}/{upstream['repository']}/{{commit}}/{{path}}",
                       "pointer": f"{registry_path}/{POINTER_FILE}"},
        }
        for key in ("display_name", "author", "maintainers", "homepage", "compatibility", "allowed_tools",
                    "metadata", "runtime"):
            if key in skill:
                entry[key] = skill[key]
        if licence_facts.set_by_registry(self.data):  # the registry's word, not upstream's (format/licence_facts)
            entry["source"]["license_source"] = licence_facts.REGISTRY
        if skill["name"] != self.name:  # `external add --name`: listed here under another name than upstream's
            entry["source"]["declared_name"] = skill["name"]
        if "display_name" not in entry and extra.get("display_name"):
            entry["display_name"] = extra["display_name"]
        if extra.get("security_exceptions"):  # reviewed here: a client honours an exception only from its entry
            entry["security_exceptions"] = [dict(e) for e in extra["security_exceptions"]]
        entry["verified"] = self.verified
        recorded = {k: v for k, v in self.verification.items() if k != "verified"}
        if recorded:
            entry["verification"] = recorded
        return entry


def integrity(files: list[dict]) -> str:
    """The registry's digest over a file list (as `format.package.integrity_of`)."""
    lines = "".join(f"{f['sha256']}  {f['path']}\n" for f in sorted(files, key=lambda f: f["path"]))
    return "sha256-" + hashlib.sha256(lines.encode("utf-8")).hexdigest()


def inventory(files: list[dict], skill_md_lines: int) -> dict:
    """What `format.package` reports of a folder's files, from the recorded list."""
    names = [f["path"] for f in files]
    scripts = [p for p in names if p.startswith("scripts/")]
    references = [p for p in names if p.startswith("references/") or
                  ("/" not in p and p.lower().endswith(".md") and p not in ("SKILL.md", "skill.md", "README.md"))]
    assets = [p for p in names if p.startswith("assets/")]
    return {"has_scripts": bool(scripts), "has_references": bool(references), "has_assets": bool(assets),
            "script_files": scripts, "reference_files": references, "asset_files": assets,
            "total_files": len(files), "total_size": sum(f["size"] for f in files), "skill_md_lines": skill_md_lines}


def read_pointer_file(path: str) -> tuple[str, None] | tuple[None, Finding]:
    """(text, None), or (None, the problem): never follows a link, never reads past `MAX_BYTES`."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return None, _problem(f"cannot be read ({exc.strerror}); a link is never followed",
                              f"Make {POINTER_FILE} a plain file.")
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, _problem("is not a regular file", f"Make {POINTER_FILE} a plain file.")
        data = os.read(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:
        return None, _problem(f"the file is over {MAX_BYTES:,} bytes", "A pointer lists at most 1,000 files; "
                              "point at a smaller folder.")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, _problem(f"is not UTF-8 (byte offset {exc.start:,})", "Save it as UTF-8.")


def _problem(message: str, fix: str, *, field: str | None = None, line: int | None = None) -> Finding:
    return error("pointer-invalid", f"{POINTER_FILE}: {message}", fix, file=POINTER_FILE, line=line, field=field)


def _field_of(path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_pointer(text: str, *, folder_name: str | None = None) -> tuple[Pointer | None, list[Finding]]:
    """(Pointer or None, findings) for the text of a source.yaml; every error names the field, line and fix."""
    from skillyard.format.schemas import schema_errors
    from skillyard.format.yamlload import DuplicateKeyError, YAMLParseError, load_with_lines

    redo = "Write it again with `skillyard external add` (edit only the `registry` block by hand)."
    if len(text) > MAX_BYTES // 4 and len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        return None, [_problem(f"the file is over {MAX_BYTES:,} bytes", "A pointer lists at most 1,000 files; "
                               "point at a smaller folder.")]
    try:
        data, lines = load_with_lines(text, max_bytes=MAX_BYTES)
    except DuplicateKeyError as exc:
        return None, [_problem(f"a key appears twice ({exc})", "Keep one of them.")]
    except YAMLParseError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else None
        return None, [_problem(f"not valid YAML ({exc.problem or exc})", redo, line=line)]
    if not isinstance(data, dict):
        return None, [_problem("the file must be a YAML mapping", redo)]
    findings = []
    for problem in schema_errors("source", data)[:20]:
        where = list(problem.absolute_path)
        missing = re.match(r"'([^']{1,64})' is a required property", problem.message)
        if problem.validator == "required" and missing:  # name the missing key itself
            where.append(missing.group(1))
        field = _field_of(where) or None
        line = lines.get(str(where[0])) if where else None
        message, fix = problem.message[:300], redo
        if where and where[0] == "verification":
            fix = VERIFICATION_FIX
            if problem.validator == "not":
                message = "approved_by, approved_in and approved_at are recorded only with `verified: true`"
        findings.append(_problem(f"`{field or 'the document'}`: {message}", fix, field=field, line=line))
    if findings:
        return None, findings
    upstream = data["upstream"]
    folder = upstream["path"]
    if folder and paths.path_problem(folder):
        findings.append(_problem(f"`upstream.path` {paths.path_problem(folder)}",
                                 "Name a plain folder inside the repository.", field="upstream.path",
                                 line=lines.get("upstream")))
    seen = set()
    for i, item in enumerate(data["files"]):
        rel = item["path"]
        problem = paths.path_problem(rel) or ("is hidden; hidden files are never published" if paths.is_hidden(rel)
                                              else None) or ("is listed twice" if rel in seen else None)
        seen.add(rel)
        if problem:
            findings.append(_problem(f"`files[{i}].path` `{paths.shown(rel)}` {problem}", redo,
                                     field=f"files[{i}].path", line=lines.get("files")))
    for rel, problem in paths.path_set_problems(seen):
        findings.append(_problem(f"the file `{paths.shown(rel)}` {problem}", redo, field="files",
                                 line=lines.get("files")))
    if "SKILL.md" not in seen and "skill.yaml" not in seen:  # skill.yaml alone: design 000's skill.yaml-only skill
        findings.append(_problem("`files` lists no SKILL.md (nor a skill.yaml)", redo, field="files",
                                 line=lines.get("files")))
    findings += _exception_problems(data, seen, lines.get("registry"))
    name = data["name"]
    if folder_name is not None and folder_name != name:
        findings.append(_problem(f"the folder is `{paths.shown(folder_name)}` but `name` is `{name}`",
                                 f"Rename the folder to `{name}`.", field="name", line=lines.get("name")))
    return (None if findings else Pointer(data)), findings


def _exception_problems(data: dict, files: set[str], line: int | None) -> list[Finding]:
    """What the schema cannot say about reviewed exceptions: each names a scanner rule and a listed file, once; and
    a recorded `error` finding is only there because one of them allows it."""
    from skillyard.format.exceptions import EXCEPTABLE_RULES

    problems, seen = [], set()
    for i, entry in enumerate((data.get("registry") or {}).get("security_exceptions") or []):
        where = f"registry.security_exceptions[{i}]"
        key = (entry["rule"], entry["file"])
        if entry["rule"] not in EXCEPTABLE_RULES:
            problems.append(_problem(f"`{where}.rule` `{entry['rule']}` is not a rule an exception may allow",
                                     f"Use one of: {', '.join(sorted(EXCEPTABLE_RULES))}.", field=where, line=line))
        elif entry["file"] not in files:
            problems.append(_problem(f"`{where}.file` `{paths.shown(entry['file'])}` is not one of the pinned files",
                                     "Name a file listed under `files`.", field=where, line=line))
        elif key in seen:
            problems.append(_problem(f"`{where}` allows `{key[0]}` in `{paths.shown(key[1])}` twice",
                                     "Keep one entry.", field=where, line=line))
        seen.add(key)
    for i, finding in enumerate(data.get("findings") or []):
        if finding["severity"] == "error" and not finding.get("allowed"):
            problems.append(_problem(f"`findings[{i}]` is an error that no reviewed exception allows: the pin does "
                                     "not pass the checks", "Write the pointer again with `skillyard external add`.",
                                     field=f"findings[{i}]", line=None))
    return problems


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def dump_pointer(data: dict) -> str:
    """The canonical text of a source.yaml: the header comment, then the keys in a fixed order. The same data gives
    the same bytes; `parse_pointer` reads back exactly `data`."""
    import yaml

    order = ("schema_version", "name", "upstream", "license", "license_source", "skill", "registry", "files",
             "findings", "verification")
    ordered = {key: _sorted(data[key]) for key in order if key in data}
    ordered["files"] = sorted(ordered["files"], key=lambda f: f["path"])
    body = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=100000, default_flow_style=False)
    return HEADER + body
