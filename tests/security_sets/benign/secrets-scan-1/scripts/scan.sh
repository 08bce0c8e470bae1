#!/usr/bin/env bash
set -euo pipefail
# Both scanners read the working tree and the full history; results stay in local JSON files.
gitleaks detect --source . --report-format json --report-path gitleaks.json --redact || true
trufflehog git file://. --json --no-update > trufflehog.json || true
python3 - <<'PY'
import json
leaks = json.load(open("gitleaks.json"))
print(f"gitleaks: {len(leaks)} finding(s)")
for leak in leaks[:50]:
    print(f"  {leak['File']}:{leak['StartLine']}  {leak['RuleID']}")
hits = [json.loads(line) for line in open("trufflehog.json") if line.strip()]
verified = [h for h in hits if h.get("Verified")]
print(f"trufflehog: {len(hits)} finding(s), {len(verified)} verified live")
PY
