"""Site build at scale: time, peak memory, output size, search-data size and per-page size.

    python benchmarks/bench_site.py [--quick] [--sizes 1000,5000]

Generates a synthetic registry (registry.json + skill folders with realistic SKILL.md bodies, some Chinese) in a
temp folder, builds the site in a child process per size (so peak RSS is that build's alone), prints a summary
and writes benchmarks/results/site.json. Targets from the issue: 5,000 skills in <= 60 s, search data <= 1.5 MB
(<= 300 B/skill), a typical skill page <= 60 KB.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
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
                                + body(rng, name)}
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
root = Path(sys.argv[1])
result = build_site(root / "registry.json", root, root / "_site", config=Path(sys.argv[2]),
                    work_dir=root / ".site-build", use_cache=sys.argv[3] == "cache")
print(json.dumps({"seconds": result.seconds, "pages": result.pages, "cached": result.cached_pages,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def build(root: Path, cache: str) -> dict:
    """One build in a fresh child process; returns its report plus wall time."""
    started = time.perf_counter()
    child = subprocess.run([sys.executable, "-c", CHILD, str(root), str(REPO / "mkdocs.yml"), cache],
                           capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"build failed in {root}:\n{child.stderr[-3000:]}")
    return {**json.loads(child.stdout.strip().splitlines()[-1]), "wall": wall}


def measure(count: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        make_registry(root, count)
        generate_seconds = time.perf_counter() - started
        cold = [build(root, "no-cache") for _ in range(repeat)]
        build(root, "cache")  # fills the page cache
        warm = build(root, "cache")
        report = sorted(cold, key=lambda r: r["wall"])[(len(cold) - 1) // 2]  # the (lower) median cold build
        out = root / "_site"
        pages = sorted(p.stat().st_size for p in (out / "skills").glob("*/index.html"))
        search = (out / "search.json").read_bytes()
        return {
            "skills": count,
            "fixture_seconds": round(generate_seconds, 2),
            "cold_builds": repeat,
            "build_wall_seconds": round(report["wall"], 2),
            "build_wall_seconds_all": [round(r["wall"], 2) for r in cold],
            "warm_rebuild_seconds": round(warm["wall"], 2),
            "warm_rebuild_cached_pages": warm["cached"],
            "build_phases_seconds": {k: round(v, 2) for k, v in report["seconds"].items()},
            "peak_rss_mb": round(report["peak_rss_mb"], 1),
            "output_bytes": folder_bytes(out),
            "output_bytes_without_well_known": folder_bytes(out) - folder_bytes(out / ".well-known"),
            "search_bytes": len(search),
            "search_bytes_gzip": len(gzip.compress(search, 9)),
            "search_bytes_per_skill": round(len(search) / count, 1),
            "skill_page_bytes_median": int(statistics.median(pages)),
            "skill_page_bytes_p95": pages[int(len(pages) * 0.95) - 1],
            "skill_page_bytes_max": pages[-1],
            "home_page_bytes": (out / "index.html").stat().st_size,
            "generated_pages": report["pages"],
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only 200 and 1,000 skills")
    parser.add_argument("--sizes", default=None, help="comma-separated skill counts (default 1000,5000)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="cold builds per size; the median is reported (default 2, or 1 with --quick)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([200, 1000] if args.quick else [1000, 5000])
    rows = []
    for count in sizes:
        row = measure(count, args.repeat or (1 if args.quick else 2))
        rows.append(row)
        print(f"{count:>6} skills: build {row['build_wall_seconds']:6.1f} s median of {row['build_wall_seconds_all']} "
              f"(mkdocs {row['build_phases_seconds'].get('mkdocs', 0):.1f} s, "
              f"generate {row['build_phases_seconds'].get('generate', 0):.1f} s, "
              f"schema check+read {row['build_phases_seconds'].get('read', 0):.1f} s), "
              f"warm rebuild {row['warm_rebuild_seconds']:.1f} s, "
              f"peak RSS {row['peak_rss_mb']:.0f} MB, output {row['output_bytes'] / 1e6:.1f} MB, "
              f"search.json {row['search_bytes'] / 1e6:.2f} MB ({row['search_bytes_per_skill']:.0f} B/skill, "
              f"gzip {row['search_bytes_gzip'] / 1e3:.0f} KB), skill page median "
              f"{row['skill_page_bytes_median'] / 1e3:.1f} KB (max {row['skill_page_bytes_max'] / 1e3:.1f} KB)",
              flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"area": "site", "runs": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
