"""Small output helpers shared by the commands: JSON, errors, progress."""

from __future__ import annotations

import json
import sys
import time

from skillyard.errors import SkillyardError


def dump_json(data: object) -> str:
    """Stable JSON: sorted keys, UTF-8 kept, two-space indent, trailing newline."""
    return json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def print_json(data: object) -> None:
    sys.stdout.write(dump_json(data))


def visible(text: str) -> str:
    """`text` safe for a terminal: control characters (but newline and tab), bidi controls and invisible
    characters become `\\uXXXX`, so a hostile name in a message can neither move the cursor, recolour the
    terminal, reorder what is shown, nor hide part of itself."""
    from skillyard.format.safety import CONTROL, INVISIBLE

    text = CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text.replace("\r", "\\r"))
    return INVISIBLE.sub(lambda m: "".join(f"\\u{ord(c):04x}" for c in m.group()), text)


def print_error(exc: SkillyardError, *, as_json: bool = False) -> None:
    if as_json:
        payload = {"ok": False, "error": exc.message}
        if exc.fix:
            payload["fix"] = exc.fix
        print_json(payload)
    print(f"error: {visible(exc.message)}", file=sys.stderr)
    if exc.fix:
        print(f"  fix: {visible(exc.fix)}", file=sys.stderr)


class Progress:
    """A one-line progress counter on stderr, shown only on a terminal and only for work that takes a while."""

    def __init__(self, label: str, total: int, *, enabled: bool | None = None, delay: float = 0.5):
        self.label = label
        self.total = total
        self.done = 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.delay = delay
        self._last = 0.0

    def advance(self, step: int = 1) -> None:
        self.done += step
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started >= self.delay and (now - self._last >= 0.1 or self.done >= self.total):
            self._last = now
            sys.stderr.write(f"\r{self.label}: {self.done}/{self.total}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and time.monotonic() - self.started >= self.delay:
            sys.stderr.write("\n")
            sys.stderr.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
