"""Security scan: recall and false positives of ours beside Cisco's `cisco-ai-skill-scanner`, and the time each takes.

    python benchmarks/bench_security.py [--quick] [--no-cisco] [--cisco-venv DIR] [--all-offline-corpus]

Inputs, each reported on its own:
- the tuned split (tests/security_sets/malicious and benign): written beside the rules, so an upper bound;
- the held-out split (tests/security_sets/heldout, labels in heldout/labels.json): samples rule writers never read.
  The figures that count for issue 34. Only counts are printed for it (by class), never the names of missed
  samples, so the output can be shared with rule writers;
- real folders, no labels (every flag is a false positive to review): ../shared/corpus and the skill folders of the
  extracted ../shared/upstream trees at their pinned commits (code included), each skipped, saying so, when absent.
Verdicts: ours flags a skill when it has any `security-*` finding and blocks it when one is an error. Cisco's
scanner (its offline analyzers only: the default static, YARA and pipeline checks; no LLM, no VirusTotal) flags a
skill when it reports a finding of MEDIUM or higher and blocks it when it marks the skill unsafe (HIGH/CRITICAL).
Cisco's scanner is pip-installed into a scratch virtualenv by this script (or taken from --cisco-venv); when that
fails (no package index), its columns say why and ours are still measured. Figures go to
benchmarks/results/security.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from tests.security_sets import ROOT as SETS  # noqa: E402
from tests.security_sets import materialize  # noqa: E402

from skillyard.format import Policy, load_skill  # noqa: E402

CISCO = "cisco-ai-skill-scanner==2.3.2"
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
UPSTREAM = SHARED / "upstream"
# The tuned split names its class in the folder's prefix; these are issue 34's five classes (the last two tuned
# prefixes, agent-safety bypass and typosquats, and reverse shells and opaque content, are classes of their own).
TUNED_CLASSES = {"installer": "download-and-run", "downloadexec": "download-and-run", "lure": "download-and-run",
                 "exfil": "data theft",
                 "injection": "instructions that hijack the agent", "obfuscation": "obfuscation",
                 "persistence": "persistence", "bypass": "agent-safety bypass", "typosquat": "typosquat",
                 "reverseshell": "reverse shell", "opaque": "opaque content"}


def skill_folders(top: Path) -> list[Path]:
    return sorted(Path(d) for d, _, names in os.walk(top) if "SKILL.md" in names)


def extract_upstream(into: Path) -> tuple[Path | None, str]:
    """The pinned tree of every repository in ../shared/upstream/index.json, extracted under `into`."""
    index = UPSTREAM / "index.json"
    if not index.is_file():
        return None, f"skipped: {UPSTREAM} is not there"
    for repo in json.loads(index.read_text())["repositories"]:
        tarball = next(UPSTREAM.glob(f"*/{repo['pin']['tarball']}"), None)
        if tarball is None:
            continue
        target = into / tarball.parent.name
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarball) as tar:
            tar.extractall(target, filter="data")
    return into, ""


def ours(folders: list[Path]) -> tuple[dict[str, dict], float]:
    verdicts = {}
    start = time.perf_counter()
    for folder in folders:
        found = [f for f in load_skill(folder, Policy(strict=False)).findings if f.rule.startswith("security-")]
        verdicts[str(folder)] = {"flagged": bool(found), "blocked": any(f.is_error for f in found),
                                 "why": [f"{f.rule} {f.file}:{f.line}: {f.message[:160]}" for f in found if f.is_error]}
    return verdicts, time.perf_counter() - start


def install_cisco(scratch: Path, given: str | None) -> tuple[Path | None, str]:
    if given:
        scanner = Path(given) / "bin" / "skill-scanner"
        return (scanner, "") if scanner.is_file() else (None, f"no skill-scanner in {given}")
    venv = scratch / "cisco-venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", CISCO], capture_output=True, text=True,
                              timeout=900)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"could not create its virtualenv: {exc}"
    if done.returncode != 0:
        return None, f"`pip install {CISCO}` failed: {done.stderr.strip().splitlines()[-1:]}"
    return venv / "bin" / "skill-scanner", ""


# Cisco's configurations: its default, and every analyzer and rule pack that needs no network or API key (the
# behavioural dataflow analyzer, trigger specificity, and the `atr` and `promptguard` signature packs that
# `--rule-packs list` names in 2.3.2).
CISCO_CONFIGS = {
    "cisco": [],
    "cisco_all_offline": ["--use-behavioral", "--use-trigger", "--rule-packs", "atr", "promptguard"],
}


def cisco(scanner: Path, top: Path, folders: list[Path], scratch: Path,
          extra: list[str] = ()) -> tuple[dict[str, dict], float, float]:
    """Verdicts, wall seconds and CPU seconds (the scanner and its children, from wait4) of one scan-all run."""
    out = scratch / f"cisco-{abs(hash(str(top)))}-{len(extra)}.json"
    start = time.perf_counter()
    child = subprocess.Popen([str(scanner), "scan-all", str(top), "--recursive", "--format", "json",
                              "--output-json", str(out), *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    report = json.loads(out.read_text()) if out.exists() else {"results": []}
    by_path = {str(Path(r["skill_path"]).resolve()): r for r in report.get("results", [])}
    verdicts = {}
    for folder in folders:
        result = by_path.get(str(folder.resolve()), {})
        severities = {str(f.get("severity", "")).upper() for f in result.get("findings", [])}
        verdicts[str(folder)] = {"flagged": bool(severities & {"MEDIUM", "HIGH", "CRITICAL"}),
                                 "blocked": result.get("is_safe") is False, "scanned": bool(result)}
    return verdicts, elapsed, usage.ru_utime + usage.ru_stime


def rates(verdicts: dict[str, dict]) -> dict:
    count = len(verdicts) or 1
    flagged = sum(v["flagged"] for v in verdicts.values())
    blocked = sum(v["blocked"] for v in verdicts.values())
    return {"skills": len(verdicts), "flagged": flagged, "blocked": blocked,
            "flagged_rate": round(flagged / count, 4), "blocked_rate": round(blocked / count, 4)}


def by_class(verdicts: dict[str, dict], classes: dict[str, str]) -> dict[str, dict]:
    """Flagged and blocked counts per class; `classes` maps a folder's name to its class."""
    table: dict[str, dict] = defaultdict(lambda: {"samples": 0, "flagged": 0, "blocked": 0})
    for path, verdict in verdicts.items():
        row = table[classes[Path(path).name]]
        row["samples"] += 1
        row["flagged"] += verdict["flagged"]
        row["blocked"] += verdict["blocked"]
    return dict(sorted(table.items()))


