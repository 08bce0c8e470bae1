"""The skill format: schemas, frontmatter parsing and rules. Pure, except `package` which reads a folder.

Names are imported on first use, so a module that needs only `format.findings` does not pay for the parser.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "Finding": "findings",
    "Severity": "findings",
    "Frontmatter": "frontmatter",
    "parse_skill_md": "frontmatter",
    "split_frontmatter": "frontmatter",
    "SkillPackage": "package",
    "load_skill": "package",
    "Policy": "policy",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"skillyard.format.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'skillyard.format' has no attribute {name!r}")
