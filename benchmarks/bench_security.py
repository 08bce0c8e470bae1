"""Security scan: recall and false positives of ours beside Cisco's `cisco-ai-skill-scanner`, and the time each takes.

Inputs: the committed labelled sets (tests/security_sets: inert malicious samples and hard negatives) and, when it is
there, ../shared/corpus (real skills, no labels: every flag there counts as a false positive to review).
Verdicts: ours flags a skill when it has any `security-*` finding and blocks it when one is an error. Cisco's
scanner (its offline analyzers only: the default static, YARA and pipeline checks; no LLM, no VirusTotal) flags a
skill when it reports a finding of MEDIUM or higher and blocks it when it marks the skill unsafe (HIGH/CRITICAL).
Cisco's scanner is pip-installed into a scratch virtualenv by this script; when that fails (no package index), its
columns say why and ours are still measured. Figures go to benchmarks/results/security.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from tests.security_sets import materialize  # noqa: E402

from skillyard.format import Policy, load_skill  # noqa: E402

CISCO = "cisco-ai-skill-scanner==2.3.2"
CORPUS = ROOT.parent / "shared" / "corpus"


def skill_folders(top: Path) -> list[Path]:
    return sorted(Path(d) for d, _, names in os.walk(top) if "SKILL.md" in names)


def ours(folders: list[Path]) -> tuple[dict[str, dict], float]:
    verdicts = {}
    start = time.perf_counter()
    for folder in folders:
        found = [f for f in load_skill(folder, Policy(strict=False)).findings if f.rule.startswith("security-")]
        verdicts[str(folder)] = {"flagged": bool(found), "blocked": any(f.is_error for f in found),
                                 "why": [f"{f.rule} {f.file}:{f.line}: {f.message[:160]}" for f in found if f.is_error]}
    return verdicts, time.perf_counter() - start


def install_cisco(scratch: Path) -> tuple[Path | None, str]:
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
          extra: list[str] = ()) -> tuple[dict[str, dict], float]:
    out = scratch / f"cisco-{abs(hash(str(top)))}-{len(extra)}.json"
    start = time.perf_counter()
    subprocess.run([str(scanner), "scan-all", str(top), "--recursive", "--format", "json", "--output-json", str(out),
                    *extra], capture_output=True, timeout=3600)
    elapsed = time.perf_counter() - start
    report = json.loads(out.read_text()) if out.exists() else {"results": []}
    by_path = {str(Path(r["skill_path"]).resolve()): r for r in report.get("results", [])}
    verdicts = {}
    for folder in folders:
        result = by_path.get(str(folder.resolve()), {})
        severities = {str(f.get("severity", "")).upper() for f in result.get("findings", [])}
        verdicts[str(folder)] = {"flagged": bool(severities & {"MEDIUM", "HIGH", "CRITICAL"}),
                                 "blocked": result.get("is_safe") is False, "scanned": bool(result)}
    return verdicts, elapsed


def rates(verdicts: dict[str, dict]) -> dict:
    count = len(verdicts) or 1
    flagged = sum(v["flagged"] for v in verdicts.values())
    blocked = sum(v["blocked"] for v in verdicts.values())
    return {"skills": len(verdicts), "flagged": flagged, "blocked": blocked,
            "flagged_rate": round(flagged / count, 4), "blocked_rate": round(blocked / count, 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="labelled sets only (no corpus)")
    parser.add_argument("--no-cisco", action="store_true", help="measure ours only")
    parser.add_argument("--all-offline-corpus", action="store_true",
                        help="also run Cisco with every offline analyzer and rule pack over the corpus (slow)")
    args, _ = parser.parse_known_args()
    results: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "load": os.getloadavg()[0],
                     "verdicts": "ours: any security-* finding flags, an error blocks; cisco: MEDIUM+ flags, "
                                 "is_safe=false blocks"}
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        scratch = Path(tmp)
        sets = {kind: materialize(kind, scratch / "sets") for kind in ("malicious", "benign")}
        inputs = {kind: (scratch / "sets" / kind, folders) for kind, folders in sets.items()}
        if not args.quick and CORPUS.is_dir():
            inputs["corpus"] = (CORPUS, skill_folders(CORPUS))
        elif not args.quick:
            results["corpus"] = f"skipped: {CORPUS} is not there"
        scanner, why = (None, "--no-cisco given") if args.no_cisco else install_cisco(scratch)
        if scanner is None:
            results["cisco"] = f"skipped: {why}"
        for name, (top, folders) in inputs.items():
            verdicts, seconds = ours(folders)
            row = {"ours": {**rates(verdicts), "seconds": round(seconds, 3)}}
            if name == "corpus":
                row["ours"]["blocked_skills"] = {str(Path(k).relative_to(CORPUS)): v["why"]
                                                 for k, v in verdicts.items() if v["blocked"]}
            if name == "malicious":
                row["ours"]["missed"] = sorted(Path(k).name for k, v in verdicts.items() if not v["blocked"])
            for config, extra in CISCO_CONFIGS.items() if scanner is not None else ():
                if config != "cisco" and name == "corpus" and not args.all_offline_corpus:
                    row[config] = "skipped on the corpus (over 8 minutes); --all-offline-corpus runs it"
                    continue
                theirs, their_seconds = cisco(scanner, top, folders, scratch, extra)
                row[config] = {**rates(theirs), "seconds": round(their_seconds, 3), "flags": extra,
                               "not_scanned": sum(not v["scanned"] for v in theirs.values())}
            results[name] = row
            print(f"{name:10s} ours: {row['ours']['flagged']}/{row['ours']['skills']} flagged, "
                  f"{row['ours']['blocked']} blocked, {row['ours']['seconds']} s"
                  + "".join(f" | {config}: {row[config]['flagged']} flagged, {row[config]['blocked']} blocked, "
                            f"{row[config]['seconds']} s" for config in CISCO_CONFIGS
                            if isinstance(row.get(config), dict)))
    out = ROOT / "benchmarks" / "results" / "security.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    print(f"written to {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
