"""The one rule for file paths inside a skill, used by every stage that touches one.

Validate, build, site, the bots and the client all ask this module; so whatever validate accepts, every later stage
can write, serve and install, and whatever a registry, tarball or archive sends that validate would refuse, the
client refuses too. Pure: no file system access.

A path is a relative POSIX path whose components are portable file names (they can be created on Linux, macOS and
Windows), that never climbs out of the folder, and that never names the metadata of a version-control system or a
tool that runs code from a folder's files (see `METADATA_NAMES`).
"""

from __future__ import annotations

import re
import unicodedata

MAX_PATH_BYTES = 1024
MAX_COMPONENT_BYTES = 255
MAX_DEPTH = 16  # components, file name included; the deepest file in a corpus of 600 real skills has 8

# Names that make a tool act on the folder they sit in: a `.git` folder's config runs commands (`core.fsmonitor`,
# hooks) on the next `git status`; `.gitmodules` and `.lfsconfig` point git at URLs; `.gitattributes` selects
# filters and diff drivers; `.envrc` is run by direnv on `cd`. Compared case-insensitively and after the
# trailing dots and spaces that Windows and macOS drop. Nothing here is ever published or installed.
METADATA_NAMES = frozenset({
    ".git", ".gitmodules", ".gitattributes", ".lfsconfig", ".hg", ".hgsub", ".hgtags", ".svn", ".bzr", "_darcs",
    "cvs", ".jj", ".pijul", ".fslckout", "_fossil_", ".repo", ".envrc",
})
# The client's own bookkeeping in an installed skill folder: a package may not ship them.
SKILL_LOCK = "skill.lock.json"
CLIENT_STATE_NAMES = frozenset({SKILL_LOCK, "evolution.json"})
# An unfinished change of skill NAME in a store folder: `.journal-NAME.json` (client.store writes it; the MCP
# server's integrity check reads it).
JOURNAL_PREFIX = ".journal-"
# A pointer folder's one file (format/pointer.py reads it): named here so that finding pointer folders costs no
# import of the pointer's parser and its licence tables.
POINTER_FILE = "source.yaml"

# Names Windows cannot create (with any extension): CON, PRN, AUX, NUL, COM0-9, LPT0-9 (and the superscript digits).
_WINDOWS_RESERVED = re.compile(r"(?i)^(con|prn|aux|nul|conin\$|conout\$|(com|lpt)[0-9\u00b9\u00b2\u00b3])(\..*)?\Z")
# NTFS short names of `.git` (`GIT~1`) reach the same folder on Windows.
_SHORT_NAME = re.compile(r"(?i)^git~[0-9]+\Z")
# Characters no portable file name holds: controls, Windows' reserved punctuation, and anything a human cannot see
# (bidi controls, zero-width and other default-ignorable characters, line and paragraph separators).
_BAD_CHAR = re.compile(
    "[\x00-\x1f\x7f-\x9f<>:\"|?*\\\\"
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)

# Controls, format characters, surrogates, private use, unassigned code points and line/paragraph separators.
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def path_problem(rel: str) -> str | None:
    """Why `rel` is not an acceptable file path inside a skill folder, or None when it is.

    The answer completes "`<rel>` ..." in a message, e.g. "climbs out of the folder with `..`".
    """
    if not isinstance(rel, str) or not rel:
        return "is empty"
    if rel.startswith("/") or re.match(r"^[A-Za-z]:", rel):
        return "is an absolute path"
    try:
        size = len(rel.encode("utf-8"))
    except UnicodeEncodeError:
        return "is not valid Unicode"
    if size > MAX_PATH_BYTES:
        return f"is {size} bytes long; the limit is {MAX_PATH_BYTES}"
    match = _BAD_CHAR.search(rel)
    if match:
        return f"contains {_describe(match.group())}, which is not allowed in file names"
    if not rel.isascii():
        for char in rel:
            if unicodedata.category(char) in _BAD_CATEGORIES:
                return f"contains {_describe(char)}, which is not allowed in file names"
    parts = rel.split("/")
    if len(parts) > MAX_DEPTH:
        return f"is {len(parts)} levels deep; the limit is {MAX_DEPTH}"
    for part in parts:
        problem = component_problem(part)
        if problem:
            return problem
    if parts[-1].casefold() in CLIENT_STATE_NAMES and len(parts) == 1:
        return f"uses the name `{parts[-1]}`, which the skill client keeps for its own bookkeeping"
    return None


def component_problem(part: str) -> str | None:
    """Why one path component (a file or folder name) is not acceptable, or None."""
    if part in ("", ".", ".."):
        return "has an empty, `.` or `..` component" if part != ".." else "climbs out of the folder with `..`"
    if ".." in part:
        return f"has `..` inside the name `{part}` (some clients read it as climbing out)"
    if len(part.encode("utf-8", "surrogatepass")) > MAX_COMPONENT_BYTES:
        return f"has a name longer than {MAX_COMPONENT_BYTES} bytes"
    if part[-1] in ". ":
        return f"has the name `{part}` ending in a dot or space, which Windows and macOS drop"
    if is_metadata(part):
        return f"contains `{part}`, the metadata of a version-control system or tool, which can run code"
    if _WINDOWS_RESERVED.match(part):
        return f"uses `{part}`, a device name Windows reserves"
    if unicodedata.normalize("NFC", part) != part:
        return f"has the name `{part}` in decomposed Unicode; save it in NFC form"
    return None


def is_metadata(name: str) -> bool:
    """True for a version-control or tool metadata name (`.git`, `CVS`, `GIT~1`, ...): never published or installed."""
    bare = name.rstrip(". ").casefold()
    return bare in METADATA_NAMES or _SHORT_NAME.match(bare) is not None


def shown(rel: str) -> str:
    """`rel` safe to print in a message: controls, invisible characters and undecodable bytes become `\\u{...}`."""
    if rel.isascii() and rel.isprintable():
        return rel
    return "".join(f"\\u{{{ord(c):04X}}}" if _BAD_CHAR.match(c) and c not in '<>:"|?*\\' or
                   unicodedata.category(c) in _BAD_CATEGORIES else c for c in rel)


def is_reserved_device_name(name: str) -> bool:
    """True for a name Windows reserves for a device (`con`, `nul.txt`, `COM1`): no folder or file can have it."""
    return _WINDOWS_RESERVED.match(name) is not None


def is_hidden(rel: str) -> bool:
    """True when any component starts with a dot: such files are never published or installed."""
    return rel.startswith(".") or "/." in rel


def collision_key(rel: str) -> str:
    """The key under which two paths name the same file on a case-insensitive file system."""
    return unicodedata.normalize("NFC", rel).casefold()


def path_set_problems(paths) -> list[tuple[str, str]]:
    """(path, problem) for names that collide in one folder: equal but for case, or a file that is also a folder."""
    out: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    for rel in sorted(paths):
        key = collision_key(rel)
        other = seen.get(key)
        if other is not None and other != rel:
            out.append((rel, f"differs from `{other}` only by letter case; case-insensitive file systems keep one"))
        elif other is None:
            seen[key] = rel
    folders = {}
    for rel in seen.values():
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            folders.setdefault(collision_key("/".join(parts[:depth])), "/".join(parts[:depth]))
    for key, rel in sorted(seen.items()):
        if key in folders:
            out.append((rel, f"is a file, but `{folders[key]}/` is also used as a folder"))
    return out


def _describe(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'control character')}"
