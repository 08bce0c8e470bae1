"""The conversions design 004 (ApexBridge's Claude-compatible packages) asks of its migration tool, as pure
functions `registry/migrate.py` plans with: a `METADATA.yml` read as frontmatter fields, the skill's implementation
moved out of a code block in the body into `scripts/`, and the legacy `permissions` turned into `security`.

Nothing here touches the file system; every refusal is a SkillyardError naming the file, the field and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from skillyard.errors import SkillyardError
from skillyard.format.yamlload import DuplicateKeyError, YAMLLimitError, YAMLParseError, load_with_lines

METADATA_FILES = ("METADATA.yml", "METADATA.yaml")
MAX_METADATA_BYTES = 256 * 1024
# The fence languages of the code the design runs, and the file each becomes.
CODE_LANGS = {"typescript": "ts", "ts": "ts", "javascript": "js", "js": "js"}
# The design's "基本格式": the implementation is the block exporting `execute`; any other block is an example.
_ENTRY = re.compile(r"^[ \t]*export\s+(?:default\s+)?(?:async\s+)?function(?:\s*\*)?\s*execute\s*\(", re.MULTILINE)
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^\r\n]*\Z")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n|\Z)")
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")  # str.splitlines splits there; Markdown does not
LEGACY_ENTRIES = ("scripts/execute.ts", "scripts/execute.js", "scripts/main.ts", "scripts/main.js",
                  "scripts/index.ts", "scripts/index.js")
SECURITY_COPIED = ("timeout_ms", "memory_mb", "environment", "requires_filesystem", "network_allowlist")


def load_metadata(text: str, file: str) -> dict:
    """METADATA.yml's fields (bounded like skill.yaml), or a refusal naming the file and the problem."""
    try:
        data, _ = load_with_lines(text, max_bytes=MAX_METADATA_BYTES)
    except YAMLLimitError as exc:
        raise SkillyardError(f"{file}: {exc.message}", f"{exc.fix} Nothing was changed.") from None
    except DuplicateKeyError as exc:
        raise SkillyardError(f"{file}:{exc.line}: the key `{exc.key}` appears twice.",
                             "Keep one of them. Nothing was changed.") from None
    except YAMLParseError as exc:
        line = f":{exc.problem_mark.line + 1}" if exc.problem_mark else ""
        raise SkillyardError(f"{file}{line}: not valid YAML ({exc.problem or exc}).",
                             "Check indentation and quoting. Nothing was changed.") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise SkillyardError(f"{file}: not a mapping of `field: value` lines.", "Fix it. Nothing was changed.")
    return data


@dataclass(frozen=True)
class CodeBlock:
    start: int      # offset of the opening fence line in the body
    end: int        # offset just after the closing fence line (or the end of the body)
    code: str
    suffix: str     # "ts" or "js"

    @property
    def path(self) -> str:
        return f"scripts/execute.{self.suffix}"


def code_blocks(body: str) -> list[CodeBlock]:
    """Every top-level fenced TypeScript/JavaScript block (CommonMark's fence rule; an unclosed one runs to the end)."""
    lines, offset = [], 0
    for line in _lines(body) if _OTHER_BREAKS.search(body) else body.splitlines(keepends=True):
        lines.append((offset, line))
        offset += len(line)
    out: list[CodeBlock] = []
    index = 0
    while index < len(lines):
        start, line = lines[index]
        opening = _FENCE_OPEN.match(line.rstrip("\r\n"))
        index += 1
        if not opening or (opening.group(2)[0] == "`" and "`" in line.rstrip("\r\n")[len(opening.group(1)) +
                                                                                 len(opening.group(2)):]):
            continue
        fence, indent = opening.group(2), len(opening.group(1))
        dedent = re.compile(f"^ {{0,{indent}}}") if indent else None
        content: list[str] = []
        end = len(body)
        while index < len(lines):
            offset, inner = lines[index]
            index += 1
            bare = inner.rstrip("\r\n")
            stripped = bare.lstrip(" ")
            if len(bare) - len(stripped) <= 3 and stripped.startswith(fence[0] * len(fence)) and \
                    not stripped.strip(fence[0]).strip():
                end = offset + len(inner)
                break
            content.append(dedent.sub("", inner) if dedent else inner)
        lang = opening.group(3).lower()
        if lang in CODE_LANGS:
            out.append(CodeBlock(start, end, "".join(content), CODE_LANGS[lang]))
    return out


def _lines(body: str) -> list[str]:
    """Lines split at CR, LF and CR LF only (str.splitlines also splits at form feeds and other separators)."""
    return [m.group() for m in _LINE.finditer(body) if m.group()]


