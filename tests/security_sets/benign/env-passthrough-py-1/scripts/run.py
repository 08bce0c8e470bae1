import os
import subprocess
import sys

profile, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
env = dict(os.environ)
env["AWS_PROFILE"] = profile
env["PATH"] = os.path.abspath("bin") + os.pathsep + env.get("PATH", "")
env.pop("AWS_ACCESS_KEY_ID", None)
env.pop("AWS_SECRET_ACCESS_KEY", None)
sys.exit(subprocess.call(cmd, env=env))
