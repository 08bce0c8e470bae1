"""Run each evaluation query through the agent's command line and record whether the skill was used."""

import json
import subprocess
import sys
from pathlib import Path


def run_query(query: str) -> bool:
    result = subprocess.run(["claude", "-p", query, "--output-format", "stream-json"], capture_output=True,
                            text=True, timeout=300)
    for line in result.stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if event.get("type") == "tool_use" and event.get("name") == "Skill":
            return True
    return False


def main(path: str) -> None:
    cases = json.loads(Path(path).read_text())
    for case in cases:
        query = case["query"]
        used = run_query(query)
        check = subprocess.run([sys.executable, "scripts/score.py", query, str(used)], check=False)
        print(json.dumps({"query": query, "triggered": used, "score": check.returncode}))


if __name__ == "__main__":
    main(sys.argv[1])
