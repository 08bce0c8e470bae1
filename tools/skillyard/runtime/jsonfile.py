"""Read a JSON file the runtime keeps (cache, approvals) with a size bound, so a damaged or planted file is a
clear miss instead of a memory blow-up or a RecursionError from deep nesting. `format/` has no shared JSON loader."""

from __future__ import annotations

import json
import os


class JSONFileError(ValueError):
    """The file is too large, not UTF-8, not JSON, or nested too deeply to load."""


def read_json(path: str | os.PathLike, max_bytes: int) -> object:
    """The parsed file; JSONFileError for anything but a readable, bounded JSON document. OSError passes through."""
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise JSONFileError(f"{path}: larger than {max_bytes} bytes")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise JSONFileError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise JSONFileError(f"{path}: nested too deeply") from None
