"""Guard for issue 14 target 4 (search): at 2,000 skills, our index and queries beside plain SQLite FTS5 on the same
data, in the same test. Fails only on a large regression of the ratio — never on an absolute time (the figures
themselves come from `nox -s bench`, benchmarks/bench_client_search.py)."""

from __future__ import annotations

import importlib.util
import sqlite3
import statistics
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_client_search.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_client_search", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _median_query_ms(db, query, queries, rounds=5) -> float:
    samples = []
    for _ in range(rounds):
        for q in queries:
            started = time.perf_counter()
            query(db, q)
            samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def test_search_stays_within_a_small_factor_of_plain_fts5(tmp_path):
    from skillyard.client.search import build_index, query_index

    bench = _bench()
    skills = bench.synthetic_registry(2000)["skills"]
    builds = {"ours": [], "plain": []}
    for run in range(3):
        started = time.perf_counter()
        build_index(tmp_path / f"ours-{run}.sqlite", [("bench", 100, s) for s in skills])
        builds["ours"].append(time.perf_counter() - started)
        started = time.perf_counter()
        bench.plain_build(tmp_path / f"plain-{run}.sqlite", skills).close()
        builds["plain"].append(time.perf_counter() - started)
    ours_db = sqlite3.connect(tmp_path / "ours-0.sqlite")
    plain_db = sqlite3.connect(tmp_path / "plain-0.sqlite")
    ours_ms = _median_query_ms(ours_db, query_index, bench.QUERIES)
    plain_ms = _median_query_ms(plain_db, bench.plain_query, bench.QUERIES)
    build_ratio = statistics.median(builds["ours"]) / statistics.median(builds["plain"])
    # Today: about 1x for queries (typo tolerance and CJK pairs included) and 1.3x for the build.
    assert ours_ms / plain_ms < 8, (ours_ms, plain_ms)
    assert build_ratio < 8, builds
    # The same answers a user expects, at this scale too.
    assert query_index(ours_db, "skill-00042")[0].name == "skill-00042"
    assert query_index(ours_db, "invoise") and query_index(ours_db, "发票")
