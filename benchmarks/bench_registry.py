"""Registry benchmark (issue 14, targets 1 and 2): validate and build, each beside its yardstick in the same run.

    python benchmarks/bench_registry.py [--quick] [--validate-only | --build-only] [--repeat 5] [--build-size 20000]
                                        [--build-repeat 5] [--cisco-venv DIR] [--ab-commit REV] [--real-only]

- validate, cache off (`CI=1`): `skillyard validate --lenient` vs skills-ref 0.1.1's `validate()` (one process over
  the same folders) on real folders: ../shared/corpus plus the skill folders of the ../shared/upstream trees at their
  pinned commits, extracted with their code (each skipped, saying so, when absent), and on 1,000 and 20,000
  synthetic standard-first skills (SKILL.md with the standard's keys, registry fields in skill.yaml). Wall and CPU
  (the child's and its workers', from wait4) per run; the ratio is skills-ref's wall over ours (throughput). Each
  round also times both on the first folder alone: the fixed cost (interpreter, imports) inside that ratio. Both run
  with warm bytecode, as installed tools do (PYTHONDONTWRITEBYTECODE would otherwise recompile our source each run),
  after one untimed full run each (the first read of freshly written files also writes their access times).
  Three more runs per round bound what any change to ours could reach: ours with the text scan switched off (the
  ceiling), ours with no scan at all (the text scan, the skill-level flows, the values' and archives' scans: what the
  format checks cost by themselves), and a bare program that only walks, reads, hashes and decodes every file on
  every core (the floor). From the second, `scan_budget` works out what the scan may cost at issue 34's 2.5x
  against what it costs now (how many times cheaper it would have to get).
- beside them on the real folders, Cisco's `cisco-ai-skill-scanner` 2.3.2 (`skill-scanner scan-all`, default
  analyzers; pip-installed into a scratch virtualenv, or taken from --cisco-venv): its wall and CPU on the same
  folders, one run (it takes minutes).
- build A/B (--ab-commit, default 5deeb7c^: the tree before the behaviour-based scan landed): the same registry
  built from scratch by our tree and by that commit's tree (`git archive`, put first on PYTHONPATH), alternating,
  --build-repeat times each; the figure is the CPU ratio ours / theirs (issue 34: at most 1). Beside it, ours with
  the text scan switched off (the validate ceiling's switch), and ours with no scan at all: the scan's CPU budget at
  the target (theirs less that) beside what the scan costs now.
- build: from scratch (`--no-cache`) at 20,000 skills, and incremental (cache warm) after one skill changed and was
  committed; peak memory is the largest resident set of the build or any of its workers (wait4's ru_maxrss).
  Yardstick: the issue's targets (8 s, 1 s, 1 GB), and the from-scratch build for the incremental ratio.

Figures are medians of `--repeat` runs with min and max. Everything goes to benchmarks/results/registry.json with the
date. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "registry.json"
CORPUS = HERE.parent.parent / "shared" / "corpus"
UPSTREAM = HERE.parent.parent / "shared" / "upstream"
CISCO = "cisco-ai-skill-scanner==2.3.2"
# The tree before the behaviour-based security scan landed (5deeb7c applied it): the build's CPU yardstick.
BEFORE_BEHAVIOUR_SCAN = "5deeb7c^"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.invalid",
           # No background `git gc --auto` after the bench's commits: it kept running (and writing in .git) through
           # the timed builds and the clean-up.
           "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "gc.auto", "GIT_CONFIG_VALUE_0": "0"}
WORDS = ["parse", "report", "table", "invoice", "review", "deploy", "lint", "chart", "summary", "schema", "query",
         "cache", "export", "import", "audit", "render", "plan", "test", "docs", "build", "index", "search", "merge",
         "clean", "format", "check"]
BODY = "\n".join(f"{i}. Step {i}: " + " ".join(random.Random(i).choices(WORDS, k=14)) + "." for i in range(1, 30))
SKILLS_REF = """
import sys
from pathlib import Path
from skills_ref import validate
folders = [Path(line) for line in Path(sys.argv[1]).read_text().splitlines()]
print(sum(1 for folder in folders if validate(folder)))
"""


def switched_off(*functions: str) -> str:
    """A program that runs our command line with each `module.function` of format/scan/ replaced by one finding
    nothing. Bench-only: the product has no such switch."""
    lines = "".join(f"    import skillyard.format.scan.{name.split('.')[0]}\n"
                    f"    skillyard.format.scan.{name} = lambda *args, **kwargs: []\n" for name in functions)
    return ("import sys\nfrom skillyard.recache import active\n"
            "with active():  # as the command itself imports the scanner: its patterns from the last run's cache\n"
            f"{lines}    from skillyard.cli.main import skillyard_main\n    status = skillyard_main(sys.argv[1:])\n"
            "sys.exit(status)\n")


# The ceiling: our validate with the text scan (format/scan/judge.scan_text, every file's prose and code) switched off
# (every other check, the reading and the hashing kept), so the figures say how much of the gap to the target the
# text scan is.
NO_SCAN = switched_off("judge.scan_text")
# No scan at all: as NO_SCAN, and the scans that need the whole skill (`skill_level`: the flows that cross files, which
# parse the scripts themselves when the per-file scan has not), the frontmatter values' scan and the archives' scan
# switched off too. What the format checks, the reading and the hashing cost by themselves: the scan's budget at a
# target is the target's time less this (`scan_budget`).
NO_SCAN_AT_ALL = switched_off("judge.scan_text", "skill_level.scan_skill", "values.scan_values", "opaque.scan")
# The floor: the least any Python validator that reads and hashes every file can do, on every core (one forked child
# per extra core, folders dealt out in turn): walk, read, sha256, decode UTF-8. No checks at all.
READ_HASH_FLOOR = """
import hashlib, os, sys
from pathlib import Path
folders = Path(sys.argv[1]).read_text().splitlines()
workers = os.cpu_count() or 1
me, children = 0, []
for number in range(1, workers):
    pid = os.fork()
    if pid == 0:
        me = number
        break
    children.append(pid)
