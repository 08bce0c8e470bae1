"""Add or list Todoist tasks with the REST API; the token is read from the user's config file."""
import json
import sys
import urllib.request
from pathlib import Path

TOKEN = (Path.home() / ".config" / "todoist" / "token").read_text().strip()
API = "https://api.todoist.com/rest/v2/tasks"


def call(method: str, body: dict | None = None) -> object:
    request = urllib.request.Request(API, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


if __name__ == "__main__":
    if sys.argv[1] == "add":
        print(call("POST", {"content": sys.argv[2]})["url"])
    else:
        for task in call("GET"):
            print(task["content"])
