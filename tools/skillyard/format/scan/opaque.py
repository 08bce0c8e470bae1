"""Opaque content is a finding, not a blind spot: archives inside a skill are opened (bounded) and what they hold is
judged by the same scanner; compiled code or bytecode without its source is reported.

- Archives (`.zip`, `.jar`, `.whl`, `.tar`, `.tar.gz`/`.tgz`, `.tar.bz2`, `.tar.xz`): at most `MAX_ENTRIES` entries
  and `MAX_TOTAL` uncompressed bytes are read (each member at most `MAX_MEMBER`; compressed tar streams are inflated
  with an output cap, so a bomb costs no more than the cap), within `MAX_SECONDS`, one level deep. Each text member
  goes through `judge.scan_text` as `archive.zip!inner/path`; an archive inside the archive, a password-protected
  member, or an archive that could not be read to the end is a finding of its own.
- Compiled code: ELF, Mach-O and PE executables and libraries, `.pyc` without its `.py`, Java `.class`, WebAssembly.
  Without source beside it, nobody can review what runs: an error naming the file. With source in the skill, a
  warning (the binary may still differ from it). Minified JavaScript (a big file of very long lines) is a warning:
  its text is still scanned, but a reviewer cannot read it.

Pure like the rest of the scanner: bytes in, findings out; nothing is extracted to disk or run.
"""

from __future__ import annotations

import io
import re
import time
import zlib

from skillyard.format.findings import Finding, Severity

MAX_ENTRIES = 500
MAX_TOTAL = 16 * 1024 * 1024
MAX_MEMBER = 2 * 1024 * 1024
MAX_SECONDS = 2.0
MINIFIED_BYTES = 20_000  # a JavaScript file this large whose lines average over `MINIFIED_LINE` characters
MINIFIED_LINE = 1_000

ZIP_SUFFIXES = (".zip", ".jar", ".whl", ".nupkg", ".vsix", ".xpi", ".crx", ".apk")
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".rs", ".go", ".zig", ".swift", ".m", ".java", ".kt",
                    ".cs", ".py", ".wat", ".ts", ".asm", ".s")
