"""Findings snapshot: what `load_skill` reports for every folder, written once and compared after a speed change.

    python benchmarks/scan_snapshot.py write OUT.json [FOLDER ...]
    python benchmarks/scan_snapshot.py compare OUT.json [FOLDER ...]

Folders default to the committed labelled sets (tests/security_sets, materialised into a scratch folder; never the
held-out part) and, when they are there, ../shared/corpus and any extracted upstream trees given on the command line.
A speed change to the scanner or the loader must leave every finding (rule, severity, message, fix, file, line,
field), every file's hash and each skill's name unchanged: `compare` prints each difference and exits 1 on any.
Run `write` with the tree before the change (e.g. `PYTHONPATH=<old checkout>/tools`), `compare` with the tree after.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpus"


def skill_folders(top: Path) -> list[Path]:
    return sorted(Path(d) for d, _, names in os.walk(top) if "SKILL.md" in names)


def snapshot(folders: list[tuple[str, Path]]) -> dict[str, dict]:
    """key -> {name, files, findings} for each folder, lenient and strict (the two policies validate runs)."""
    from skillyard.format import Policy, load_skill

    out = {}
    for key, folder in folders:
        for strict in (False, True):
            skill = load_skill(folder, Policy(strict=strict))
            out[f"{key} strict={strict}"] = {
                "name": skill.name,
                "files": [list(f) for f in skill.files],
                "findings": [[f.rule, str(f.severity), f.message, f.fix, f.file, f.line, f.field]
                             for f in skill.findings],
            }
    return out


def gather(extra: list[str], scratch: Path) -> list[tuple[str, Path]]:
    """(stable key, folder): the labelled sets (by sample name), the corpus and each extra tree (relative paths)."""
    from tests.security_sets import KINDS, materialize

    folders = []
    for kind in KINDS:
        folders += [(f"sets/{kind}/{f.name}", f) for f in materialize(kind, scratch)]
    tops = ([CORPUS] if CORPUS.is_dir() else []) + [Path(e) for e in extra]
    for top in tops:
        folders += [(f"{top.name}/{f.relative_to(top)}", f) for f in skill_folders(top)]
    return folders


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("write", "compare"):
        print(__doc__)
        return 2
    mode, target, extra = argv[0], Path(argv[1]), argv[2:]
    with tempfile.TemporaryDirectory(prefix="scan-snapshot-") as tmp:
        folders = gather(extra, Path(tmp))
        # messages name a folder's path (`skillyard migrate … /tmp/scan-snapshot-x/…`): the scratch folder differs
        # from run to run, so it is written as `<scratch>`
        now = json.loads(json.dumps(snapshot(folders)).replace(tmp, "<scratch>"))
    if mode == "write":
        target.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"scan snapshot: {len(folders)} folders, "
              f"{sum(len(v['findings']) for v in now.values())} findings written to {target}")
        return 0
    before = json.loads(target.read_text())
    differences = 0
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            differences += 1
            print(f"DIFFERS: {key}")
            old, new = before.get(key) or {}, now.get(key) or {}
            for field in ("name", "files", "findings"):
                was, is_ = old.get(field) or [], new.get(field) or []
                if was != is_:
                    if isinstance(was, list):
                        for item in was:
                            if item not in is_:
                                print(f"  - {field}: {item}")
                        for item in is_:
                            if item not in was:
                                print(f"  + {field}: {item}")
                    else:
                        print(f"  {field}: {was!r} -> {is_!r}")
    print(f"scan snapshot: {len(now)} checks compared, {differences} differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