count = 0
for folder in folders[me::workers]:
    for top, dirs, names in os.walk(folder):
        for name in names:
            data = Path(top, name).read_bytes()
            hashlib.sha256(data).hexdigest()
            if b"\\0" not in data[:8000]:
                data.decode("utf-8", "replace")
            count += 1
if me:
    os._exit(0)
for pid in children:
    os.waitpid(pid, 0)
print(count)
"""


def skill_files(index: int) -> dict[str, str]:
    """One valid standard-first skill: the standard's keys in SKILL.md, the registry's in skill.yaml."""
    rnd = random.Random(index)
    name = f"skill-{index:05d}"
    tags = sorted(set(rnd.choices(WORDS, k=3)))
    files = {
        "SKILL.md": (f"---\nname: {name}\ndescription: Helps {rnd.choice(WORDS)} and {rnd.choice(WORDS)} work. "
                     f"Use when the user asks about {rnd.choice(WORDS)}.\nlicense: MIT\n---\n# {name}\n\n{BODY}\n"),
        "skill.yaml": (f'schema_version: "1.0"\nversion: "1.{index % 7}.0"\nauthor: bench\n'
                       f"tags: [{', '.join(tags)}]\n"),
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
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "skills")
    # The files just written are still being written back to disk for about 30 s; a timed run in that window
    # measures the disk (the first of three 20,000-skill validate runs took 5.3 s against 3.1 s for the others).
    os.sync()


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, env=GIT_ENV, stdout=subprocess.DEVNULL)


def run(args: list[str], env: dict | None = None, ok: tuple[int, ...] = (0,), skills: int | None = None) -> dict:
    """Wall seconds, CPU seconds (the child and every worker it reaped) and peak RSS (MB) of one command. With
    `skills`, its stdout must be a JSON report over that many skills (so a crash never passes for a fast run)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(args, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if child.returncode not in ok:
        raise SystemExit(f"bench: {' '.join(args[:5])} … exited {child.returncode}:\n{stderr[-2000:]}")
    if skills is not None:
        try:
            counted = len(json.loads(stdout)["skills"])
        except (ValueError, KeyError, TypeError):
            raise SystemExit(f"bench: {' '.join(args[:5])} … printed no JSON report:\n{stderr[-2000:]}") from None
        if counted != skills:
            raise SystemExit(f"bench: {' '.join(args[:5])} … reported {counted} skills, expected {skills}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def stats(values: list[float], digits: int = 3) -> dict:
    return {"median": round(statistics.median(values), digits), "min": round(min(values), digits),
            "max": round(max(values), digits), "runs": len(values)}


def ours_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "skillyard.cli.main", *args]


def bytecode_env(env: dict, scratch: Path) -> dict:
    """Both tools as installed: compiled bytecode, kept in a scratch cache. skills-ref's site-packages come with it;
    our source tree (an editable install) has none when PYTHONDONTWRITEBYTECODE is set, and compiling it again on
    every run (~0.07 s) would be timed as validate's fixed cost."""
    env = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    return env


def warm_bytecode(env: dict, empty_root: Path, folder: Path, listing: Path) -> None:
    """One untimed run of each (and an import of validate's lazily loaded jsonschema) fills the bytecode cache."""
    run(ours_cmd("validate", "--lenient", "--no-cache", "--json", "--root", str(empty_root), str(folder)), env,
        ok=(0, 1))
    run([sys.executable, "-c", SKILLS_REF, str(listing)], env)
    run([sys.executable, "-c", "import jsonschema"], env)


def validate_pair(folders: list[Path], targets: list[Path], repeat: int, scratch: Path, label: str) -> dict:
    """Ours and skills-ref on the same folders, alternating, `repeat` times each; ratio = their wall / ours."""
    listing = scratch / f"{label}-folders.txt"
    listing.write_text("\n".join(str(f) for f in folders) + "\n")
    empty_root = scratch / "no-registry"
    empty_root.mkdir(exist_ok=True)
    env = bytecode_env({**os.environ, "CI": "1"}, scratch)  # CI=1: the cache is off
    one = scratch / f"{label}-one-folder.txt"
    one.write_text(f"{folders[0]}\n")
    warm_bytecode(env, empty_root, folders[0], one)
    # One untimed full run of each: the first read of a freshly written file updates its access time (relatime), a
    # write to every inode read; at 20,000 skills (100,000 files) our first runs took 6.4 and 4.1 s, then 3.1 s. It is
    # the disk's cost, paid once, and whichever tool ran first would pay it for the other.
    run(ours_cmd("validate", "--lenient", "--no-cache", "--json", "--root", str(empty_root), *map(str, targets)), env,
        ok=(0, 1), skills=len(folders))
    run([sys.executable, "-c", SKILLS_REF, str(listing)], env)
    ours, theirs, ours_one, theirs_one, no_scan, no_scan_at_all, floor = [], [], [], [], [], [], []
    for _ in range(repeat):
        ours.append(run(ours_cmd("validate", "--lenient", "--no-cache", "--json", "--root", str(empty_root),
                                 *map(str, targets)), env, ok=(0, 1), skills=len(folders)))
        theirs.append(run([sys.executable, "-c", SKILLS_REF, str(listing)], env))
        # One skill: the fixed cost (interpreter, imports, setup) that the throughput ratio also carries.
        ours_one.append(run(ours_cmd("validate", "--lenient", "--no-cache", "--json", "--root", str(empty_root),
                                     str(folders[0])), env, ok=(0, 1), skills=1))
        theirs_one.append(run([sys.executable, "-c", SKILLS_REF, str(one)], env))
        no_scan.append(run([sys.executable, "-c", NO_SCAN, "validate", "--lenient", "--no-cache", "--json", "--root",
                            str(empty_root), *map(str, targets)], env, ok=(0, 1), skills=len(folders)))
        no_scan_at_all.append(run([sys.executable, "-c", NO_SCAN_AT_ALL, "validate", "--lenient", "--no-cache",
                                   "--json", "--root", str(empty_root), *map(str, targets)], env, ok=(0, 1),
                                  skills=len(folders)))
        floor.append(run([sys.executable, "-c", READ_HASH_FLOOR, str(listing)], env))
    ratios = [t["wall"] / o["wall"] for o, t in zip(ours, theirs, strict=True)]
    count = len(folders)
    return {
        "skills": count,
        "ours_wall_seconds": stats([r["wall"] for r in ours]),
        "skills_ref_wall_seconds": stats([r["wall"] for r in theirs]),
        "ratio_throughput_vs_skills_ref": stats(ratios, 2),
        "ratio_target": 5.0,
        "ratio_target_issue_34": 2.5,
        "ours_cpu_ms_per_skill": stats([1000 * r["cpu"] / count for r in ours]),
        "skills_ref_cpu_ms_per_skill": stats([1000 * r["cpu"] / count for r in theirs]),
        "ratio_cpu_skills_ref_over_ours": stats([t["cpu"] / o["cpu"] for o, t in zip(ours, theirs, strict=True)], 2),
        "ours_one_skill_wall_seconds": stats([r["wall"] for r in ours_one]),
        "skills_ref_one_skill_wall_seconds": stats([r["wall"] for r in theirs_one]),
        "ours_one_skill_cpu_seconds": stats([r["cpu"] for r in ours_one]),
        "ceiling_no_scan_wall_seconds": stats([r["wall"] for r in no_scan]),
        "ceiling_no_scan_ratio_vs_skills_ref": stats([t["wall"] / n["wall"] for n, t in zip(no_scan, theirs,
                                                                                               strict=True)], 2),
        "ceiling_no_scan_at_all_wall_seconds": stats([r["wall"] for r in no_scan_at_all]),
        "ceiling_no_scan_at_all_cpu_seconds": stats([r["cpu"] for r in no_scan_at_all]),
        "ceiling_no_scan_at_all_ratio_vs_skills_ref": stats([t["wall"] / n["wall"] for n, t in
                                                             zip(no_scan_at_all, theirs, strict=True)], 2),
        "scan_budget_at_2_5x": scan_budget(ours, theirs, no_scan_at_all, 2.5),
        "floor_read_hash_wall_seconds": stats([r["wall"] for r in floor]),
        "floor_read_hash_ratio_vs_skills_ref": stats([t["wall"] / f["wall"] for f, t in zip(floor, theirs,
                                                                                              strict=True)], 2),
        "ceiling_and_floor": "ours with the text scan switched off (all else kept); ours with no scan at all (the "
                             "text scan, the skill-level flows, the values' and archives' scans); and a bare Python "
                             "program that only walks, reads, hashes and decodes every file on every core",
        "yardstick": "skills-ref 0.1.1 validate() over the same folders in one process (reads SKILL.md only; "
                     "ours also reads, scans and hashes every file)",
        "bytecode": "warm for both (PYTHONPYCACHEPREFIX in the scratch folder, one untimed run each first)",
    }


def scan_budget(ours: list[dict], theirs: list[dict], bare: list[dict], target: float) -> dict:
    """What the scan may cost for ours to be `target` times faster than skills-ref (wall), beside what it costs: per
    round, the target's wall (theirs / target) less ours without any scan is the scan's wall budget, and ours less
    ours without any scan is what the scan takes now; `times_cheaper` divides the one by the other."""
    budgets = [t["wall"] / target - b["wall"] for t, b in zip(theirs, bare, strict=True)]
    spent = [o["wall"] - b["wall"] for o, b in zip(ours, bare, strict=True)]
    return {"target": target, "scan_wall_budget_seconds": stats(budgets), "scan_wall_now_seconds": stats(spent),
            **times_cheaper(spent, budgets),
            "how": "per round: skills-ref's wall / target - ours with no scan at all = the budget; ours - ours with "
                   "no scan at all = the scan now; their ratio = how many times cheaper the scan must get"}


def times_cheaper(spent: list[float], budgets: list[float]) -> dict:
    """Round by round, how many times cheaper the scan must get to fit its budget (a round whose budget is gone, where
    even no scan at all misses the target, is counted apart)."""
    factors = [round(s / b, 1) for s, b in zip(spent, budgets, strict=True) if b > 0]
    return {"times_cheaper_needed": stats(factors, 1) if factors else None,
            "rounds_with_no_budget_left": len(spent) - len(factors)}


def extract_upstream(into: Path) -> Path | None:
    """The tree of every ../shared/upstream repository at its pinned commit (code included), under `into`."""
    index = UPSTREAM / "index.json"
    if not index.is_file():
        return None
    for repo in json.loads(index.read_text())["repositories"]:
        tarball = next(UPSTREAM.glob(f"*/{repo['pin']['tarball']}"), None)
        if tarball is not None:
            with tarfile.open(tarball) as tar:
                tar.extractall(into / tarball.parent.name, filter="data")
    return into


def real_folders(scratch: Path) -> tuple[list[Path], list[Path], dict]:
    """Skill folders of the corpus and of the extracted upstream trees; the tops (for Cisco's scan-all); counts."""
    found, tops, about = [], [], {}
    upstream = extract_upstream(scratch / "upstream")
    for name, top in (("corpus", CORPUS), ("upstream_pins", upstream)):
        if top is None or not top.is_dir():
            about[name] = f"skipped: {CORPUS if name == 'corpus' else UPSTREAM} is not there"
            continue
        folders = sorted({p.parent for p in top.rglob("SKILL.md") if p.is_file()})
        about[name] = {"top": str(top), "skills": len(folders)}
        found += folders
        tops.append(top)
    return found, tops, about


def bench_corpus(repeat: int, scratch: Path, cisco_venv: str | None = None) -> dict:
    folders, tops, about = real_folders(scratch)
    if not folders:
        print(f"registry bench: no real folders ({about}): skipped", flush=True)
        return {"skipped": about}
    files = sum(1 for folder in folders for _, _, names in os.walk(folder) for _ in names)
    result = {"real_folders": about, "files_in_skill_folders": files,
              **validate_pair(folders, folders, repeat, scratch, "real")}
    result["cisco_skill_scanner"] = cisco_beside(cisco_venv, tops, result, scratch)
    return result


def cisco_scanner(cisco_venv: str | None, scratch: Path) -> tuple[Path | None, str]:
    """`skill-scanner` from --cisco-venv, else pip-installed into a scratch virtualenv (as bench_security does)."""
    if cisco_venv == "none":
        return None, "skipped: --cisco-venv none"
    if cisco_venv:
        scanner = Path(cisco_venv) / "bin" / "skill-scanner"
        return (scanner, "") if scanner.is_file() else (None, f"skipped: no skill-scanner in {cisco_venv}")
    venv = scratch / "cisco-venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", CISCO], capture_output=True, text=True,
                              timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"skipped: could not create its virtualenv: {exc}"
    if done.returncode != 0:
        return None, f"skipped: `pip install {CISCO}` failed: {done.stderr.strip().splitlines()[-1:]}"
    return venv / "bin" / "skill-scanner", ""


