"""Undoing the cheap disguises scripts put on a string, on literals only: base64, hex, escapes, reversal, char codes.

Each returns None when the text is not what it claims to be, so a reader folds only what really decodes.
"""

from __future__ import annotations

import base64
import binascii
import re

MAX_FOLD = 64 * 1024  # characters a folded string may reach: a loop of `+=` cannot grow one without bound
_PRINTABLE = re.compile(r"[\x20-\x7e\t\r\n]*\Z")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]{1,6}\}|[0-7]{1,3}|.)", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "e": "\x1b"}


def text(data: bytes) -> str | None:
    """Decoded bytes when they are printable text (what a command or a URL would be), else None."""
    try:
        out = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return out if _PRINTABLE.match(out) else None


def b64(value: str) -> str | None:
    compact = "".join(value.split())
    if len(compact) < 4 or len(compact) > MAX_FOLD:
        return None
    try:
        data = base64.b64decode(compact + "=" * (-len(compact) % 4), altchars=b"-_" if "-" in compact or "_" in compact
                                else None, validate=True)
    except (binascii.Error, ValueError):
        return None
    return text(data) or _utf16(data)


def _utf16(data: bytes) -> str | None:
    """PowerShell's -EncodedCommand is UTF-16LE."""
    if len(data) % 2 or data[1::2].strip(b"\0") != b"":
        return None
    try:
        return text(data.decode("utf-16-le").encode())
    except UnicodeDecodeError:
        return None


def unhex(value: str) -> str | None:
    compact = re.sub(r"\\x|0x|[\s:,]", "", value)
    if len(compact) < 2 or len(compact) > MAX_FOLD or len(compact) % 2:
        return None
    try:
        return text(bytes.fromhex(compact))
    except ValueError:
        return None


def unescape(value: str) -> str:
    """Backslash escapes as C, JavaScript, bash's `$'…'` and printf read them (`\\x63`, `\\u0063`, `\\143`)."""
    if "\\" not in value:
        return value

    def one(match: re.Match) -> str:
        code = match.group(1)
        if len(code) == 1 and code in "xu":  # `\x` or `\u` with no hex digits after it: the letter, as shells print it
            return code
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] == "u":
            number = int(code[1:].strip("{}"), 16)
            return chr(number) if number < 0x110000 else ""
        if code[0] in "01234567":
            return chr(int(code, 8))
        return _SIMPLE.get(code, code)

    return _ESCAPE.sub(one, value)


def chars(numbers: list[str]) -> str | None:
    """`String.fromCharCode(99, 117)`, `[char]99`, `[99,117].pack('c*')`: numbers to text."""
    out = []
    for number in numbers[:4096]:
        try:
            code = int(number, 0)
        except ValueError:
            return None
        if not 0 <= code < 0x110000:
            return None
        out.append(chr(code))
    return "".join(out)


def clip(value: str | None) -> str | None:
    return value if value is None or len(value) <= MAX_FOLD else value[:MAX_FOLD]
