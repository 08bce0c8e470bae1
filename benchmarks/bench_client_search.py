"""Search at registry scale: the `skill` client beside plain SQLite FTS5 on the same data, in the same run.

    python benchmarks/bench_client_search.py [--quick] [--sizes 10000 50000] [--repeat 7]

For each size (10,000 and 50,000 synthetic skills; 2,000 with --quick):
- in process: index build time and query latency p50/p95 over a mix of words, prefixes, typos, two-word and CJK
  queries — ours (`skillyard.client.search`) and the yardstick, a plain FTS5 table (unicode61 tokenizer, one
  prefix query per word, `ORDER BY rank LIMIT 20`), which has no typo tolerance, no CJK pairs and no priorities;
- whole commands: `skill search` after a registry change (builds the index from the search-rows extract the refresh
  wrote beside the cached registry.json; and, as the worst case, with no extract, parsing registry.json), and warm
  (the index exists), beside a bare `python -c pass`. The registry is served by http.server on 127.0.0.1.

Writes benchmarks/results/client_search.json. Not a test: nothing here asserts a time, and no test does.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import hashlib
import http.server
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "client_search.json"
TARGETS = {"query_p50_ms": 2.0, "query_p95_ms": 10.0, "warm_command_s": 0.150, "first_search_after_refresh_s": 1.5}
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


def synthetic_registry(count: int, seed: int = 7) -> dict:
    """Descriptions mix topic words with a 5,000-word Zipf-distributed vocabulary (real descriptions spread over
    many words); one in ten carries a CJK phrase. Entries are valid against schemas/registry.schema.json."""
    rng = random.Random(seed)
    vocab = _pseudo_words(5000, rng)
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    skills = []
    for i in range(count):
        words = rng.sample(WORDS, 3)
        desc = f"{words[0].title()} {words[1]} helper: " + " ".join(rng.choices(vocab, weights=weights, k=10)) + "."
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


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def summary(values: list[float], digits: int = 3) -> dict:
    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits), "runs": len(values)}


# The yardstick: what a developer would write first with the standard library.
def plain_build(path: Path, skills: list[dict]) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                     "CREATE VIRTUAL TABLE s USING fts5(name, tags, description, prefix='2 3');")
    with db:
        db.executemany("INSERT INTO s VALUES (?,?,?)",
                       [(s["name"], " ".join(s["tags"]), s["description"]) for s in skills])
    return db


def plain_query(db: sqlite3.Connection, text: str) -> list:
    from skillyard.client.search import query_words

    match = " AND ".join(f'"{word}"*' for word in query_words(text))
    return db.execute("SELECT name FROM s WHERE s MATCH ? ORDER BY rank LIMIT 20", (match,)).fetchall()


def measure_in_process(count: int, repeat: int, work: Path) -> dict:
    from skillyard.client.search import build_index, query_index

    skills = synthetic_registry(count)["skills"]
    rows = [("bench", 100, skill) for skill in skills]
    out: dict = {}
    for label, build, query in (
            ("ours", lambda p: (build_index(p, rows), sqlite3.connect(p))[1], query_index),
            ("plain_fts5", lambda p: plain_build(p, skills), plain_query)):
        builds = []
        db = None
        for run in range(max(3, repeat // 2)):
            path = work / f"{label}-{count}-{run}.sqlite"
            started = time.perf_counter()
            db = build(path)
            builds.append(time.perf_counter() - started)
            if run:
                db.close()
        db = build(work / f"{label}-{count}-q.sqlite")
        latencies: dict[str, list[float]] = {q: [] for q in QUERIES}
        hits: dict[str, int] = {}
        for _ in range(repeat):
            for q in QUERIES:
                started = time.perf_counter()
                found = query(db, q)
                latencies[q].append((time.perf_counter() - started) * 1000)
                hits[q] = len(found)
        db.close()
        everything = [v for values in latencies.values() for v in values]
        out[label] = {
            "index_build_s": summary(builds),
            "query_ms": {"p50": round(statistics.median(everything), 3), "p95": round(percentile(everything, 95), 3),
                         "max": round(max(everything), 3), "samples": len(everything)},
            "per_query_p50_ms": {q: round(statistics.median(v), 3) for q, v in latencies.items()},
            "hits": hits,
        }
    ours, plain = out["ours"], out["plain_fts5"]
    out["ratio_query_p50"] = round(ours["query_ms"]["p50"] / plain["query_ms"]["p50"], 2)
    out["ratio_query_p95"] = round(ours["query_ms"]["p95"] / plain["query_ms"]["p95"], 2)
    out["ratio_index_build"] = round(ours["index_build_s"]["median"] / plain["index_build_s"]["median"], 2)
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/registry.json"


def _skill_bin() -> str:
    local = Path(sys.executable).with_name("skill")
    return str(local) if local.exists() else "skill"


def measure_commands(count: int, repeat: int, work: Path) -> dict:
    served = work / f"served-{count}"
    served.mkdir()
    (served / "registry.json").write_text(json.dumps(synthetic_registry(count)), encoding="utf-8")
    server, url = _serve(served)
    env = {**os.environ, "SKILLCLI_HOME": str(work / f"home-{count}"), "SKILL_DEFAULT_SOURCE": "none",
           "SKILL_CACHE_TTL": "100000000"}
    skill = _skill_bin()

    def run(*args: str) -> float:
        started = time.perf_counter()
        subprocess.run([skill, *args], env=env, check=True, capture_output=True)
        return time.perf_counter() - started

    try:
        run("source", "add", url, "--name", "bench")
        search_dir = Path(env["SKILLCLI_HOME"]) / "cache" / "search"
        extract = Path(env["SKILLCLI_HOME"]) / "cache" / "registries" / "bench" / "search-rows.json"
        first, parsing = [], []
        for _ in range(max(3, repeat // 2)):
            # As after a registry change: the index is built again, from the search-rows extract the refresh wrote.
            shutil.rmtree(search_dir, ignore_errors=True)
            first.append(run("search", "invoice"))
            # The worst case: no extract either (a registry refreshed by an older client), so registry.json is parsed.
            shutil.rmtree(search_dir, ignore_errors=True)
            extract.unlink(missing_ok=True)
            parsing.append(run("search", "invoice"))
        warm = [run("search", QUERIES[i % len(QUERIES)]) for i in range(repeat)]
        help_runs = [run("--help") for _ in range(repeat)]
    finally:
        server.shutdown()
    baseline = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, capture_output=True)
        baseline.append(time.perf_counter() - started)
    return {"first_search_after_refresh_s": summary(first), "first_search_parsing_registry_s": summary(parsing),
            "warm_search_s": summary(warm),
            "skill_help_s": summary(help_runs), "python_startup_s": summary(baseline),
            "search_dir_exists": search_dir.exists()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 skills and fewer repetitions")
    parser.add_argument("--sizes", type=int, nargs="+", default=None)
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    sizes = args.sizes or ([2000] if args.quick else [10000, 50000])
    repeat = args.repeat or (5 if args.quick else 7)
    results: dict = {"date": datetime.date.today().isoformat(), "machine_cores": os.cpu_count(), "targets": TARGETS,
                     "yardstick": "plain SQLite FTS5 (unicode61, prefix per word, ORDER BY rank LIMIT 20)",
                     "sizes": {}}
    print(f"skill search benchmark — sizes {sizes}, {repeat} repetitions")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for count in sizes:
            figures = measure_in_process(count, repeat, work)
            figures["commands"] = measure_commands(count, repeat, work)
            results["sizes"][str(count)] = figures
            ours, plain, cmd = figures["ours"], figures["plain_fts5"], figures["commands"]
            print(f"  {count:,} skills: index build ours {ours['index_build_s']['median']:.2f} s vs plain FTS5 "
                  f"{plain['index_build_s']['median']:.2f} s ({figures['ratio_index_build']}x)")
            print(f"    query p50/p95 ours {ours['query_ms']['p50']:.2f}/{ours['query_ms']['p95']:.2f} ms vs plain "
                  f"{plain['query_ms']['p50']:.2f}/{plain['query_ms']['p95']:.2f} ms "
                  f"(ratio p50 {figures['ratio_query_p50']}x, p95 {figures['ratio_query_p95']}x)")
            print(f"    `skill search`: first after a change {cmd['first_search_after_refresh_s']['median']:.3f} s "
                  f"({cmd['first_search_parsing_registry_s']['median']:.3f} s parsing registry.json), "
                  f"warm {cmd['warm_search_s']['median']:.3f} s, `skill --help` {cmd['skill_help_s']['median']:.3f} s"
                  f" (bare python {cmd['python_startup_s']['median']:.3f} s)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"  wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
