"""The workflow files parsed once per distinct text.

The harness reads the same workflow files again and again: every event asks which workflows it starts, every run
which permissions each job has, every wave's contexts application all of them. PyYAML's pure-Python parser took
about 50 ms of CPU for the fourteen files each time; the text decides the result, so it is parsed once per text
and each caller gets a copy of its own (callers may change what they get)."""

from __future__ import annotations

import copy
import hashlib
import threading

import yaml

_PARSED: dict[bytes, object] = {}
_LOCK = threading.Lock()


def safe_load(text: str | bytes):
    """yaml.safe_load(text), from a cache keyed by the text's SHA-256."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    key = hashlib.sha256(data).digest()
    with _LOCK:
        hit = key in _PARSED
        parsed = _PARSED.get(key)
    if not hit:
        parsed = yaml.safe_load(data)
        with _LOCK:
            _PARSED[key] = parsed
    return copy.deepcopy(parsed)
