"""Finding a target by name: the built-in table, then the targets installed packages contribute (entry point group
`skillyard.targets`, client/adapters.py); the built-in table is never replaced by one."""

from __future__ import annotations

from skillyard.client import adapters
from skillyard.client.target_table import TARGETS, Target
from skillyard.errors import SkillyardError


def all_targets() -> dict[str, Target]:
    """The built-in table plus the targets installed packages contribute (entry point group `skillyard.targets`)."""
    return {**TARGETS, **adapters.discover().targets}


def get(name: str) -> Target:
    if name in TARGETS:
        return TARGETS[name]
    found = adapters.discover()
    if name in found.targets:
        return found.targets[name]
    broken = "".join(f" {p}" for p in found.problems if f"'{name}'" in p)
    raise SkillyardError(f"unknown target {name!r}.{broken}",
                         f"Choose one of: {', '.join(all_targets())} (see `skill adapter list`).")


def unsupported_capabilities(target: str, capabilities) -> list[str]:
    t = get(target)
    return [c for c in (capabilities or []) if not t.supports(c)]
