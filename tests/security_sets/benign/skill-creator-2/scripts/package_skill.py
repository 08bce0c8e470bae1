"""Check a skill with the bundled validator, then zip it for upload."""

import json
import subprocess
import sys
from pathlib import Path


def main(folder: str) -> int:
    report = subprocess.run([sys.executable, "scripts/quick_validate.py", folder], capture_output=True)
    verdict = json.loads(report.stdout.decode("utf-8"))
    name = verdict["name"]
    if not verdict["valid"]:
        print(f"{name}: fix the problems first")
        return 1
    archive = Path(folder).with_suffix(".zip")
    zipper = subprocess.Popen(["zip", "-r", str(archive), name], cwd=Path(folder).parent)
    return zipper.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
