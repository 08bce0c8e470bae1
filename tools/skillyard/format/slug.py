"""The one name -> slug rule (design 001 §4.2): what a free-form name becomes as a skill or registry name.

ASCII letters and digits after compatibility decomposition (accents dropped: "Café" -> "cafe"), lower-cased; every
run of anything else is one hyphen; no hyphen at either end. Callers differ only in how they shorten a long slug:
`slugify` cuts at the limit (discovery's lenient names, `init-registry`'s default name); `skill install` cuts at a
hyphen instead (client/install.py folder_name), since a folder name is read by people.
"""

from __future__ import annotations

import re
import unicodedata

MAX_LENGTH = 64
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def ascii_slug(text: str) -> str:
    """The slug of `text`, at any length ("" when it holds no ASCII letter or digit)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return _NOT_ALNUM.sub("-", ascii_text).strip("-")


def slugify(text: str, limit: int = MAX_LENGTH) -> str:
    """The slug of `text`, cut to `limit` characters (and no trailing hyphen after the cut)."""
    return ascii_slug(text)[:limit].strip("-")
