import sys
from pathlib import Path

text = (Path(sys.argv[1]) / "SKILL.md").read_text()
if not text.startswith("---\n"):
    print("no frontmatter")
    sys.exit(1)
print("frontmatter present")
