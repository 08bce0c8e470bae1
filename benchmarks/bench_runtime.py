"""Discovery and prompt generation for many skills across three roots, cold and cached.

    python benchmarks/bench_runtime.py [--quick] [--skills N]

Builds N skills (default 1,000) split over project, env and user roots (10% of names clash across roots), then
measures: a cold scan (no cache), a cached discover from a fresh process state (disk cache, stat-only check), a
warm in-memory discover, and rendering the XML and text prompts. Prints medians and writes
benchmarks/results/runtime.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

from skillyard import runtime  # noqa: E402
from skillyard.runtime import cache, prompt  # noqa: E402
from skillyard.runtime.discovery import Root, scan  # noqa: E402


def build(base: Path, count: int) -> list[Root]:
    roots = [Root(str(base / name), name if name != "env" else "env", prio)
             for name, prio in (("project", 400), ("env", 300), ("user", 200))]
    for i in range(count):
        root = Path(roots[i % 3].path)
        name = f"skill-{i if i % 10 else i // 10:04d}"  # every tenth name repeats an earlier one: clashes
        if i % 10 == 0:
            group = root / "clashes" / f"copy-{i}" / name  # its own folder: nothing is overwritten
        else:
            group = root / f"group-{i % 7}" / name if i % 2 else root / name
        group.mkdir(parents=True, exist_ok=True)
        (group / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Skill number {i} handles task {i} for benchmark data; use when the "
            f"user asks about item {i}.\nversion: \"1.0.{i}\"\ntags: [bench, t{i % 5}]\n---\n\n# Skill {i}\n\n"
            + "Step.\n" * 20, encoding="utf-8")
    return roots


def timed(fn, repeats: int) -> tuple[float, object]:
    samples, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and 300 skills")
    parser.add_argument("--skills", type=int, default=None)
    args = parser.parse_args()
    count = args.skills or (300 if args.quick else 1000)
    repeats = 3 if args.quick else 7
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        roots = build(base / "roots", count)
        cache_dir = base / "cache"
        cold, result = timed(lambda: scan(roots), repeats)

        def disk_cached():
            cache._MEMORY.clear()  # a new process: only the disk cache is there
            return runtime.discover(roots, cache_dir=cache_dir)

        runtime.discover(roots, cache_dir=cache_dir)
        cached_disk, hit = timed(disk_cached, repeats)
        assert hit.report["cached"] is True
        warm, _ = timed(lambda: runtime.discover(roots, cache_dir=cache_dir), repeats)
        skills = result.skills
        xml_time, xml = timed(lambda: prompt.to_xml(skills), repeats)
        text_time, text = timed(lambda: prompt.to_text(skills), repeats)
        stable = scan(roots).report["index_hash"] == result.report["index_hash"]
    figures = {
        "skills_written": count, "skills_indexed": len(skills), "overrides": result.report["counts"]["overrides"],
        "repeats": repeats,
        "cold_scan_ms": round(cold * 1000, 2),
        "cached_from_disk_ms": round(cached_disk * 1000, 2),
        "cached_in_memory_ms": round(warm * 1000, 2),
        "cold_vs_disk_cache_ratio": round(cold / cached_disk, 1) if cached_disk else None,
        "xml_prompt_ms": round(xml_time * 1000, 2),
        "text_prompt_ms": round(text_time * 1000, 2),
        "xml_tokens_per_skill": round(prompt.estimate_tokens(xml) / max(len(skills), 1), 1),
        "text_tokens_per_skill": round(prompt.estimate_tokens(text) / max(len(skills), 1), 1),
        "index_hash_stable": stable,
    }
    print(f"runtime benchmark: {count} SKILL.md files in 3 roots -> {len(skills)} skills "
          f"({figures['overrides']} overrides), median of {repeats}")
    for key in ("cold_scan_ms", "cached_from_disk_ms", "cached_in_memory_ms", "cold_vs_disk_cache_ratio",
                "xml_prompt_ms", "text_prompt_ms", "xml_tokens_per_skill", "text_tokens_per_skill",
                "index_hash_stable"):
        print(f"  {key:28} {figures[key]}")
    out = Path(__file__).resolve().parent / "results" / "runtime.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
