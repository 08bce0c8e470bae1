import os
import subprocess
from pathlib import Path

env = os.environ.copy()
dotenv = Path.cwd() / ".env"
if dotenv.exists():
    for line in dotenv.read_text().splitlines():
        if line.strip() and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            env[key.strip()] = value.strip().strip('"')
print("loaded", len(env) - len(os.environ), "variables from .env")
subprocess.run(["npm", "run", "dev"], env=env, check=False)
