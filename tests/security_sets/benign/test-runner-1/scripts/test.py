import subprocess
import sys
sys.exit(subprocess.run(["npm", "test"], check=False).returncode)