_NATIVE_LIBS = (".so", ".dll", ".dylib", ".exe", ".node")
_MAGIC = ((b"\x7fELF", "an ELF executable or library"), (b"MZ", "a Windows (PE) executable or library"),
          (b"\xcf\xfa\xed\xfe", "a Mach-O executable"), (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
          (b"\xfe\xed\xfa\xcf", "a Mach-O executable"), (b"\xfe\xed\xfa\xce", "a Mach-O executable"),
          (b"\x00asm", "WebAssembly"))
_TEXT_HINT = 8000


def suffix_of(rel: str) -> str:
    low = rel.lower()
    for suffix in TAR_SUFFIXES:
        if low.endswith(suffix):
            return suffix
    name = low.rsplit("/", 1)[-1]
    return name[name.rfind("."):] if "." in name else ""


def kind(rel: str, content: bytes) -> str | None:
    """What opaque thing a binary file is ("archive", a compiled kind's words), or None: a cheap test of the suffix
    and the first bytes, asked of every binary file."""
    suffix = suffix_of(rel)
    if suffix in ZIP_SUFFIXES or suffix in TAR_SUFFIXES:
        return "archive"
    if suffix == ".pyc":
        return "Python bytecode"
    if suffix == ".class" and content[:4] == b"\xca\xfe\xba\xbe":
        return "Java bytecode"
    if content[:4] == b"\xca\xfe\xba\xbe" and suffix != ".class":
        return "a Mach-O universal binary"
    for magic, words in _MAGIC:
        if content.startswith(magic) and (magic != b"MZ" or b"PE\0\0" in content[:1024]):
            return words
    if suffix in _NATIVE_LIBS:
        return "a compiled library or program"
    return None


def scan(opaque: list[tuple[str, bytes, str]], paths: set[str], scan_text, markup_of, text_suffixes,
         skill_name: str = "") -> list[Finding]:
    """Findings for each (path, bytes, kind) the package found opaque. `scan_text` and `markup_of` are the judge's
    (passed in, so this module needs nothing above it); `paths` are every published file, for "is the source here"."""
    found: list[Finding] = []
    for rel, content, what in sorted(opaque):
        if what == "archive":
            found += _archive(rel, content, scan_text, markup_of, text_suffixes, skill_name)
        else:
            found.append(_compiled(rel, what, paths))
    return found


def _compiled(rel: str, what: str, inner_paths) -> Finding:
    stem = rel.rsplit(".", 1)[0] if "." in rel.rsplit("/", 1)[-1] else rel
    name = stem.rsplit("/", 1)[-1].split(".")[0]
    if rel.endswith(".pyc"):  # `x.cpython-312.pyc` in __pycache__ is compiled from some `x.py`
        has_source = any(p == f"{name}.py" or p.endswith(f"/{name}.py") for p in inner_paths)
    elif rel.endswith(".class"):
        has_source = any(p.endswith((f"/{name}.java", f"/{name}.kt")) or p in (f"{name}.java", f"{name}.kt")
                         for p in inner_paths)
    else:  # a native binary: any compiled language's source in the skill
        has_source = any(p.endswith(_SOURCE_SUFFIXES) and not p.endswith((".py", ".ts", ".java", ".kt"))
                         for p in inner_paths)
    if has_source:
        return Finding("security-opaque-code", Severity.WARNING,
                       f"`{rel}` is {what}; its source ships beside it, but nobody can check the compiled file "
                       "matches it.", "Ship only the source and build it at install time, or document how the "
                       "binary is built and its checksum.", rel, None)
    return Finding("security-opaque-code", Severity.ERROR,
                   f"`{rel}` is {what} and the skill ships no source for it: what it does when run cannot be "
                   "reviewed.", "Ship the source under scripts/ instead of the compiled file.", rel, None)


# A published build's banner: `/*! Chart.js v4.4.1 | (c) 2024 Chart.js Contributors | MIT License */`,
# `/** @license React v18.2.0 …`: a package name and an exact version, as npm and CDNs ship it.
_BANNER = re.compile(rb"\A\s*/\*[!*]?\s*(?:@license\s+)?[@\w./ -]{1,60}?\s+v?\d+\.\d+\.\d+[\w.+-]*\b[^\n]{0,200}?"
                     rb"(?:MIT|BSD|Apache|ISC|MPL|License|\(c\)|Copyright)", re.I)


def minified(rel: str, content: bytes) -> Finding | None:
    """A warning for minified JavaScript: a large file whose lines average over `MINIFIED_LINE` characters."""
    if len(content) < MINIFIED_BYTES or not rel.lower().endswith((".js", ".mjs", ".cjs")):
        return None
    lines = content.count(b"\n") + 1
    if len(content) // lines < MINIFIED_LINE or _BANNER.match(content, 0, 400):
        return None  # readable, or a published library's build that names itself and its version (still scanned)
    return Finding("security-opaque-code", Severity.WARNING,
                   f"`{rel}` is minified JavaScript ({len(content):,} bytes in {lines} lines): "
                   "its text is scanned, but a reviewer cannot read what it does.",
                   "Ship the readable source (or name the published package and version it comes from).", rel, None)


def _members(rel: str, content: bytes, deadline: float):
    """(inner path, bytes or None when skipped, note) for each member, bounded; a last (None, None, why) when the
    archive was not read to its end."""
    import tarfile  # here, not at import: most skills ship no archive, and every validate would pay for them
    import zipfile

    suffix = suffix_of(rel)
    total = 0
    if suffix in ZIP_SUFFIXES:
        try:
            archive = zipfile.ZipFile(io.BytesIO(content))
            infos = archive.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            yield None, None, f"it cannot be read as a zip archive ({type(exc).__name__})"
            return
        for count, info in enumerate(infos):
            if count >= MAX_ENTRIES or total >= MAX_TOTAL or time.monotonic() > deadline:
                yield None, None, f"only its first {count} entries were read (the scan's bound)"
                return
            if info.is_dir():
                continue
            if info.flag_bits & 0x1:
                yield info.filename, None, "encrypted"
                continue
            try:
                with archive.open(info) as handle:
                    data = handle.read(MAX_MEMBER + 1)
            except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, zlib.error, RuntimeError):
                yield info.filename, None, "unreadable"
                continue
            total += len(data)
            yield info.filename, data[:MAX_MEMBER], "truncated" if len(data) > MAX_MEMBER else ""
        return
    data, complete = _inflate(suffix, content)
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:")  # noqa: SIM115  (a generator: closed after the loop)
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        yield None, None, f"it cannot be read as a tar archive ({type(exc).__name__})"
        return
    count = 0
    try:
        for member in archive:
            if count >= MAX_ENTRIES or time.monotonic() > deadline:
                yield None, None, f"only its first {count} entries were read (the scan's bound)"
                return
            count += 1
            if not member.isfile():
                continue
            handle = archive.extractfile(member)
            body = handle.read(MAX_MEMBER + 1) if handle else b""
            yield member.name, body[:MAX_MEMBER], "truncated" if len(body) > MAX_MEMBER else ""
    except (tarfile.TarError, OSError, EOFError, ValueError, zlib.error):
        pass
    archive.close()
    if not complete:
        yield None, None, f"it unpacks to more than {MAX_TOTAL:,} bytes; only that much was read"


