"""List or add Acme tasks; the token is the one setup.sh saved."""
import json
import sys
import urllib.request
from pathlib import Path

TOKEN = (Path.home() / ".config" / "acme" / "token").read_text().strip()
API = "https://api.example.com/v1/tasks"


def call(method: str, body: dict | None = None):
    request = urllib.request.Request(API, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


if __name__ == "__main__":
    print(json.dumps(call("GET") if sys.argv[1] == "list" else call("POST", {"title": sys.argv[2]}), indent=2))