def heldout_classes() -> dict[str, str]:
    labels = json.loads((SETS / "heldout" / "labels.json").read_text(encoding="utf-8"))["samples"]
    return {name.split("/", 1)[1]: label["class"] for name, label in labels.items()}


def inputs_for(args, scratch: Path, results: dict) -> dict[str, tuple[Path, list[Path], dict | None]]:
    """name -> (top folder, skill folders, folder name -> class or None when unlabelled)."""
    sets = scratch / "sets"
    tuned = {p.name: TUNED_CLASSES[p.name.rsplit("-", 1)[0]] for p in (SETS / "malicious").iterdir()}
    held = heldout_classes()
    inputs = {
        "tuned_malicious": (sets / "malicious", materialize("malicious", sets), tuned),
        "tuned_benign": (sets / "benign", materialize("benign", sets), None),
        "heldout_malicious": (sets / "heldout" / "malicious", materialize("heldout/malicious", sets), held),
        "heldout_benign": (sets / "heldout" / "benign", materialize("heldout/benign", sets), None),
    }
    if args.quick:
        return inputs
    if CORPUS.is_dir():
        inputs["real_corpus"] = (CORPUS, skill_folders(CORPUS), None)
    else:
        results["real_corpus"] = f"skipped: {CORPUS} is not there"
    upstream, why = extract_upstream(scratch / "upstream")
    if upstream is None:
        results["real_upstream"] = why
    else:
        inputs["real_upstream"] = (upstream, skill_folders(upstream), None)
    return inputs