def cisco_beside(cisco_venv: str | None, tops: list[Path], ours: dict, scratch: Path) -> dict | str:
    """Cisco's scanner (default analyzers) over the same real folders, one run: wall and CPU beside ours."""
    scanner, why = cisco_scanner(cisco_venv, scratch)
    if scanner is None:
        return why
    walls, cpus = 0.0, 0.0
    for number, top in enumerate(tops):
        figures = run([str(scanner), "scan-all", str(top), "--recursive", "--format", "json", "--output-json",
                       str(scratch / f"cisco-{number}.json")], ok=(0, 1, 2))
        walls += figures["wall"]
        cpus += figures["cpu"]
    ours_cpu = ours["ours_cpu_ms_per_skill"]["median"] * ours["skills"] / 1000
    return {"version": f"{CISCO}, default analyzers, one run", "wall_seconds": round(walls, 2),
            "cpu_seconds": round(cpus, 2),
            "ratio_wall_cisco_over_ours": round(walls / ours["ours_wall_seconds"]["median"], 1),
            "ratio_cpu_cisco_over_ours": round(cpus / ours_cpu, 1)}


def build_ab(commit: str, count: int, repeat: int, scratch: Path) -> dict:
    """Our tree and `commit`'s tree build the same registry from scratch, alternating; CPU ratio ours / theirs."""
    found = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--verify", "-q", f"{commit}^{{commit}}"],
                           capture_output=True, text=True)
    if found.returncode != 0:
        return {"skipped": f"{commit} is not in this clone (a shallow clone?)"}
    sha = found.stdout.strip()
    old = scratch / f"tree-{sha[:10]}"
    old.mkdir()
    archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", sha], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(old, filter="data")
    root = scratch / f"registry-ab-{count}"
    root.mkdir()
    make_registry(root, count)
    env = bytecode_env({k: v for k, v in os.environ.items() if k != "CI"}, scratch)
    old_env = {**env, "PYTHONPATH": str(old / "tools"), "PYTHONPYCACHEPREFIX": str(scratch / "pycache-old")}
    where = [sys.executable, "-c", "import skillyard, sys; print(skillyard.__file__)"]
    if not subprocess.run(where, env=old_env, capture_output=True, text=True).stdout.startswith(str(old)):
        raise SystemExit(f"bench: PYTHONPATH={old / 'tools'} does not reach the old tree's skillyard")
    no_scan_cmd = [sys.executable, "-c", NO_SCAN, "build", "--root", str(root), "--no-cache"]
    bare_cmd = [sys.executable, "-c", NO_SCAN_AT_ALL, "build", "--root", str(root), "--no-cache"]
    for one in (env, old_env):  # warm bytecode and the disk, untimed
        run(ours_cmd("build", "--root", str(root), "--no-cache"), one)
    run(no_scan_cmd, env)
    run(bare_cmd, env)
    ours, theirs, no_scan, bare = [], [], [], []
    for _ in range(repeat):
        ours.append(run(ours_cmd("build", "--root", str(root), "--no-cache"), env))
        theirs.append(run(ours_cmd("build", "--root", str(root), "--no-cache"), old_env))
        no_scan.append(run(no_scan_cmd, env))
        bare.append(run(bare_cmd, env))
    # The scan's CPU budget at the target (no more CPU than the older tree): theirs less ours with no scan at all.
    budgets = [t["cpu"] - b["cpu"] for t, b in zip(theirs, bare, strict=True)]
    spent = [o["cpu"] - b["cpu"] for o, b in zip(ours, bare, strict=True)]
    shutil.rmtree(root, ignore_errors=True)  # a git maintenance child may still be writing in .git
    return {"skills": count, "against": f"{commit} = {sha}", "ours_cpu_seconds": stats([r["cpu"] for r in ours]),
            "theirs_cpu_seconds": stats([r["cpu"] for r in theirs]),
            "ours_wall_seconds": stats([r["wall"] for r in ours]),
            "theirs_wall_seconds": stats([r["wall"] for r in theirs]),
            "ratio_cpu_ours_over_theirs": stats([o["cpu"] / t["cpu"] for o, t in zip(ours, theirs, strict=True)], 2),
            # Ours with the text scan switched off (as validate's ceiling): how much of the ratio the scan is, and
            # what the rest of the build costs beside the older tree's whole build.
            "ours_no_text_scan_cpu_seconds": stats([r["cpu"] for r in no_scan]),
            "ratio_cpu_ours_no_text_scan_over_theirs": stats([n["cpu"] / t["cpu"] for n, t in zip(no_scan, theirs,
                                                                                                  strict=True)], 2),
            # Ours with no scan at all (validate's NO_SCAN_AT_ALL): the scan's CPU budget is theirs less this.
            "ours_no_scan_at_all_cpu_seconds": stats([r["cpu"] for r in bare]),
            "ratio_cpu_ours_no_scan_at_all_over_theirs": stats([b["cpu"] / t["cpu"] for b, t in zip(bare, theirs,
                                                                                                    strict=True)], 2),
            "scan_cpu_budget_seconds": stats(budgets), "scan_cpu_now_seconds": stats(spent),
            "scan_times_cheaper_needed": times_cheaper(spent, budgets),
            "target": "at most 1.0 (issue 34: no more CPU than before the behaviour scan)"}


