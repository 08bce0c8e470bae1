from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from skillyard.format import Policy, load_skill

GOOD_FRONTMATTER = """\
name: {name}
description: Summarises log files and points out errors. Use when a user shares logs.
license: MIT
"""
# The decided split: registry fields live in skill.yaml beside SKILL.md.
GOOD_MANIFEST = """\
schema_version: "1.0"
version: "1.0.0"
tags:
  - logs
  - debugging
"""

REGISTRY_POLICY = Policy(strict=True, required_fields=("version", "license", "tags"))


def write_skill(root: Path, name: str = "log-summary", frontmatter: str | None = None, body: str = "# Logs\n\nRead the log.\n",
                files: dict[str, str | bytes] | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    fm = GOOD_FRONTMATTER.format(name=name) if frontmatter is None else textwrap.dedent(frontmatter)
    (folder / "SKILL.md").write_text(f"---\n{fm}---\n{body}", encoding="utf-8")
    if frontmatter is None and "skill.yaml" not in (files or {}):
        (folder / "skill.yaml").write_text(GOOD_MANIFEST, encoding="utf-8")
    for rel, content in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return folder


@pytest.fixture
def make_skill(tmp_path):
    def make(*args, **kwargs):
        return write_skill(tmp_path, *args, **kwargs)
    return make


def rules_of(folder: Path, policy: Policy = REGISTRY_POLICY, severity: str | None = None) -> set[str]:
    return {f.rule for f in load_skill(folder, policy).findings if severity is None or f.severity == severity}
