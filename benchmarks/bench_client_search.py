"""Search latency of the `skill` client at registry scale.

Measures, with N synthetic skills (10,000; 2,000 with --quick) in one cached source:
- index build time (in process),
- query latency p50/p95 in process over English words, prefixes, typos, multi-word and CJK queries,
- the whole `skill search` command via subprocess: the first run after a registry change (builds the index)
  and warm runs (median of several).

No network: the registry is written straight into a throw-away $SKILLCLI_HOME cache with a long cache.ttl.
Writes benchmarks/results/client_search.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_TOPICS = ("invoice pdf receipt git commit review test docker deploy cloud sql query chart plot excel csv json "
           "yaml lint format translate summarize email calendar slack jira ticket security audit scan image resize "
           "video audio transcribe markdown docs website scrape search index vector embed prompt agent browser "
           "terraform kubernetes helm ansible backup restore migrate schema api rest graphql auth oauth token")
WORDS = tuple(_TOPICS.split(" "))
CJK = ["处理发票", "数据分析", "翻译文档", "代码审查", "图片压缩", "会议纪要", "邮件回复", "报表生成"]
QUERIES = ["invoice", "inv", "invoise", "pdf merge", "kubernetes", "kube", "terrafrom", "发票", "数据", "docs",
           "security audit", "transcribe", "graphq", "markdwn", "skill-00042"]


def _pseudo_words(count: int, rng: random.Random) -> list[str]:
    syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vor", "de", "qui", "pla", "nex", "or", "tri", "zu", "bel"]
    words: set[str] = set()
    while len(words) < count:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def synthetic_registry(count: int, seed: int = 7, *, dense: bool = False) -> dict:
    """`dense`: every description is made of the 70 topic words only (each topic word is in ~15% of skills, a
    stress case). Otherwise descriptions mix one or two topic words with a 5,000-word Zipf-distributed
    vocabulary, closer to how real skill descriptions spread over many words."""
    rng = random.Random(seed)
    vocab = _pseudo_words(5000, rng)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    skills = []
    for i in range(count):
        words = rng.sample(WORDS, 3)
        filler = rng.sample(WORDS, 8) if dense else rng.choices(vocab, weights=weights, k=10)
        desc = f"{words[0].title()} {words[1]} helper: " + " ".join(filler) + "."
        if i % 10 == 0:
            desc += " " + rng.choice(CJK)
        sha = hashlib.sha256(f"{i}".encode()).hexdigest()
        skills.append({
            "name": f"{words[0]}-{words[1]}-{i:05d}" if i != 42 else "skill-00042",
            "description": desc, "version": f"1.{i % 7}.{i % 3}", "tags": [words[1], words[2]],
            "author": "bench", "license": "MIT", "path": f"skills/s{i:05d}", "commit": "0" * 40,
            "updated_at": "2026-01-01T00:00:00Z",
            "files": [{"path": "SKILL.md", "size": 500, "sha256": sha}],
            "integrity": "sha256-" + sha,
            "inventory": {"has_scripts": False, "script_files": [], "reference_files": [], "asset_files": [],
                          "total_files": 1, "total_size": 500},
        })
    skills.sort(key=lambda s: s["name"])
    return {"schema_version": "1.0", "name": "bench", "repository": {
        "url": "https://example.invalid/bench", "raw_url_template": "https://example.invalid/{commit}/{path}"},
        "skills": skills}


def seed_home(home: Path, registry: dict) -> None:
    """Configure one source and put its registry in the cache as if freshly fetched."""
    from skillyard.client import cache
    from skillyard.client.config import Config, Source

    config = Config(home)
    source = Source("bench", "https://example.invalid/registry.json", None, 100)
    config.put_source(source)
    config.save()
    body = json.dumps(registry).encode()
    directory = cache.source_dir(config, source)
    cache._atomic_write(directory / "registry.json", body)
    cache._write_meta(directory, {"url": source.url, "sha256": hashlib.sha256(body).hexdigest(),
                                  "checked_at": time.time(), "etag": None, "last_modified": None})


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def measure_queries(home: Path, count: int, reps: int, *, dense: bool) -> tuple[dict, object]:
    """Seed `home`, build the index in process and time every query `reps` times."""
    seed_home(home, synthetic_registry(count, dense=dense))
    from skillyard.client import cache
    from skillyard.client.config import load_config
    from skillyard.client.search import open_index, query_index

    config = load_config(home)
    entries = cache.sync(config, warn=lambda m: None)
    started = time.perf_counter()
    ix = open_index(config, entries)
    build_s = time.perf_counter() - started
    latencies: dict[str, list[float]] = {q: [] for q in QUERIES}
    found: dict[str, int] = {}
    for _ in range(reps):
        for q in QUERIES:
            t0 = time.perf_counter()
            hits = query_index(ix, q, limit=20)
            latencies[q].append((time.perf_counter() - t0) * 1000)
            found[q] = len(hits)
    ix.close()
    everything = [v for vals in latencies.values() for v in vals]
    return {
        "index_build_s": round(build_s, 3),
        "query_ms": {"p50": round(statistics.median(everything), 2), "p95": round(percentile(everything, 95), 2),
                     "max": round(max(everything), 2), "samples": len(everything)},
        "per_query_p50_ms": {q: round(statistics.median(v), 2) for q, v in latencies.items()},
        "hits": found,
    }, config


def time_commands(config, runs: int) -> dict:
    """Whole `skill search` processes: the first after a registry change (builds the index), then warm runs."""
    env = dict(os.environ)
    shutil.rmtree(config.cache_dir / "search")
    t0 = time.perf_counter()
    subprocess.run(["skill", "search", "invoice"], env=env, check=True, capture_output=True)
    first_s = time.perf_counter() - t0
    warm = []
    for i in range(runs):
        t0 = time.perf_counter()
        subprocess.run(["skill", "search", ["invoice", "发票", "kube", "invoise"][i % 4]], env=env, check=True,
                       capture_output=True)
        warm.append(time.perf_counter() - t0)
    baseline = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True, capture_output=True)
        baseline.append(time.perf_counter() - t0)
    return {"first_run_builds_index": round(first_s, 3), "warm_median": round(statistics.median(warm), 3),
            "warm_runs": [round(w, 3) for w in warm], "python_startup_median": round(statistics.median(baseline), 3)}


def report(label: str, data: dict) -> None:
    print(f"  [{label}] index build {data['index_build_s']:.2f} s; query p50 {data['query_ms']['p50']:.1f} ms, "
          f"p95 {data['query_ms']['p95']:.1f} ms (target p50 <= 20 ms)")
    for q, v in data["per_query_p50_ms"].items():
        print(f"      {q!r:20} p50 {v:6.1f} ms   hits {data['hits'][q]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 skills and fewer repetitions")
    args = parser.parse_args()
    count = 2000 if args.quick else 10000
    reps = 5 if args.quick else 15
    runs = 3 if args.quick else 7
    os.environ["SKILL_CACHE_TTL"] = "100000000"
    results: dict = {"skills": count, "targets": {"query_p50_ms": 20, "warm_command_s": 0.5}}
    print(f"skill search benchmark — {count:,} skills")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "zipf"
        os.environ["SKILLCLI_HOME"] = str(home)
        results["zipf"], config = measure_queries(home, count, reps, dense=False)
        report("zipf vocabulary", results["zipf"])
        results["command_s"] = time_commands(config, runs)
        dense_home = Path(tmp) / "dense"
        results["dense"], _ = measure_queries(dense_home, count, reps, dense=True)
        report("dense: 70 topic words only (stress)", results["dense"])
    cmd = results["command_s"]
    print(f"  `skill search` first run after a change (builds the index): {cmd['first_run_builds_index']:.2f} s")
    print(f"  `skill search` warm, median of {runs}: {cmd['warm_median']:.3f} s (target <= 0.5 s; "
          f"bare python startup {cmd['python_startup_median']:.3f} s)")
    out = Path(__file__).resolve().parent / "results" / "client_search.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"  wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
