"""The format page documents every field the schema knows and every rule the validator reports."""

from __future__ import annotations

import re
from pathlib import Path

from skillyard.format.schemas import SCHEMA_FILES, load_schema

PAGE = Path(__file__).resolve().parents[2] / "site" / "pages" / "format.md"
TOOLS = Path(__file__).resolve().parents[2] / "tools" / "skillyard"


def test_every_schema_field_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    for field in load_schema(SCHEMA_FILES["frontmatter"])["properties"]:
        assert f"`{field}`" in text, field


def test_every_package_and_security_rule_is_documented():
    text = PAGE.read_text(encoding="utf-8")
    sources = "".join(p.read_text() for p in (TOOLS / "format").glob("*.py")) + (TOOLS / "registry" / "build.py").read_text()
    rules = set(re.findall(r'"((?:security|symlink|skill-md|code|file|package|too|nested|duplicate)-[a-z-]+)"', sources))
    assert rules, "no rule ids found"
    missing = sorted(r for r in rules if f"`{r}`" not in text and r not in ("symlink-dir", "symlink-broken", "file-too"))
    assert missing == []
