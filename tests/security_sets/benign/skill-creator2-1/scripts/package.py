import base64
import json
import subprocess
import sys
import zipfile
from pathlib import Path


def main(folder: str) -> None:
    root = Path(folder)
    out = root.with_suffix(".skill")
    with zipfile.ZipFile(out, "w") as z:
        for p in root.rglob("*"):
            z.write(p, p.relative_to(root))
    manifest = base64.b64encode(json.dumps({"name": root.name}).encode()).decode()
    subprocess.run([sys.executable, str(root / "scripts" / "validate.py"), manifest], check=False)


if __name__ == "__main__":
    main(sys.argv[1])
