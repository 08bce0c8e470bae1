"""Encoded text made readable before it is judged: base64, hex, `\\xNN` and `\\uNNNN` escapes, percent-encoding,
HTML character references and rot13.

Only candidate runs are decoded, each found by a pattern that starts with a literal or by the byte classes the judge
already computed, and everything is bounded: at most `MAX_RUNS` runs per file, each at most `MAX_RUN` characters,
decoded at most `MAX_DEPTH` levels deep (base64 inside base64). A run counts only when it decodes to text a model
reads: valid UTF-8, mostly printable, with a space in it (an image, a hash or a key decodes to bytes, not prose).
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import re
from urllib.parse import unquote

MAX_RUNS = 40
MAX_TRIES = 200  # candidate runs looked at per file and encoding
MAX_RUN = 64 * 1024
MAX_DEPTH = 2
MIN_BASE64 = 24  # characters: 18 bytes, a short sentence

# Where to look: runs of base64 characters in the judge's byte classes (1 for `A-Za-z0-9+/`), each found with
# `bytes.find` (which skips ahead by the needle's length) and ended by the next byte of another class. A run counts as base64 when it holds a capital, a small letter and a digit
# or `+`/`/` (encoded prose has all three; words, paths and identifiers lack one), as hex when all of it is hex.
_RUN_NEEDLE = bytes([1]) * MIN_BASE64
_B64_CLASSES = bytes(1 if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "+/") else 0 for c in range(256))
_HEX_DIGITS = "0123456789abcdefABCDEF"
_HEX_ESCAPES = re.compile(rf"\\x[0-9A-Fa-f]{{2}}(?:\\x[0-9A-Fa-f]{{2}}){{5,{MAX_RUN // 4}}}")
_UNICODE_ESCAPES = re.compile(r"\\u[0-9A-Fa-f]{4}(?:[^\\\"'\n]{0,40}\\u[0-9A-Fa-f]{4}){2,400}[^\\\"'\n]{0,40}")
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}(?:[^\s%\"'<>]{0,20}%[0-9A-Fa-f]{2}){3,200}[^\s%\"'<>]{0,40}")
_ENTITIES = re.compile(r"&#(?:[0-9]{2,6}|x[0-9A-Fa-f]{2,5});(?:[^&\n]{0,10}&#(?:[0-9]{2,6}|x[0-9A-Fa-f]{2,5});){4,400}")
_ROT13_MARKS = (b"rot13", b"ROT13", b"Rot13", b"rot_13", b"ROT_13", b"rot-13", b"ROT-13", b"'rot13'")
_PRINTABLE_SHARE = 0.9
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffd]")


def _readable(data: bytes) -> str | None:
    """The bytes as text a model would read, or None (binary, control bytes, no word break)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < 8 or " " not in text:
        return None
    controls = len(_CONTROLS.findall(text))
    return text if controls <= (1 - _PRINTABLE_SHARE) * len(text) else None


def _base64(run: str) -> str | None:
    stripped = run.rstrip("=")
    if len(stripped) % 4 == 1:
        return None
    padded = stripped + "=" * (-len(stripped) % 4)
    try:
        data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _readable(data)


