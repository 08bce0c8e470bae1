"""Registry benchmark: validate + build throughput at 1,000 and 10,000 synthetic skills, an incremental rebuild,
and the reference validator (`skills-ref`) on the same folders for comparison.

    python benchmarks/bench_registry.py [--quick] [--sizes 1000 10000] [--repeat 5]

Figures go to benchmarks/results/registry.json. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "registry.json"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
WORDS = ["parse", "report", "table", "invoice", "review", "deploy", "lint", "chart", "summary", "schema", "query", "cache", "export", "import", "audit", "render", "plan", "test", "docs", "build", "index", "search", "merge", "clean", "format", "check"]
BODY = "\n".join(f"{i}. Step {i}: " + " ".join(random.Random(i).choices(WORDS, k=14)) + "." for i in range(1, 30))


def skill_files(index: int) -> dict[str, str]:
    rnd = random.Random(index)
    name = f"skill-{index:05d}"
    tags = sorted(set(rnd.choices(WORDS, k=3)))
    files = {
        "SKILL.md": (f"---\nname: {name}\ndescription: \"Helps {rnd.choice(WORDS)} and {rnd.choice(WORDS)} "
                     f"work. Use when the user asks about {rnd.choice(WORDS)}.\"\nversion: \"1.{index % 7}.0\"\n"
                     f"license: MIT\ntags: [{', '.join(tags)}]\nauthor: bench\n---\n# {name}\n\n{BODY}\n"),
        "scripts/run.py": f"import sys\nprint('skill {index}', sys.argv[1:])\n",
        "references/guide.md": f"# Guide {index}\n\n" + BODY[:600] + "\n",
    }
    for extra in range(rnd.randint(0, 3)):
        files[f"assets/template-{extra}.txt"] = f"template {extra} for {name}\n" * 5
    return files


def make_registry(root: Path, count: int) -> None:
    (root / "pyproject.toml").write_text('[tool.skillyard]\nname = "bench"\nrepository = "bench/skills"\n'
                                         'required_fields = ["version", "license", "tags"]\n')
    for index in range(count):
        folder = root / "skills" / f"skill-{index:05d}"
        for rel, text in skill_files(index).items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=GIT_ENV)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True, env=GIT_ENV)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "-m", "skills"], check=True, env=GIT_ENV)


def timed(args: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def bench_size(count: int, repeat: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="skillyard-bench-") as scratch:
        root = Path(scratch)
        start = time.perf_counter()
        make_registry(root, count)
        setup = time.perf_counter() - start
        skillyard = [sys.executable, "-m", "skillyard.cli.main"]
        full = [timed([*skillyard, "build", "--root", str(root), "--no-cache"]) for _ in range(repeat)]
        validate = [timed([*skillyard, "validate", "--root", str(root), "--no-cache"]) for _ in range(repeat)]
        timed([*skillyard, "build", "--root", str(root)])  # warm the cache
        incremental = []
        for change in range(repeat):
            target = root / "skills" / f"skill-{(change * 37) % count:05d}" / "SKILL.md"
            target.write_text(target.read_text() + f"\nChange {change}.\n")
            subprocess.run(["git", "-C", str(root), "commit", "-qam", f"change {change}"], check=True, env=GIT_ENV)
            incremental.append(timed([*skillyard, "build", "--root", str(root)]))
        reference = reference_validator(root / "skills")
        ours_rate = count / statistics.median(full)
        result = {
            "skills": count,
            "files": sum(1 for _ in (root / "skills").rglob("*") if _.is_file()),
            "setup_seconds": round(setup, 2),
            "build_full_seconds_median": round(statistics.median(full), 3),
            "build_full_seconds_runs": [round(x, 3) for x in full],
            "validate_full_seconds_median": round(statistics.median(validate), 3),
            "build_incremental_seconds_median": round(statistics.median(incremental), 3),
            "build_incremental_seconds_runs": [round(x, 3) for x in incremental],
            "build_skills_per_second": round(ours_rate, 1),
            **reference,
        }
        if reference.get("reference_skills_per_second"):
            result["throughput_ratio_vs_reference"] = round(ours_rate / reference["reference_skills_per_second"], 2)
        return result


def reference_validator(skills_dir: Path) -> dict:
    """skills-ref's validate() over every folder in one process (the issue's comparison)."""
    try:
        from skills_ref import validate
    except ImportError:
        return {"reference": "skills-ref not installed (pip install skills-ref)"}
    folders = sorted(p for p in skills_dir.iterdir() if p.is_dir())
    start = time.perf_counter()
    rejected = sum(1 for folder in folders if validate(folder))
    elapsed = time.perf_counter() - start
    return {"reference": "skills-ref validate()", "reference_seconds": round(elapsed, 3),
            "reference_skills_per_second": round(len(folders) / elapsed, 1), "reference_rejected": rejected}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1,000 skills only")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure; the median is reported (the first "
                        "run after writing 45,000 files is slow while the OS caches settle)")
    args = parser.parse_args()
    sizes = [1000] if args.quick else args.sizes
    env = os.environ.copy()
    env.pop("CI", None)
    os.environ.clear()
    os.environ.update(env)
    results = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "runs": []}
    for count in sizes:
        print(f"registry bench: {count} skills …", flush=True)
        figures = bench_size(count, args.repeat)
        results["runs"].append(figures)
        print(json.dumps(figures, indent=2), flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
