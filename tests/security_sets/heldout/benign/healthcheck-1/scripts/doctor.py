import json
import os
import socket
import urllib.request

REQUIRED = ["DATABASE_URL", "REDIS_URL", "STRIPE_SECRET_KEY"]

for name, port in (("postgres", 5432), ("redis", 6379)):
    with socket.socket() as s:
        s.settimeout(0.5)
        print(name, "up" if s.connect_ex(("127.0.0.1", port)) == 0 else "down")
try:
    print("app", urllib.request.urlopen("http://127.0.0.1:3000/health", timeout=2).status)
except OSError as exc:
    print("app down:", exc)
for key in REQUIRED:
    print(key, "set" if os.environ.get(key) else "MISSING")
status = json.load(urllib.request.urlopen("https://www.githubstatus.com/api/v2/status.json", timeout=5))
print("github:", status["status"]["description"])
