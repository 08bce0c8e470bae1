"""Shared helpers for the example-skill tests: where the skills live and how to run their scripts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SKILLS_DIR = Path(__file__).resolve().parents[2] / "skills"


def run_script(skill: str, script: str, *args: str, stdin: str | None = None, cwd: Path | None = None,
               ) -> subprocess.CompletedProcess:
    """Run a skill's script the way an agent would: `python scripts/X.py ...` from the skill folder."""
    folder = SKILLS_DIR / skill
    path = folder / "scripts" / script
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, str(path), *args], cwd=cwd or folder, input=stdin, capture_output=True,
                          text=True, encoding="utf-8", env=env, timeout=60)


@pytest.fixture
def run():
    return run_script
