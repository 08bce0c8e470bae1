"""Site build at scale, beside its yardstick: mkdocs-material building the same number of plain pages.

    python benchmarks/bench_site.py [--quick] [--sizes 5000,20000] [--repeat 5] [--repeat-large 1] [--no-yardstick]

Generates a synthetic registry (registry.json + skill folders: SKILL.md with only the standard keys and a
realistic body, some Chinese; skill.yaml with the registry fields) in a temp folder. Per size, in one run and
alternating so both see the same machine load, each in a fresh child process:
  - ours from scratch (no page cache, fresh work folder),
  - the yardstick: mkdocs-material (the same mkdocs.yml, minus our hooks and theme) building N plain Markdown
    pages made of the same SKILL.md bodies,
  - ours incremental: one skill's SKILL.md and registry entry changed, page cache and both output trees warm
    from the builds before,
and peak memory (VmHWM of the build process and of its largest worker); then the first search in headless
Chromium (Debian's `chromium`, through Playwright; skipped with a note without them) on the built site, served
on 127.0.0.1 (Python's http.server: no compression, unlike most static hosts): a fresh browser context opens the
home page and, as soon as its load event has fired, a query is typed into the box ("typed at once"; the case of
someone who focuses the box and types FOCUS_TO_TYPING_MS later is timed too), timed from the input event to the
results drawn (whatever part of fetching, parsing and preparing search.json is not done by then, matching,
drawing), and a second query on the same page; the time from navigation start to the first results is reported
beside it. The size of search.json (and gzipped) is printed. Medians of --repeat runs (default 5) up
to 5,000 skills, --repeat-large (default 1) above; min/median/max and the ratio ours/yardstick are written to
benchmarks/results/site.json with the date. Issue 14 targets: 5,000 from scratch <= 12 s, 20,000 <= 50 s, peak
memory <= 2 GB, incremental after one change <= 3 s at 5,000; issue 37: first search <= 300 ms at 20,000.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "site.json"

WORDS = ["extract", "convert", "merge", "split", "summarise", "translate", "analyse", "review", "generate", "validate", "format", "parse", "render", "upload", "download", "schedule", "monitor", "deploy", "test", "refactor", "document", "search", "index", "classify", "cluster", "plot", "chart", "table", "report", "invoice", "receipt", "contract", "email", "calendar", "meeting", "note", "slide", "spreadsheet", "image", "audio", "video", "subtitle", "database", "query", "schema", "migration", "api", "webhook", "queue", "cache", "log", "metric", "alert", "trace", "kubernetes", "docker", "terraform", "git", "commit", "branch", "release", "changelog", "security", "audit", "license", "compliance"]
CJK = "发票识别提取合同审阅会议纪要翻译表格图片音频视频数据库查询报告生成文档摘要邮件日历安全审计代码重构测试部署监控日志"
TAGS = [f"{a}-{b}" for a in ("pdf", "docs", "data", "ops", "web", "ml", "finance", "legal", "media", "dev",
                             "cloud", "sec", "office", "chat", "ocr") for b in ("tools", "kit", "flow", "core", "io",
                                                                                "ai", "cli", "api", "lab", "x")]


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def body(rng: random.Random, name: str) -> str:
    parts = [f"# {name.replace('-', ' ').title()}\n", sentence(rng, 25) + " " + sentence(rng, 18) + "\n"]
    for section in range(rng.randint(3, 6)):
        parts.append(f"## {sentence(rng, 3)[:-1]}\n")
        parts.append("\n".join(f"- {sentence(rng, rng.randint(6, 14))}" for _ in range(rng.randint(3, 6))) + "\n")
        if section % 2 == 0:
            parts.append("```bash\npython scripts/run.py --input file.pdf --out result.json\n```\n")
        parts.append(" ".join(sentence(rng, rng.randint(10, 20)) for _ in range(rng.randint(2, 4))) + "\n")
    parts.append("| option | meaning |\n|---|---|\n" + "\n".join(f"| `{rng.choice(WORDS)}` | {sentence(rng, 6)} |"
                                                         for _ in range(4)) + "\n")
    return "\n".join(parts)


def make_registry(root: Path, count: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    skills = []
    commit = hashlib.sha1(b"bench").hexdigest()
    for i in range(count):
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}-{i}"
        description = sentence(rng, rng.randint(15, 45))
        if i % 5 == 0:
            description += " " + "".join(rng.choice(CJK) for _ in range(rng.randint(20, 60))) + "。"
        contents = {"SKILL.md": f"---\nname: {name}\ndescription: {json.dumps(description, ensure_ascii=False)}\n---\n"
                                + body(rng, name),
                    "skill.yaml": f"version: 1.{i % 9}.0\nauthor: author{i % 400}\nlicense: MIT\n"}
        for j in range(rng.randint(0, 4)):
            folder = rng.choice(["scripts", "references", "assets"])
            contents[f"{folder}/file{j}.{ 'py' if folder == 'scripts' else 'md'}"] = sentence(rng, 40) * rng.randint(1, 20)
        files = []
        for rel, text in sorted(contents.items()):
            data = text.encode("utf-8")
            path = root / "skills" / name / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            files.append({"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        lines = "".join(f"{f['sha256']}  {f['path']}\n" for f in files)
        inputs = [{"name": f"opt{k}", "type": "string", "description": sentence(rng, 6), "required": k == 0,
                   **({"default": "auto"} if k else {})} for k in range(rng.randint(0, 4))]
        skills.append({
            "name": name, "description": description, "version": f"1.{i % 9}.0",
            "tags": rng.sample(TAGS, rng.randint(2, 5)), "author": f"author{i % 400}", "maintainers": [],
            "license": "MIT", "path": f"skills/{name}", "commit": commit,
            "updated_at": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z", "files": files,
            "integrity": "sha256-" + hashlib.sha256(lines.encode()).hexdigest(),
            "inventory": {"has_scripts": any(f["path"].startswith("scripts/") for f in files),
                          "script_files": [f["path"] for f in files if f["path"].startswith("scripts/")],
                          "reference_files": [], "asset_files": [], "total_files": len(files),
                          "total_size": sum(f["size"] for f in files)},
            "capabilities": rng.sample(["network", "filesystem", "scripts", "shell"], rng.randint(0, 2)),
            "mcp_deps": [{"tool": "fs.read", "required": True, "description": sentence(rng, 5)}] if i % 3 == 0 else [],
            "inputs": inputs,
            "findings": [{"rule": "script-network", "severity": "warning", "message": sentence(rng, 8),
                          "file": "scripts/file0.py", "line": 3}] if i % 7 == 0 else [],
        })
    registry = {"schema_version": "1.0", "name": "Bench", "description": "Synthetic registry.",
                "repository": {"url": "https://github.com/example/registry", "slug": "example/registry",
                               "raw_url_template": "https://raw.githubusercontent.com/example/registry/{commit}/{path}"},
                "skills": sorted(skills, key=lambda s: s["name"])}
    path = root / "registry.json"
    path.write_text(json.dumps(registry, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    return path


CHILD = """
import json, resource, sys
from pathlib import Path
from skillyard.site.builder import build_site
root, work = Path(sys.argv[1]), Path(sys.argv[4])
result = build_site(root / "registry.json", root, root / "_site", config=Path(sys.argv[2]),
                    work_dir=work, use_cache=sys.argv[3] == "cache")
