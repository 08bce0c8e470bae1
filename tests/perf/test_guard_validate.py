"""Guards for issue 14's targets 1 and 2 at small scale: they fail on a large regression of a RATIO, never on an
absolute time (the machine may be busy; both sides of a ratio run in the same test, alternating).

- validate: ours (every file read, scanned and hashed) against skills-ref 0.1.1's `validate()` (SKILL.md only) on
  the same 300 synthetic skills, in this process (no start-up on either side). The target is 5x skills-ref's
  throughput; here ours runs about 6x (2026-11-26), and this fails only below 2x.
- build: an incremental build after one skill changed against a from-scratch build of the same registry. The target
  at 20,000 skills is 8 s vs 1 s; this fails only if incremental is not clearly faster (under 1.5x: a cache that is not used
  gives about 1x)."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SKILLS = 300
BUILD_SKILLS = 500  # an incremental build's fixed cost (a few git calls) must not dominate
RUNS = 3
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
BODY = "".join(f"{i}. Step {i}: read the table, check the schema and write the summary.\n" for i in range(1, 30))


def _make_registry(root: Path, count: int) -> list[Path]:
    """`count` valid standard-first skills (the standard's keys in SKILL.md, the registry's in skill.yaml) in a git
    repository, each with a script, a reference and an asset."""
    (root / "pyproject.toml").write_text('[tool.skillyard]\nname = "guard"\nrepository = "guard/skills"\n'
                                         'required_fields = ["version", "license", "tags"]\n')
    folders = []
    for index in range(count):
        name = f"skill-{index:04d}"
        folder = root / "skills" / name
        (folder / "scripts").mkdir(parents=True)
        (folder / "references").mkdir()
        (folder / "assets").mkdir()
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Checks tables number {index}. Use when "
                                         f"the user asks about table {index}.\nlicense: MIT\n---\n# {name}\n\n{BODY}")
        (folder / "skill.yaml").write_text(f'schema_version: "1.0"\nversion: "1.{index % 7}.0"\ntags: [tables]\n')
        (folder / "scripts" / "run.py").write_text(f"import sys\nprint('skill {index}', sys.argv[1:])\n")
        (folder / "references" / "guide.md").write_text(f"# Guide {index}\n\n{BODY[:600]}")
        (folder / "assets" / "template.txt").write_text(f"template for {name}\n" * 5)
        folders.append(folder)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "skills"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=GIT_ENV)
    return folders


def _wall(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def test_validate_stays_faster_than_skills_ref(tmp_path, monkeypatch):
    skills_ref = pytest.importorskip("skills_ref")
    from skillyard.registry.build import collect
    from skillyard.registry.config import load_registry_config
    from skillyard.registry.load import check_folders

    monkeypatch.setenv("CI", "1")  # cache off, as the issue measures
    folders = _make_registry(tmp_path, SKILLS)
    config = load_registry_config(tmp_path)
    policy = config.policy("lenient")
    pairs = collect(tmp_path, config)
    checked = check_folders(pairs, policy, outputs=False)  # as validate does; also the first, import-paying run of each side
    assert len(checked) == SKILLS and all(c.valid for c in checked)  # the work measured is real and complete
    assert not any(skills_ref.validate(folder) for folder in folders)
    ratios = []
    for _ in range(RUNS):
        ours = _wall(lambda: check_folders(pairs, policy, outputs=False))
        theirs = _wall(lambda: [skills_ref.validate(folder) for folder in folders])
        ratios.append(theirs / ours)
    print(f"validate throughput vs skills-ref at {SKILLS} skills: {sorted(round(r, 2) for r in ratios)}")
    assert statistics.median(ratios) >= 2.0, (
        f"validate is under twice skills-ref's speed on {SKILLS} skills (throughput ratios {ratios}; target 5x): "
        "profile `skillyard validate` (python -m cProfile -s tottime) for what regressed")


def test_incremental_build_stays_much_faster_than_from_scratch(tmp_path, monkeypatch):
    from skillyard.registry.build import build_registry

    monkeypatch.delenv("CI", raising=False)  # the incremental build needs the cache
    _make_registry(tmp_path, BUILD_SKILLS)
    first = build_registry(tmp_path, use_cache=True)  # fills the cache
    assert first.skill_count == BUILD_SKILLS and not first.invalid
    ratios = []
    for change in range(RUNS + 1):  # the first round warms up (git's and the cache's first incremental pass)
        target = tmp_path / "skills" / f"skill-{change * 37:04d}" / "SKILL.md"
        target.write_text(target.read_text() + f"\nChange {change}.\n")
        subprocess.run(["git", "-C", str(tmp_path), "commit", "-qam", f"change {change}"], check=True, env=GIT_ENV)
        full = incremental = None

        def from_scratch():
            nonlocal full
            full = build_registry(tmp_path, use_cache=False)  # never reads nor writes the cache

        def with_cache():
            nonlocal incremental
            incremental = build_registry(tmp_path, use_cache=True)

        ratio = _wall(from_scratch) / _wall(with_cache)
        assert incremental.outputs == full.outputs  # the incremental build gives the bytes a full one gives
        assert incremental.outputs != first.outputs  # and it did see the change
        if change:
            ratios.append(ratio)
    print(f"from-scratch / incremental build at {BUILD_SKILLS} skills: {sorted(round(r, 2) for r in ratios)}")
    assert statistics.median(ratios) >= 1.5, (
        f"an incremental build after one change is not much faster than a full one at {BUILD_SKILLS} skills "
        f"(ratios {ratios}; target 8x at 20,000): check that the cache reuses unchanged skills (registry/load.py)")
