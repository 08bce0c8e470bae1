"""The labelled sets, copied out as real skill folders (`SKILL.fixture.md` becomes `SKILL.md`) for the scanner."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).parent
KINDS = ("malicious", "benign")
FIXTURE_NAME = "SKILL.fixture.md"


def materialize(kind: str, into: Path) -> list[Path]:
    """Copy every sample of `kind` under `into` as a skill folder; returns the folders in name order."""
    folders = []
    for sample in sorted((ROOT / kind).iterdir()):
        if not (sample / FIXTURE_NAME).is_file():
            continue
        target = into / kind / sample.name
        shutil.copytree(sample, target)
        (target / FIXTURE_NAME).rename(target / "SKILL.md")
        folders.append(target)
    return folders
