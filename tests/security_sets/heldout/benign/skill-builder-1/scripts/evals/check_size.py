import sys
from pathlib import Path

lines = (Path(sys.argv[1]) / "SKILL.md").read_text().count("\n")
print(f"{lines} lines")
sys.exit(0 if lines <= 500 else 1)
