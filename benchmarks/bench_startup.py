"""Start-up: `skill --help`, `skill list`, `skill prompt` and `skillyard --help` beside a bare `python -c pass`,
run interleaved in the same loop so that a busy machine slows every one alike.

    python benchmarks/bench_startup.py [--runs 15] [--quick]

Each command runs as a fresh process (the console scripts' own code: `python -c "from skillyard.cli.main import
..."`) in a fresh HOME and project folder holding one installed (local) skill, after one warm-up run. Writes benchmarks/results/startup.json: each
command's median/min/max wall time in ms, the yardstick's, and the ratio of medians. Not a test: nothing here
asserts a time, and no test does.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "startup.json"
TARGET_MS = 100.0
YARDSTICK = ("python -c pass", "pass")
COMMANDS = {
    "skill --help": "from skillyard.cli.main import skill_main; skill_main(['--help'])",
    "skill list": "import sys; from skillyard.cli.main import skill_main; sys.exit(skill_main(['list']))",
    "skill prompt": "import sys; from skillyard.cli.main import skill_main; sys.exit(skill_main(['prompt']))",
    "skillyard --help": "from skillyard.cli.main import skillyard_main; skillyard_main(['--help'])",
}


def measure(commands: dict[str, str], runs: int, workdir: Path) -> dict[str, list[float]]:
    """Wall times (ms) of each `python -c CODE`, interleaved with the yardstick, `runs` times after a warm-up."""
    home = workdir / "home"
    project = workdir / "project"
    home.mkdir(exist_ok=True)
    project.mkdir(exist_ok=True)
    # Bytecode is written to a scratch prefix in the warm-up round: PYTHONDONTWRITEBYTECODE set to anything, even
    # "0", stops writing it, so every run recompiled each source edited since its .pyc (timed as start-up).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
                "PYTHONPYCACHEPREFIX": str(workdir / "pycache")})
    example = Path(__file__).resolve().parents[1] / "skills" / "csv-profiler"
    if example.is_dir() and not (home / ".skillcli").exists():  # `skill list` has one (local) skill to show
        subprocess.run([sys.executable, "-c", "import sys; from skillyard.cli.main import skill_main; "
                        f"sys.exit(skill_main(['install', {str(example)!r}]))"], cwd=project, env=env,
                       capture_output=True, timeout=120, check=True)
    everything = {YARDSTICK[0]: YARDSTICK[1], **commands}
    samples: dict[str, list[float]] = {name: [] for name in everything}
    for round_ in range(runs + 1):
        for name, code in everything.items():
            started = time.perf_counter()
            result = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True,
                                    timeout=60)
            elapsed = (time.perf_counter() - started) * 1000
            if result.returncode not in (0,):
                raise RuntimeError(f"{name} failed ({result.returncode}): {result.stderr.decode()[-500:]}")
            if round_:  # the first round only warms the page cache and the bytecode
                samples[name].append(elapsed)
    return samples


def summary(samples: dict[str, list[float]]) -> dict:
    bare = statistics.median(samples[YARDSTICK[0]])
    out = {}
    for name, times in samples.items():
        median = statistics.median(times)
        out[name] = {"median_ms": round(median, 1), "min_ms": round(min(times), 1), "max_ms": round(max(times), 1),
                     "ratio_to_bare_python": round(median / bare, 2)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="5 runs (what `nox -s bench -- --quick` passes)")
    args = parser.parse_args()
    if args.quick:
        args.runs = 5
    with tempfile.TemporaryDirectory() as tmp:
        samples = measure(COMMANDS, args.runs, Path(tmp))
    figures = summary(samples)
    results = {"date": datetime.date.today().isoformat(), "machine_cores": os.cpu_count(), "runs": args.runs,
               "target_ms": TARGET_MS, "yardstick": YARDSTICK[0], "commands": figures}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    for name, figure in figures.items():
        print(f"{name:<18} median {figure['median_ms']:7.1f} ms  min {figure['min_ms']:7.1f}  "
              f"max {figure['max_ms']:7.1f}  x{figure['ratio_to_bare_python']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
