"""Install time for a 20-file skill from a loopback registry (median of several runs).

Serves a real git repository in raw-GitHub layout on 127.0.0.1 (the test fixture's GitServer), publishes a
registry with one 20-file skill, and times `skill install` into a fresh home each run, plus a project restore
from skills.lock.json. Run: python benchmarks/bench_client_install.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.gitserver import GitServer  # noqa: E402
from tests.support.registry import publish_registry, registry_url, skill_md  # noqa: E402

from skillyard.cli.main import skill_main  # noqa: E402


def spec(files: int) -> dict:
    body = {"SKILL.md": skill_md("bench-skill", "A skill with many files.", version="1.0.0", license="MIT")}
    for i in range(files - 1):
        body[f"references/part-{i:02d}.md"] = f"# Part {i}\n\n" + ("Some reference text. " * 200) + "\n"
    return {"name": "bench-skill", "description": "A skill with many files.", "version": "1.0.0", "files": body}


def run(argv: list[str]) -> float:
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = skill_main(argv)
    elapsed = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"skill {' '.join(argv)} failed: {out.getvalue()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer runs")
    args = parser.parse_args()
    runs = 3 if args.quick else 9
    files = 20
    tmp = Path(tempfile.mkdtemp(prefix="bench-install-"))
    server = GitServer(tmp / "server").start()
    try:
        publish_registry(server, "acme", "skills", [spec(files)])
        os.environ.update({"SKILLCLI_HOME": str(tmp / "cli"), "SKILL_GITHUB_RAW_URL": server.url,
                           "SKILL_GITHUB_CODELOAD_URL": server.url, "SKILL_CACHE_TTL": "600"})
        from skillyard.client.config import Source, edit

        with edit() as config:
            config.put_source(Source("acme", registry_url(server, "acme", "skills")))
        installs, restores = [], []
        for i in range(runs):
            home = tmp / f"home-{i}"
            home.mkdir()
            os.environ["HOME"] = str(home)
            installs.append(run(["install", "bench-skill", "--target", "claude-code"]))
            project = tmp / f"proj-{i}"
            project.mkdir()
            run(["install", "bench-skill", "--project-dir", str(project)])
            shutil.rmtree(project / ".agents")
            restores.append(run(["install", "--project-dir", str(project)]))
        size = sum(len(v) for v in spec(files)["files"].values())
        figures = {
            "files": files, "bytes": size, "runs": runs,
            "install_median_s": round(statistics.median(installs), 4),
            "install_min_s": round(min(installs), 4), "install_max_s": round(max(installs), 4),
            "restore_median_s": round(statistics.median(restores), 4),
            "requests_per_install": None,
        }
        server.clear_log()
        os.environ["HOME"] = str(tmp / "home-count")
        (tmp / "home-count").mkdir()
        run(["install", "bench-skill"])
        figures["requests_per_install"] = len(server.log)
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"skill install, {files}-file skill ({figures['bytes'] / 1024:.0f} KB) from a loopback registry, {runs} runs")
    print(f"  install  median {figures['install_median_s'] * 1000:.0f} ms "
          f"(min {figures['install_min_s'] * 1000:.0f}, max {figures['install_max_s'] * 1000:.0f})")
    print(f"  restore from skills.lock.json  median {figures['restore_median_s'] * 1000:.0f} ms")
    print(f"  HTTP requests per install (registry cached): {figures['requests_per_install']}")
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "client_install.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
