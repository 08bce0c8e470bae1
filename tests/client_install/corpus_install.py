"""Install every skill folder of a corpus (default ../shared/corpus) from its local path, each into a fresh
temporary HOME, and print counts by outcome and reason, then a JSON summary. Not part of the test suite (the
suite must not depend on ../shared); run: `.nox/tests/bin/python tests/client_install/corpus_install.py [DIR]`."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKERS = ("SKILL.md", "skill.md", "skill.yaml")


def skill_folders(corpus: Path) -> list[Path]:
    """Every folder holding SKILL.md or skill.yaml, outermost only (a skill's own subfolders are its files)."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if any(m in filenames for m in MARKERS):
            found.append(Path(dirpath))
            dirnames[:] = []
    return found


def reason_of(err: str) -> str:
    """A short, stable reason for counting: the first finding's gist, with numbers and paths blanked."""
    text = err.split("\n", 1)[0]
    text = re.sub(r"^error: \S+ (is not a valid skill: )?", "", text)
    text = re.sub(r"^[^:]*\.(md|yaml|py|json|txt|sh)(:\d+)?: ", "", text)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"\d[\d,]*", "N", text)
    return text.split(";")[0][:120]


def install_one(folder: Path) -> dict:
    from skillyard.cli.main import skill_main

    with tempfile.TemporaryDirectory(prefix="corpus-home-") as home:
        os.environ["HOME"] = home
        os.environ["SKILLCLI_HOME"] = str(Path(home) / "skillcli")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = skill_main(["install", str(folder), "--json", "--skip-deps-check"])
            except SystemExit as exc:
                code = int(exc.code or 0)
            except Exception as exc:  # noqa: BLE001 - a traceback is itself a finding to report
                return {"folder": str(folder), "outcome": "crashed", "reason": f"{type(exc).__name__}: {exc}"}
    if code == 0:
        warnings = json.loads(out.getvalue())["skills"][0]["warnings"]
        return {"folder": str(folder), "outcome": "installed-with-warnings" if warnings else "installed",
                "reason": reason_of("error: x " + warnings[0].split(": ", 1)[-1]) if warnings else "",
                "warnings": warnings}
    message = err.getvalue() or out.getvalue()
    try:
        payload = json.loads(out.getvalue())
        message = "error: " + payload.get("error", message)
    except ValueError:
        pass
    return {"folder": str(folder), "outcome": "refused", "reason": reason_of(message), "message": message.strip()}


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    corpus = Path(argv[0]) if argv else ROOT.parent / "shared" / "corpus"
    folders = skill_folders(corpus)
    results = [install_one(folder) for folder in folders]
    by_outcome = Counter(r["outcome"] for r in results)
    by_reason = Counter((r["outcome"], r["reason"]) for r in results if r["reason"])
    print(f"{len(results)} skill folders under {corpus}")
    for outcome, count in by_outcome.most_common():
        print(f"  {outcome}: {count}")
    print("by reason:")
    for (outcome, reason), count in by_reason.most_common():
        print(f"  {count:5}  {outcome}: {reason}")
    print(json.dumps({"total": len(results), "by_outcome": dict(by_outcome),
                      "by_reason": [{"outcome": o, "reason": r, "count": c} for (o, r), c in by_reason.most_common()],
                      "refused": [{"folder": r["folder"], "message": r["message"]} for r in results
                                  if r["outcome"] == "refused"][:50]}, indent=1))
    return 1 if by_outcome.get("crashed") else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
