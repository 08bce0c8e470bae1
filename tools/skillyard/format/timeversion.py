"""The version of a skill that declares none: `0.0.<UTC yyyymmddhhmmss>` (design 001 §4.2's time stamp).

Why this form: it is SemVer-valid, and SemVer precedence orders it by time against itself (one numeric patch,
always 14 digits, no leading zero), while `0.0.0-<time>` (a pre-release, below 0.0.0) and `0.0.0+<time>` (build
metadata, ignored by precedence) would not. Any version an author writes from `0.1.0` up outranks it.

Which time, so the same inputs give the same version: a registry entry's is the committer time of the last commit
that touched the skill's folder (its `updated_at`), except a pointer entry's, which is its pinned upstream commit's
(`upstream.committed_at`, `format.pointer.Pointer.version`): the registry's own commits to a pointer (a recorded
verification, `checked_at`) change no file a client installs, so they must not move its version; a local folder's is its newest published file's modification
time; a `github:` install's is its commit's time (codeload tarballs stamp every file with it) and an archive's the
newest time of the skill folder's members. Pure: a time in, text out.
"""

from __future__ import annotations

import re

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z", re.ASCII)
UNKNOWN = "0.0.0"  # no time known (a folder never committed): below every time-based version


def from_timestamp(seconds: float) -> str:
    """The version of a skill last changed at `seconds` since the epoch (UTC)."""
    import datetime  # only where a local folder is installed
    moment = datetime.datetime.fromtimestamp(int(seconds), datetime.UTC)
    return "0.0." + moment.strftime("%Y%m%d%H%M%S").lstrip("0")


def from_iso(updated_at: str | None) -> str:
    """The version of a registry entry whose last change is `updated_at` (`YYYY-MM-DDTHH:MM:SSZ`), else UNKNOWN."""
    match = _ISO.fullmatch(updated_at) if isinstance(updated_at, str) else None
    return "0.0." + "".join(match.groups()).lstrip("0") if match else UNKNOWN


def declared_or(data: dict, fallback: str) -> str:
    """The skill's own `version` when it declares one, else `fallback` (a time-based version)."""
    version = data.get("version") if isinstance(data, dict) else None
    return str(version) if version not in (None, "") else fallback
