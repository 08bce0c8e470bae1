"""No file under tests/ is named SKILL.md: skill discovery on this repository (`npx skills add <repo>
--full-depth`, an agent scanning the checkout) must offer only the skills in skills/, never a test fixture.
Fixtures are stored as SKILL.md.fixture or written into a temporary folder by the test that needs them."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tracked_under_tests() -> list[str]:
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "tests"], capture_output=True, timeout=60)
    if done.returncode == 0:
        return [p for p in done.stdout.decode("utf-8", "replace").split("\0") if p]
    return [str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("*") if p.is_file()]


def test_no_test_fixture_is_discoverable_as_a_skill():
    named = [p for p in tracked_under_tests() if Path(p).name.lower() == "skill.md"]
    assert named == [], f"rename to SKILL.md.fixture and restore the name at test time: {named}"


def test_the_migrate_fixtures_are_still_there_under_their_stored_name():
    stored = [p for p in tracked_under_tests() if p.endswith("/SKILL.md.fixture")]
    assert len(stored) >= 5, stored