def runs(text: str, classes: bytes | None = None, depth: int = 1, raw: bytes | None = None) -> list[tuple[int, str, str]]:
    """(index in `text`, encoding, decoded text) for each encoded run that decodes to readable text; the decoded
    text is searched again (to `MAX_DEPTH`) and its own runs reported at the same index. `classes` is the judge's
    byte classification (1 for a base64 character): when given, a file without a run of `MIN_BASE64` of them
    skips the base64 search. `raw`, when given, must be the text's UTF-8 bytes: the marks of each encoding (all
    ASCII, so the same bytes wherever they occur in UTF-8) are looked for there, a byte search."""
    out: list[tuple[int, str, str]] = []
    if raw is None:
        raw = text.encode("utf-8", "surrogatepass")
    if classes is None:
        classes = raw.translate(_B64_CLASSES)
    if _RUN_NEEDLE in classes:
        ascii_text = len(classes) == len(text)  # one byte per character
        byte_at = char_at = 0  # a byte offset and its character offset, moved forward run by run
        end = 0
        for _ in range(MAX_TRIES):
            start = classes.find(_RUN_NEEDLE, end)
            if start < 0 or len(out) >= MAX_RUNS:
                break
            end = classes.find(b"\x00", start + MIN_BASE64)  # the classes are 0 or 1: a run ends at a 0 (memchr)
            end = len(classes) if end < 0 else end
            if end - start > MAX_RUN:
                continue
            if ascii_text:
                run = text[start:end]
            else:  # a byte offset: the run itself is ASCII, its place in the text is counted once
                run = raw[start:end].decode("ascii")
                char_at += len(raw[byte_at:start].decode("utf-8", "ignore"))
                byte_at = start
                start = char_at
            while text[start + len(run):start + len(run) + 1] == "=" and run.count("=") < 2:
                run += "="
            # string methods, not regexes (one C pass each, no match object): a run is `[A-Za-z0-9+/]` and up to two
            # `=`; hex when all of it is hex digits in pairs (16 or more), base64 when it holds a capital, a small
            # letter, and a digit or `+`/`/` (what is left when the letters are not all of it)
            if len(run) >= 32 and not len(run) % 2 and not run.strip(_HEX_DIGITS):
                decoded, kind = _readable(bytes.fromhex(run)), "hex"
            elif run.lower() != run and run.upper() != run and not run.rstrip("=").isalpha():
                decoded, kind = _base64(run), "base64"
            else:
                continue
            if decoded:
                out.append((start, kind, decoded))
    backslash = b"\\" in raw  # one byte, found by memchr: most files have none, and then neither escape
    if backslash and b"\\x" in raw:
        for match in _HEX_ESCAPES.finditer(text):
            try:
                decoded = _readable(codecs.escape_decode(match.group().encode("ascii"))[0])
            except (ValueError, UnicodeEncodeError):
                decoded = None
            if decoded:
                out.append((match.start(), "hex escapes", decoded))
    if backslash and b"\\u" in raw:
        for match in _UNICODE_ESCAPES.finditer(text):
            start = max(text.rfind(" ", 0, match.start()), text.rfind("\n", 0, match.start()),
                        text.rfind('"', 0, match.start()), text.rfind("'", 0, match.start()), match.start() - 40) + 1
            decoded = re.sub(r"\\u([0-9A-Fa-f]{4})|\\x([0-9A-Fa-f]{2})",
                             lambda m: chr(int(m.group(1) or m.group(2), 16)), text[start:match.end()])
            if " " in decoded:
                out.append((start, "unicode escapes", decoded))
    if b"%" in raw:
        for match in _PERCENT.finditer(text):
            start = max(text.rfind(" ", 0, match.start()), text.rfind("\n", 0, match.start()),
                        match.start() - 60) + 1
            run = text[start:match.end()]
            decoded = unquote(run.replace("+", " "), errors="strict") if _decodes_percent(run) else ""
            if " " in decoded:
                out.append((start, "percent-encoding", decoded))
    if b"&" in raw and b"&#" in raw:
        for match in _ENTITIES.finditer(text):
            decoded = html.unescape(match.group())
            if " " in decoded:
                out.append((match.start(), "HTML character references", decoded))
    if b"13" in raw and _says_rot13(raw):
        # The file says it uses rot13: its quoted strings are read shifted back.
        for match in re.finditer(r"([\"'])([A-Za-z ,.!?']{12,2000})\1", text):
            if len(out) >= MAX_RUNS:
                break
            out.append((match.start(), "rot13", codecs.decode(match.group(2), "rot13")))
    out = out[:MAX_RUNS]
    if depth < MAX_DEPTH:
        for index, kind, decoded in list(out):
            for _, inner_kind, inner in runs(decoded, None, depth + 1)[:4]:
                out.append((index, f"{kind}, then {inner_kind}", inner))
    return out


_ROT13_HEADS = (b"rot", b"ROT", b"Rot", b"rot_", b"ROT_", b"rot-", b"ROT-")  # what precedes `13` in each mark


def _says_rot13(raw: bytes) -> bool:
    """Whether one of `_ROT13_MARKS` occurs: each is a `13` after one of `_ROT13_HEADS`, so the few places of `13`
    (numbers, dates) are looked at instead of searching the whole file once per mark; a file with many falls back
    to those searches."""
    at = raw.find(b"13")
    for _ in range(64):
        if at < 0:
            return False
        if raw[max(0, at - 4):at].endswith(_ROT13_HEADS):
            return True
        at = raw.find(b"13", at + 1)
    return any(mark in raw for mark in _ROT13_MARKS)


def _decodes_percent(run: str) -> bool:
    try:
        unquote(run, errors="strict")
    except UnicodeDecodeError:
        return False
    return True
