"""Guard for issue 14 target 3 (site): at 300 skills, our build from scratch beside mkdocs-material building the
same number of plain Markdown pages (the yardstick), and our rebuild after one skill changed, in the same test.
Fails only on a large regression of a ratio — never on an absolute time (the figures themselves come from
`nox -s bench`, benchmarks/bench_site.py)."""

from __future__ import annotations

import importlib.util
import logging
import resource
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "benchmarks" / "bench_site.py"
SKILLS = 300


def _bench():
    spec = importlib.util.spec_from_file_location("bench_site", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cpu_seconds(work) -> float:
    """CPU time of `work` in this process and its worker processes (wall time would measure the other jobs on a
    shared machine as much as ours)."""
    def total() -> float:
        usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
        return sum(u.ru_utime + u.ru_stime for u in usage)

    before = total()
    work()
    return total() - before


def test_site_build_stays_within_a_small_factor_of_plain_mkdocs(tmp_path):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from skillyard.site.builder import build_site

    bench = _bench()
    root = tmp_path / "repo"
    bench.make_registry(root, SKILLS)
    bench.plain_docs(root, tmp_path / "plain-docs")
    config = REPO / "mkdocs.yml"

    def yardstick() -> None:
        logger = logging.getLogger("mkdocs")
        level = logger.level
        logger.setLevel(logging.ERROR)  # plain pages link nowhere mkdocs knows; its warnings are noise here
        try:
            build(load_config(config_file=str(config), docs_dir=str(tmp_path / "plain-docs"),
                              site_dir=str(tmp_path / "plain-site")), dirty=False)
        finally:
            logger.setLevel(level)

    def ours(cache: bool):
        return lambda: build_site(root / "registry.json", root, tmp_path / "site", config=config,
                                  work_dir=tmp_path / "work", use_cache=cache)

    plain_seconds = _cpu_seconds(yardstick)
    scratch_seconds = _cpu_seconds(ours(cache=True))  # the cache was empty: from scratch, and it fills it
    ours(cache=True)()  # the second output tree (site/output.py): a rebuild then finds its tree as it left it
    bench.touch_one(root, 1)
    incremental_seconds = _cpu_seconds(ours(cache=True))

    assert (tmp_path / "site/skills").is_dir() and len(list((tmp_path / "site/skills").iterdir())) == SKILLS
    ratio = scratch_seconds / plain_seconds
    print(f"site guard: ours {scratch_seconds:.2f} s CPU, plain mkdocs {plain_seconds:.2f} s, ratio {ratio:.2f}, "
          f"incremental {incremental_seconds:.2f} s")
    assert ratio < 4, f"ours {scratch_seconds:.2f} s CPU vs plain mkdocs {plain_seconds:.2f} s: {ratio:.1f}x"
    assert incremental_seconds < 0.75 * scratch_seconds, (
        f"a one-skill rebuild took {incremental_seconds:.2f} s CPU of a {scratch_seconds:.2f} s full build")
