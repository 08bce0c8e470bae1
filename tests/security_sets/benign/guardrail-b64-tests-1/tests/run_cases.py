"""Send each decoded case to the local guardrail classifier and report label mismatches."""

import base64
import json
import sys
import urllib.request

cases = json.load(open(sys.argv[1]))["cases"]
misses = 0
for case in cases:
    prompt = base64.b64decode(case["prompt_b64"]).decode()
    request = urllib.request.Request("http://localhost:8088/classify", data=json.dumps({"text": prompt}).encode(),
                                     headers={"Content-Type": "application/json"})
    label = json.load(urllib.request.urlopen(request, timeout=10))["label"]
    if label != case["expect"]:
        misses += 1
        print(f"MISS {case['id']}: expected {case['expect']}, got {label}")
print(f"{len(cases) - misses}/{len(cases)} cases pass")
sys.exit(1 if misses else 0)