status = Path("/proc/self/status").read_text()
hwm = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
print(json.dumps({"seconds": result.seconds, "pages": result.pages, "cached": result.cached_pages,
                  "peak_kb": hwm, "worker_peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""

# The yardstick: the registry's own mkdocs.yml, as mkdocs would run it without us (no hooks, no packaged theme).
YARDSTICK = """
import json, logging, resource, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config
logging.getLogger("mkdocs").setLevel(logging.ERROR)
cfg = load_config(config_file=sys.argv[1], docs_dir=sys.argv[2], site_dir=sys.argv[3])
build(cfg, dirty=False)
status = Path("/proc/self/status").read_text()
hwm = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)
print(json.dumps({"peak_kb": hwm}))
"""


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def child(script: str, *args: str) -> dict:
    """Run one build in a fresh Python process; its JSON report plus wall time (start-up and imports included) and
    CPU time (user + system of the process and every process it waited for: forked children, page workers), the
    figure to compare on a loaded machine."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"build failed ({args}):\n{proc.stderr[-3000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "wall": wall, "cpu": cpu,
            "load": os.getloadavg()[0]}


def ours(root: Path, work: Path, cache: bool) -> dict:
    return child(CHILD, str(root), str(REPO / "mkdocs.yml"), "cache" if cache else "no-cache", str(work))


def plain_docs(root: Path, docs: Path) -> None:
    """N plain Markdown pages (the skill bodies, their frontmatter removed) plus the hand-written pages."""
    import shutil

    if docs.exists():
        shutil.rmtree(docs)
    shutil.copytree(REPO / "site" / "pages", docs)
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    (docs / "tags").mkdir(exist_ok=True)
    (docs / "tags" / "index.md").write_text("# Tags\n", encoding="utf-8")
    (docs / "skills").mkdir()
    for skill_md in sorted((root / "skills").glob("*/SKILL.md")):
        text = skill_md.read_text(encoding="utf-8")
        (docs / "skills" / f"{skill_md.parent.name}.md").write_text(text.split("\n---\n", 1)[1], encoding="utf-8")


def yardstick(root: Path, site: Path) -> dict:
    return child(YARDSTICK, str(REPO / "mkdocs.yml"), str(root / "plain-docs"), str(site))


def touch_one(root: Path, round_: int) -> None:
    """Change one skill the way an author would: its SKILL.md body, and its registry entry (size, sha256,
    integrity, updated_at) as `skillyard build` would write it."""
    path = root / "registry.json"
    registry = json.loads(path.read_text(encoding="utf-8"))
    skill = registry["skills"][(round_ * 7919) % len(registry["skills"])]
    skill_md = root / skill["path"] / "SKILL.md"
    data = skill_md.read_bytes() + f"\nChanged in round {round_}.\n".encode()
    skill_md.write_bytes(data)
    for entry in skill["files"]:
        if entry["path"] == "SKILL.md":
            entry.update(size=len(data), sha256=hashlib.sha256(data).hexdigest())
    lines = "".join(f"{f['sha256']}  {f['path']}\n" for f in skill["files"])
    skill["integrity"] = "sha256-" + hashlib.sha256(lines.encode()).hexdigest()
    skill["inventory"]["total_size"] = sum(f["size"] for f in skill["files"])
    skill["updated_at"] = f"2027-01-{1 + round_ % 28:02d}T12:00:00Z"
    path.write_text(json.dumps(registry, ensure_ascii=False, sort_keys=True), encoding="utf-8")


def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 2), "median": round(statistics.median(values), 2),
            "max": round(max(values), 2), "runs": [round(v, 2) for v in values]}


# Every timed run writes into folders of its own (see `measure`): on the build machine (ext4 mounted with `discard` on a
# virtual disk), creating files in the ~30 s after many were deleted runs up to 6x slower (10,000 folders and
# 15,000 files: 1.0 s; right after deleting as many, 6.2 s; 40 s later, 0.9 s). Deleting the last run's output
# before each run made every from-scratch figure pay for the run before it, more with each round (13.1, 16.1,
# 17.9, 18.9, 20.2 s in one run), and the yardstick's mkdocs (which empties its site folder first) as well.


SEARCH_QUERIES = ["invoice", "发票", "deploy kubernetes", "tag:pdf-tools report"]
SEARCH_TIMER = """q => new Promise(done => {
    const input = document.getElementById('sy-q'), status = document.getElementById('sy-status');
    const start = performance.now();
    new MutationObserver((changes, watch) => {
        if (!status.textContent) return;
        watch.disconnect();
        requestAnimationFrame(() => done({ms: performance.now() - start, since_navigation: performance.now(),
                                          status: status.textContent,
                                          hits: document.querySelectorAll('#sy-results > li').length}));
    }).observe(status, {childList: true, characterData: true, subtree: true});
    input.value = q;
    input.dispatchEvent(new Event('input'));
})"""


FOCUS_TO_TYPING_MS = 300


def search_latency(out: Path, rounds: int, focused: bool = False) -> dict:
    """First and second search in headless Chromium on the site in `out` (see the module docstring). `focused`: the
    box is focused FOCUS_TO_TYPING_MS before the query is typed (else the query arrives with no focus before it,
    the strict case: the whole load is timed)."""
    import functools
    import http.server
    import shutil
    import threading

    chromium = os.environ.get("SKILLYARD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"skipped": "the playwright Python package is not installed"}
    if not Path(chromium).is_file():
        return {"skipped": f"chromium not found at {chromium}"}

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    first, second, since_navigation, hits = [], [], [], {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            for round_ in range(rounds):
                for query in SEARCH_QUERIES:
                    context = browser.new_context(viewport={"width": 1280, "height": 800})  # nothing cached
                    tab = context.new_page()
                    tab.goto(base, wait_until="load")
                    if focused:  # a person clicks into the box, then types a little later
                        tab.focus("#sy-q")
                        tab.wait_for_timeout(FOCUS_TO_TYPING_MS)
                    found = tab.evaluate(SEARCH_TIMER, query)
                    first.append(found["ms"])
                    since_navigation.append(found["since_navigation"])
                    hits[query] = found["status"]
                    again = tab.evaluate(SEARCH_TIMER, query.split()[0][:3])
                    second.append(again["ms"])
                    context.close()
                print(f"    search round {round_ + 1}/{rounds}{' (focused first)' if focused else ''}: first {statistics.median(first[-4:]):.0f} ms, "
                      f"again {statistics.median(second[-4:]):.0f} ms", flush=True)
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return {"first_search_ms": spread(first), "second_search_ms": spread(second),
            "first_results_since_navigation_ms": spread(since_navigation), "queries": hits,
            "includes": "from the input event to the results drawn: whatever of fetching, parsing and preparing "
                        "search.json is not done by then, matching, drawing (the first keystroke is not held back; "
                        "the second search may wait out the 80 ms typing pause)"}


def measure(count: int, repeat: int, yardstick_runs: bool = True, search_rounds: int = 3) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        make_registry(root, count)
        plain_docs(root, root / "plain-docs")
        fixture_seconds = time.perf_counter() - started
        scratch, plain, incremental = [], [], []
        for round_ in range(repeat):  # fresh folders each round, deleted only at the end (above)
            scratch.append(ours(root, root / f"work-{round_}", cache=False))
            if yardstick_runs:
                plain.append(yardstick(root, root / f"plain-site-{round_}"))
            print(f"  {count}: round {round_ + 1}/{repeat}: ours {scratch[-1]['wall']:.1f} s "
                  f"({scratch[-1]['cpu']:.1f} s CPU, load {scratch[-1]['load']:.1f}), "
                  f"yardstick {plain[-1]['wall'] if plain else float('nan'):.1f} s", flush=True)
        for _ in range(2):  # fills the page cache and both output trees (site/output.py); each round then
            ours(root, root / "warm", cache=True)  # changes one skill
        for round_ in range(repeat):
            touch_one(root, round_)
            incremental.append(ours(root, root / "warm", cache=True))
            print(f"  {count}: incremental {round_ + 1}/{repeat}: {incremental[-1]['wall']:.2f} s "
                  f"({incremental[-1]['cpu']:.2f} s CPU, load {incremental[-1]['load']:.1f}; "
                  f"{incremental[-1]['cached']} pages from the cache)", flush=True)
        walls = [r["wall"] for r in scratch]
        report = sorted(scratch, key=lambda r: r["wall"])[(len(scratch) - 1) // 2]  # the (lower) median build
        out = root / "_site"
        pages = sorted(p.stat().st_size for p in (out / "skills").glob("*/index.html"))
        search = (out / "search.json").read_bytes()
        peak_mb = max(max(r["peak_kb"], r["worker_peak_kb"]) for r in scratch + incremental) / 1024
        ours_median = statistics.median(walls)
        plain_median = statistics.median([r["wall"] for r in plain]) if plain else float("nan")
        latency = {"typed_at_once": search_latency(out, search_rounds),
                   "focused_then_typed": search_latency(out, search_rounds, focused=True)}
        return {
            "skills": count,
            "runs": repeat,
            "fixture_seconds": round(fixture_seconds, 2),
            "ours_scratch_seconds": spread(walls),
            "ours_scratch_cpu_seconds": spread([r["cpu"] for r in scratch]),
            "load_during_scratch": spread([r["load"] for r in scratch]),
            "yardstick_mkdocs_plain_seconds": spread([r["wall"] for r in plain]) if plain else None,
            "ratio_ours_to_yardstick": round(ours_median / plain_median, 2) if plain else None,
            "incremental_seconds": spread([r["wall"] for r in incremental]),
            "incremental_cpu_seconds": spread([r["cpu"] for r in incremental]),
            "incremental_cached_pages": [r["cached"] for r in incremental],
            "ratio_incremental_to_scratch": round(statistics.median([r["wall"] for r in incremental]) / ours_median,
                                                  3),
            "phases_seconds_median_build": {k: round(v, 2) for k, v in report["seconds"].items()},
            "phases_seconds_incremental_last": {k: round(v, 2) for k, v in incremental[-1]["seconds"].items()},
            "peak_memory_mb": round(peak_mb, 1),
            "yardstick_peak_memory_mb": round(max(r["peak_kb"] for r in plain) / 1024, 1) if plain else None,
            "output_bytes": folder_bytes(out),
            "search_bytes": len(search),
            "search_bytes_gzip": len(gzip.compress(search, 9)),
            "skill_page_bytes_median": int(statistics.median(pages)),
            "skill_page_bytes_max": pages[-1],
            "generated_pages": report["pages"],
            "search_in_chromium": latency,
        }


TARGETS = {5000: {"scratch": 12.0, "incremental": 3.0}, 20000: {"scratch": 50.0, "first_search_ms": 300}}
# The figures before issue 37's search and per-skill JSON (benchmarks/README.md, 2026-11-29 03:27 UTC), shown beside.
BEFORE = {5000: {"scratch": 9.33, "incremental": 2.41}, 20000: {"scratch": 31.3, "incremental": 9.65}}
# The search before the columns of search.json v3 (rows of v2, fetched on focus or after the 80 ms typing pause,
# prepared on the first keystroke), measured at 20,000 skills on the same loaded machine just before the change
# (2026-11-29 11:10 UTC, load average 7-9 on 2 cores; medians of 8 first searches each): shown beside today's.
BEFORE_SEARCH = {20000: {"search_bytes": 5356978, "typed_at_once_ms": 494, "focused_then_typed_ms": 157,
                         "second_ms": 111}}
PEAK_MB = 2048


def _ms(latency: dict, key: str = "first_search_ms") -> str:
    if "skipped" in latency:
        return "skipped"
    figure = latency[key]
    return f"{figure['median']:.0f} ({figure['min']:.0f}-{figure['max']:.0f})"


def table(rows: list[dict]) -> str:
    """The figures per size, one line each, with the targets and the figures before beside them."""
    lines = []
    for row in rows:
        count, before = row["skills"], BEFORE.get(row["skills"], {})
        target, old = TARGETS.get(count, {}), BEFORE_SEARCH.get(count, {})
        search = row["search_in_chromium"]
        lines += [
            f"{count} skills",
            f"  build from scratch       {row['ours_scratch_seconds']['median']:8.2f} s   (target {target.get('scratch', '-')} s, "
            f"before issue 37 {before.get('scratch', '-')} s; yardstick mkdocs-material "
            f"{(row['yardstick_mkdocs_plain_seconds'] or {}).get('median', '-')} s)",
            f"  rebuild after 1 change   {row['incremental_seconds']['median']:8.2f} s   (target "
            f"{target.get('incremental', '-')} s, before issue 37 {before.get('incremental', '-')} s)",
            f"  CPU (user+sys, all processes)  {row['ours_scratch_cpu_seconds']['median']:.2f} s from scratch, "
            f"{row['incremental_cpu_seconds']['median']:.2f} s after 1 change  (load average "
            f"{row['load_during_scratch']['min']:.1f}-{row['load_during_scratch']['max']:.1f} during the builds)",
            f"  peak memory              {row['peak_memory_mb']:8.0f} MB  (target {PEAK_MB} MB)",
            f"  search.json              {row['search_bytes']:8d} B   ({row['search_bytes'] / count:.0f} B a skill, "
            f"{row['search_bytes_gzip']} B gzipped; before {old.get('search_bytes', '-')} B)",
            f"  first search, typed at once after load   {_ms(search['typed_at_once'])} ms median (min-max)"
            f"   (target {target.get('first_search_ms', '-')} ms, before {old.get('typed_at_once_ms', '-')} ms)",
            f"  first search, box focused {FOCUS_TO_TYPING_MS} ms before  {_ms(search['focused_then_typed'])} ms"
            f"   (before {old.get('focused_then_typed_ms', '-')} ms)",
            f"  second search                            {_ms(search['typed_at_once'], 'second_search_ms')} ms"
            f"   (before {old.get('second_ms', '-')} ms)",
        ]
        if "skipped" not in search["typed_at_once"]:
            lines.append("  first results, from navigation start     "
                         f"{_ms(search['typed_at_once'], 'first_results_since_navigation_ms')} ms")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only 5,000 skills")
    parser.add_argument("--sizes", default=None, help="comma-separated skill counts (default 5000,20000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per size up to 5,000 skills (median reported)")
    parser.add_argument("--repeat-large", type=int, default=1, help="runs per size above 5,000 skills")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the results")
    parser.add_argument("--no-yardstick", action="store_true", help="skip the mkdocs-material yardstick builds")
    parser.add_argument("--search-rounds", type=int, default=3, help="rounds of the four timed queries per size")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([5000] if args.quick else [5000, 20000])
    started = time.perf_counter()
    print(f"load at start: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} "
          f"on {os.cpu_count()} CPUs", flush=True)
    rows = []
    for count in sizes:
        row = measure(count, args.repeat if count <= 5000 else args.repeat_large, not args.no_yardstick,
                      args.search_rounds)
        target = TARGETS.get(count, {})
        row["targets"] = {"scratch_seconds": target.get("scratch"), "incremental_seconds": target.get("incremental"),
                          "peak_memory_mb": PEAK_MB, "first_search_ms": target.get("first_search_ms")}
        row["before_issue_37"] = BEFORE.get(count)
        rows.append(row)
        plain = row["yardstick_mkdocs_plain_seconds"]
        search = row["search_in_chromium"]["typed_at_once"]
        before = BEFORE.get(count, {})
        print(f"{count:>6} skills ({row['runs']} runs): ours {row['ours_scratch_seconds']['median']:.1f} s "
              f"(min {row['ours_scratch_seconds']['min']:.1f}, max {row['ours_scratch_seconds']['max']:.1f}; "
              f"before {before.get('scratch', '?')} s), "
              f"mkdocs-material plain {plain['median'] if plain else '-'} s, ratio {row['ratio_ours_to_yardstick']}; "
              f"incremental {row['incremental_seconds']['median']:.2f} s (before {before.get('incremental', '?')} s); "
              f"first search {search.get('first_search_ms', {}).get('median', search.get('skipped'))} ms; "
              f"search.json {row['search_bytes']} B ({row['search_bytes_gzip']} B gzip); "
              f"peak {row['peak_memory_mb']:.0f} MB; phases {row['phases_seconds_median_build']}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"area": "site", "date": datetime.datetime.now(datetime.UTC).isoformat(
        timespec="seconds"), "machine_cpus": os.cpu_count(), "yardstick": "mkdocs-material, same mkdocs.yml "
        "without our hooks/theme, N plain Markdown pages (the same SKILL.md bodies)", "sizes": rows}, indent=2)
        + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    print()
    print(table(rows))
    print(f"bench took {time.perf_counter() - started:.0f} s; load at the end: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