def build_only(args) -> int:
    """The build figures alone (no skills-ref needed): a registry of --build-size skills, from scratch and after one
    change."""
    count = 1000 if args.quick else args.build_size
    results = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                           "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}}
    with tempfile.TemporaryDirectory(prefix="skillyard-bench-") as tmp:
        root = Path(tmp) / f"registry-{count}"
        root.mkdir()
        print(f"registry bench: build at {count} synthetic skills …", flush=True)
        make_registry(root, count)
        results["build"] = {"skills": count, **bench_build(root, count, args.build_repeat, Path(tmp))}
    print(json.dumps(results["build"], indent=2), flush=True)
    out = RESULTS.with_name("registry-build.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


def ab_only(args) -> int:
    """The build A/B alone: ours against --ab-commit's tree (default 5deeb7c^) at --build-size skills."""
    results = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                           "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}}
    with tempfile.TemporaryDirectory(prefix="skillyard-bench-", ignore_cleanup_errors=True) as tmp:
        results["build_ab"] = build_ab(args.ab_commit, 1000 if args.quick else args.build_size,
                                       args.build_repeat, Path(tmp))
    print(json.dumps(results["build_ab"], indent=2), flush=True)
    out = RESULTS.with_name("registry-build-ab.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


def bench_synthetic(count: int, repeat: int, build_repeat: int, scratch: Path, *, build: bool) -> dict:
    root = scratch / f"registry-{count}"
    root.mkdir()
    start = time.perf_counter()
    make_registry(root, count)
    result: dict = {"skills": count, "setup_seconds": round(time.perf_counter() - start, 1),
                    "files": sum(1 for p in (root / "skills").rglob("*") if p.is_file())}
    folders = sorted(p for p in (root / "skills").iterdir() if p.is_dir())
    result["validate"] = validate_pair(folders, [root / "skills"], repeat, scratch, f"synthetic-{count}")
    if build:
        result["build"] = bench_build(root, count, build_repeat, scratch)
    shutil.rmtree(root)
    return result


def bench_build(root: Path, count: int, repeat: int, scratch: Path) -> dict:
    # Warm bytecode, as validate has: without it every timed build recompiled the build's modules
    # (PYTHONDONTWRITEBYTECODE), ~0.1 s of fixed cost inside the incremental build's 1 s target.
    env = bytecode_env({k: v for k, v in os.environ.items() if k != "CI"}, scratch)
    run([sys.executable, "-c", "import skillyard.cli.main, skillyard.cli.skillyard_cmds.build, skillyard.registry.build, "
         "skillyard.registry.report, skillyard.format.package, skillyard.cli.common"], env)
    scratch_runs = [run(ours_cmd("build", "--root", str(root), "--no-cache"), env) for _ in range(repeat)]
    run(ours_cmd("build", "--root", str(root)), env)  # fills the cache
    # As in a registry made by `skillyard init-registry`: the local cache is never committed (committed, every
    # `commit -a` below re-hashed ~130 MB of it, and git's view of the working tree included it).
    (root / ".gitignore").write_text(".skillyard-cache/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "outputs")
    run(ours_cmd("build", "--root", str(root)), env)  # the cache now knows this HEAD
    incremental = []
    for change in range(repeat):
        target = root / "skills" / f"skill-{(change * 37) % count:05d}" / "SKILL.md"
        target.write_text(target.read_text() + f"\nChange {change}.\n")
        git(root, "commit", "-qam", f"change {change}")
        incremental.append(run(ours_cmd("build", "--root", str(root)), env))
    full_median = statistics.median(r["wall"] for r in scratch_runs)
    return {
        "from_scratch_seconds": stats([r["wall"] for r in scratch_runs]),
        "from_scratch_target_seconds": 8.0 if count == 20000 else None,
        "from_scratch_cpu_seconds": stats([r["cpu"] for r in scratch_runs]),
        "from_scratch_peak_rss_mb": stats([r["rss_mb"] for r in scratch_runs], 1),
        "incremental_seconds": stats([r["wall"] for r in incremental]),
        "incremental_target_seconds": 1.0 if count == 20000 else None,
        "incremental_peak_rss_mb": stats([r["rss_mb"] for r in incremental], 1),
        "ratio_from_scratch_over_incremental": round(full_median / statistics.median(r["wall"] for r in incremental),
                                                     2),
        "peak_memory_target_mb": 1024,
        "peak_memory_note": "largest single process (the build or one of its workers), from wait4's ru_maxrss",
        "yardstick": "the issue's targets; incremental is compared with the from-scratch build of the same run",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="corpus and 1,000 skills only (builds at 1,000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per validate figure (median, min, max)")
    parser.add_argument("--build-size", type=int, default=20000)
    parser.add_argument("--build-repeat", type=int, default=5, help="runs per build figure")
    parser.add_argument("--validate-only", action="store_true", help="skip the builds (validate figures only)")
    parser.add_argument("--build-only", action="store_true", help="the builds alone, at --build-size (1,000 with "
                        "--quick); figures go to results/registry-build.json")
    parser.add_argument("--large-repeat", type=int, default=3, help="runs per validate figure at --build-size "
                        "(skills-ref takes about a minute a run there)")
    parser.add_argument("--cisco-venv", help=f"a virtualenv that has {CISCO} (default: installed into a scratch one; "
                        "'none' skips it): its scan-all runs once over the same real folders, beside ours")
    parser.add_argument("--ab-commit", default=BEFORE_BEHAVIOUR_SCAN, help="with the 20,000-skill build, build "
                        "the same registry from scratch with this commit's tree too, alternating (CPU ratio); "
                        f"default {BEFORE_BEHAVIOUR_SCAN}, the tree before the behaviour-based scan; 'none' skips")
    parser.add_argument("--ab-only", action="store_true", help="only the build A/B (--ab-commit); figures go to "
                        "results/registry-build-ab.json")
    parser.add_argument("--real-only", action="store_true", help="only validate on the real folders (and Cisco "
                        "beside it); figures go to results/registry-real.json")
    args = parser.parse_args()
    if args.build_only:
        return build_only(args)
    if args.ab_only:
        return ab_only(args)
    try:
        import skills_ref  # noqa: F401
    except ImportError:
        print("registry bench: skills-ref is not installed here (pip install skills-ref==0.1.1; `nox -s bench` "
              "installs it)", file=sys.stderr)
        return 2
    results: dict = {"date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                 "load_average_at_start": [round(x, 2) for x in os.getloadavg()]}}
    with tempfile.TemporaryDirectory(prefix="skillyard-bench-") as tmp:
        scratch = Path(tmp)
        print("registry bench: validate on the real folders …", flush=True)
        results["validate_corpus"] = bench_corpus(args.repeat, scratch, args.cisco_venv)
        print(json.dumps(results["validate_corpus"], indent=2), flush=True)
        if args.real_only:
            out = RESULTS.with_name("registry-real.json")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(results, indent=2) + "\n")
            print(f"wrote {out}")
            return 0
        sizes = [(1000, args.quick)] if args.quick else [(1000, False), (args.build_size, True)]
        results["synthetic"] = []
        for count, build in sizes:
            print(f"registry bench: {count} synthetic skills …", flush=True)
            repeat = args.large_repeat if count == args.build_size else args.repeat
            figures = bench_synthetic(count, repeat, args.build_repeat, scratch,
                                      build=build and not args.validate_only)
            results["synthetic"].append(figures)
            print(json.dumps(figures, indent=2), flush=True)
        if args.ab_commit != "none" and not args.validate_only:
            print(f"registry bench: build A/B against {args.ab_commit} …", flush=True)
            results["build_ab"] = build_ab(args.ab_commit, 1000 if args.quick else args.build_size,
                                           args.build_repeat, scratch)
            print(json.dumps(results["build_ab"], indent=2), flush=True)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
