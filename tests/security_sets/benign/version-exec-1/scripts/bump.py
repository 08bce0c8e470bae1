"""Bump the package version kept in src/acme/_version.py (read the way setup.py files read it)."""
import re
import sys
from pathlib import Path

VERSION_FILE = Path("src/acme/_version.py")
about: dict = {}
exec(VERSION_FILE.read_text(), about)
major, minor, patch = map(int, about["__version__"].split("."))
part = sys.argv[1] if len(sys.argv) > 1 else "patch"
major, minor, patch = (major + 1, 0, 0) if part == "major" else (major, minor + 1, 0) if part == "minor" else (major, minor, patch + 1)
new = f"{major}.{minor}.{patch}"
VERSION_FILE.write_text(re.sub(r'"[^"]+"', f'"{new}"', VERSION_FILE.read_text(), count=1))
print(f"v{new}")