def _inflate(suffix: str, content: bytes) -> tuple[bytes, bool]:
    """The tar stream inside a compressed tarball, at most `MAX_TOTAL` bytes, and whether that is all of it."""
    import bz2
    import lzma

    try:
        if suffix in (".tar.gz", ".tgz"):
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            data = inflater.decompress(content, MAX_TOTAL)
            return data, not inflater.unconsumed_tail
        if suffix in (".tar.bz2", ".tbz2"):
            inflater = bz2.BZ2Decompressor()
            data = inflater.decompress(content, MAX_TOTAL)
            return data, inflater.eof
        if suffix in (".tar.xz", ".txz"):
            inflater = lzma.LZMADecompressor()
            data = inflater.decompress(content, MAX_TOTAL)
            return data, inflater.eof
    except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError):
        return b"", False
    return content, True


def _archive(rel: str, content: bytes, scan_text, markup_of, text_suffixes, skill_name: str) -> list[Finding]:
    found: list[Finding] = []
    deadline = time.monotonic() + MAX_SECONDS
    members: list[tuple[str, bytes]] = []
    problems: list[tuple[Severity, str]] = []
    for inner, data, note in _members(rel, content, deadline):
        if inner is None:
            problems.append((Severity.WARNING, note))
            continue
        inner = inner.lstrip("./") or inner
        if data is None:
            severity = Severity.ERROR if note == "encrypted" else Severity.WARNING
            problems.append((severity, f"`{inner}` is {'password-protected' if note == 'encrypted' else 'unreadable'}"))
            continue
        members.append((inner, data))
    inner_paths = {inner for inner, _ in members}
    code = 0
    for inner, data in members:
        shown = f"{rel}!{inner}"
        suffix = suffix_of(inner)
        if suffix in ZIP_SUFFIXES or suffix in TAR_SUFFIXES:
            problems.append((Severity.WARNING, f"it holds another archive, `{inner}`, which is not opened"))
            continue
        compiled = kind(inner, data)
        if compiled and compiled != "archive":
            found.append(_compiled(shown, compiled, inner_paths))
            continue
        if suffix not in text_suffixes and b"\0" in data[:_TEXT_HINT]:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        code += suffix in (".py", ".sh", ".js", ".ps1", ".rb", ".bat", ".cmd", ".ts", ".mjs", ".cjs", ".pl", ".php")
        found += scan_text(text, shown, markup=markup_of(inner), raw=data, skill_name=skill_name)
        hint = minified(shown, data)
        if hint:
            found.append(hint)
    for severity, why in problems[:5]:
        found.append(Finding("security-archive", severity, f"The archive `{rel}` cannot be fully reviewed: {why}.",
                             "Ship the files themselves instead of an archive, so they are reviewed and scanned.",
                             rel, None))
    if code and not problems:
        found.append(Finding("security-archive", Severity.WARNING,
                             f"The archive `{rel}` holds {code} script(s) that reviewers do not see on the skill's "
                             "page (they were scanned: findings name them as `archive!path`).",
                             "Ship the scripts themselves under scripts/ instead of inside an archive.", rel, None))
    return found