def entry_block(body: str, file: str = "SKILL.md") -> CodeBlock | None:
    """The one block holding the skill's implementation (it exports `execute`), or None; two are refused."""
    found = [block for block in code_blocks(body) if _ENTRY.search(block.code)]
    if len(found) > 1:
        raise SkillyardError(
            f"{file}: {len(found)} code blocks export `execute`; design 004 has one entry script.",
            "Keep the implementation in one block (or move it to scripts/execute.ts yourself) and run migrate "
            "again. Nothing was changed.")
    return found[0] if found else None


def body_without(body: str, block: CodeBlock) -> str:
    """The body with the block replaced by a pointer to the script, in the body's own line ending."""
    newline = "\r\n" if "\r\n" in body else "\n"
    pointer = f"The implementation is in [`{block.path}`]({block.path}) (`resources.entry` in skill.yaml).{newline}"
    return body[:block.start] + pointer + body[block.end:]


def permissions_to_security(permissions: object, security: object, file: str) -> tuple[dict, list[str]]:
    """Design 004's "旧的 `permissions` 字段可迁移为 `security`": the network and file system policy, merged with an
    existing `security` (two different values are refused). Returns the new `security` and notes for the author."""
    if not isinstance(permissions, dict):
        raise SkillyardError(f"{file}: `permissions` is not a map.", "Make it a map or delete it. Nothing was changed.")
    if security is not None and not isinstance(security, dict):
        raise SkillyardError(f"{file}: `security` is not a map.", "Make it a map or delete it. Nothing was changed.")
    converted: dict = {}
    notes: list[str] = []

    def put(key: str, value: object, source: str) -> None:
        if key in converted and converted[key] != value:
            raise SkillyardError(f"{file}: `permissions.{source}` and another permission both set "
                                 f"`security.{key}`, differently.", "Keep one of them. Nothing was changed.")
        converted[key] = value

    for key, value in permissions.items():
        if key == "network":
            for name, item in _network(value, file).items():
                put(name, item, key)

        elif key == "filesystem":
            put("filesystem", _filesystem(value, file), key)
        elif key in ("hosts", "allowlist", "network_allowlist"):
            if not (isinstance(value, list) and all(isinstance(host, str) and host for host in value)):
                raise SkillyardError(f"{file}: `permissions.{key}` is {value!r}, not a list of hosts.",
                                     "List the hosts, one `- https://api.example.com` line each. Nothing was changed.")
            put("network_allowlist", value, key)
        elif key in SECURITY_COPIED:
            put(key, value, key)
        else:
            raise SkillyardError(
                f"{file}: `permissions.{key}` has no place in design 004's `security` (timeout_ms, memory_mb, "
                "network, network_allowlist, filesystem, environment).",
                f"Delete `permissions.{key}` or move what it means into `security` by hand. Nothing was changed.")
    if permissions.get("network") is True and "network_allowlist" not in converted:
        notes.append("`permissions.network: true` let the skill reach any host; `security.network` is now "
                     "\"allowlist\" with no hosts: list the ones it needs under `security.network_allowlist`.")
    merged = dict(security or {})
    for key, value in converted.items():
        if key in merged and merged[key] != value:
            raise SkillyardError(
                f"{file}: `permissions` gives `security.{key}` the value {value!r} but `security.{key}` is "
                f"{merged[key]!r} (manifest-conflict).",
                "Make the two agree or delete `permissions`, then run migrate again. Nothing was changed.")
        merged[key] = value
    return merged, notes


def _network(value: object, file: str) -> dict:
    if value in (False, None, "none", "off", "false"):
        return {"network": "none"}
    if value is True or value == "allowlist":
        return {"network": "allowlist"}
    if isinstance(value, list) and all(isinstance(host, str) and host for host in value):
        return {"network": "allowlist", "network_allowlist": value}
    raise SkillyardError(f"{file}: `permissions.network` is {value!r}; design 004 knows `none` or an allowlist.",
                         "Use `true`, `false` or a list of hosts. Nothing was changed.")


def _filesystem(value: object, file: str) -> str:
    if value in (False, None, "none", "off", "false"):
        return "none"
    if value is True or value in ("read-only", "readonly", "read_only", "read", "ro"):
        return "read-only"
    raise SkillyardError(f"{file}: `permissions.filesystem` is {value!r}; design 004's sandbox allows `none` or "
                         "`read-only`, no writing.",
                         "Set it to `none` or `read-only` (a skill writes its results through the runtime), then run "
                         "migrate again. Nothing was changed.")
