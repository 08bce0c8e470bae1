"""skills-ref 0.1.1 (`agentskills validate`, the standard's reference validator) accepts every skill we publish,
in the repository and as served under /.well-known/agent-skills/ (rendered with defaults)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from tests.interop.clients import REPO, run, skill_folders


def _validator() -> str:
    found = Path(sys.executable).parent / "agentskills"
    if found.exists():
        return str(found)
    if shutil.which("agentskills"):
        return shutil.which("agentskills")
    pytest.skip("skills-ref: `agentskills` is not installed (pip install skills-ref==0.1.1 failed)")


@pytest.mark.parametrize("folder", skill_folders(), ids=lambda p: p.name)
def test_every_skill_in_the_repository_is_valid(folder):
    done = run([_validator(), "validate", folder])
    assert done.returncode == 0, f"{folder.relative_to(REPO)}:\n{done.stdout}{done.stderr}"


def test_every_served_copy_is_valid(built_repo):
    served = sorted(p for p in (built_repo / "_site/.well-known/agent-skills").iterdir() if p.is_dir())
    assert served, "the site serves no skill under /.well-known/agent-skills/"
    failures = []
    for folder in served:
        done = run([_validator(), "validate", folder])
        if done.returncode != 0:
            failures.append(f"{folder.name}: {(done.stdout + done.stderr).strip()}")
    assert not failures, "\n".join(failures)