def measure(name: str, top: Path, folders: list[Path], classes: dict | None, scanner: Path | None, args,
            scratch: Path) -> dict:
    verdicts, seconds = ours(folders)
    row: dict = {"ours": {**rates(verdicts), "seconds": round(seconds, 3)}}
    if classes is not None:
        row["ours"]["by_class"] = by_class(verdicts, classes)
    if name == "tuned_malicious":  # names of missed samples: only for the split rule writers may read
        row["ours"]["missed"] = sorted(Path(k).name for k, v in verdicts.items() if not v["blocked"])
    if name.startswith("real_") or name == "tuned_benign":
        row["ours"]["blocked_skills"] = {str(Path(k).relative_to(top)): v["why"]
                                         for k, v in verdicts.items() if v["blocked"]}
    if name == "heldout_benign":
        row["ours"]["note"] = "hard negatives: names of flagged ones are left out (held-out split)"
    for config, extra in CISCO_CONFIGS.items() if scanner is not None else ():
        if config != "cisco" and name.startswith("real_") and not args.all_offline_corpus:
            row[config] = "skipped on real folders (over 8 minutes); --all-offline-corpus runs it"
            continue
        theirs, wall, cpu = cisco(scanner, top, folders, scratch, extra)
        row[config] = {**rates(theirs), "seconds": round(wall, 3), "cpu_seconds": round(cpu, 3), "flags": extra,
                       "not_scanned": sum(not v["scanned"] for v in theirs.values())}
        if classes is not None:
            row[config]["by_class"] = by_class(theirs, classes)
    return row


def report_line(name: str, row: dict) -> str:
    def cell(v: dict) -> str:
        return f"{v['flagged']}/{v['skills']} flagged, {v['blocked']} blocked, {v['seconds']} s"
    line = f"{name:18s} ours: {cell(row['ours'])}" + "".join(
        f" | {config}: {cell(row[config])}" for config in CISCO_CONFIGS if isinstance(row.get(config), dict))
    for cls, counts in row["ours"].get("by_class", {}).items():
        theirs = row.get("cisco", {}).get("by_class", {}).get(cls) if isinstance(row.get("cisco"), dict) else None
        line += (f"\n    {cls:36s} ours {counts['flagged']}/{counts['samples']} flagged, {counts['blocked']} blocked"
                 + (f" | cisco {theirs['flagged']}/{theirs['samples']} flagged, {theirs['blocked']} blocked"
                    if theirs else ""))
    return line


def real_total(results: dict) -> dict:
    """The real rows summed, per scanner (the corpus and the upstream trees share some repositories: a skill in
    both counts twice)."""
    total: dict = {}
    for name, row in results.items():
        if not name.startswith("real_") or not isinstance(row, dict):
            continue
        for scanner, figures in row.items():
            if isinstance(figures, dict):
                sums = total.setdefault(scanner, {"skills": 0, "flagged": 0, "blocked": 0})
                for key in sums:
                    sums[key] += figures[key]
    for sums in total.values():
        sums["flagged_rate"] = round(sums["flagged"] / (sums["skills"] or 1), 4)
        sums["blocked_rate"] = round(sums["blocked"] / (sums["skills"] or 1), 4)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="labelled sets only (no real folders)")
    parser.add_argument("--no-cisco", action="store_true", help="measure ours only")
    parser.add_argument("--cisco-venv", help=f"a virtualenv that already has {CISCO} (skips the install)")
    parser.add_argument("--all-offline-corpus", action="store_true",
                        help="also run Cisco with every offline analyzer and rule pack over the real folders (slow)")
    args, _ = parser.parse_known_args()
    results: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": os.getloadavg()[0],
                     "verdicts": "ours: any security-* finding flags, an error blocks; cisco: MEDIUM+ flags, "
                                 "is_safe=false blocks",
                     "splits": "tuned: tests/security_sets/{malicious,benign}, written beside the rules; heldout: "
                               "tests/security_sets/heldout, never read by rule writers; real: unlabelled folders"}
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        scratch = Path(tmp)
        inputs = inputs_for(args, scratch, results)
        scanner, why = (None, "--no-cisco given") if args.no_cisco else install_cisco(scratch, args.cisco_venv)
        if scanner is None:
            results["cisco"] = f"skipped: {why}"
        for name, (top, folders, classes) in inputs.items():
            results[name] = measure(name, top, folders, classes, scanner, args, scratch)
            print(report_line(name, results[name]), flush=True)
    results["real_total"] = real_total(results)
    out = ROOT / "benchmarks" / "results" / "security.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    print(f"written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
