import json
import subprocess

done = subprocess.run(["pytest", "-q"], capture_output=True, text=True)
summary = {"passed": done.returncode == 0, "tail": done.stdout[-500:]}
with open("/tmp/test-report.json", "w") as f:
    json.dump(summary, f)
