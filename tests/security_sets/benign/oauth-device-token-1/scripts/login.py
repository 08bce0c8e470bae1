"""GitHub OAuth device flow: save the user's token under ~/.config/gh-issues-offline (mode 600)."""

import json
import pathlib
import time
import urllib.parse
import urllib.request

CLIENT_ID = "Iv1.8a61f9b3a7aba766"
TOKEN_FILE = pathlib.Path.home() / ".config" / "gh-issues-offline" / "token.json"


def post(url: str, **fields) -> dict:
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(url, data=data, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


code = post("https://github.com/login/device/code", client_id=CLIENT_ID, scope="repo")
print(f"Open {code['verification_uri']} and enter {code['user_code']}")
while True:
    time.sleep(code["interval"])
    token = post("https://github.com/login/oauth/access_token", client_id=CLIENT_ID,
                 device_code=code["device_code"], grant_type="urn:ietf:params:oauth:grant-type:device_code")
    if "access_token" in token:
        break
    if token.get("error") not in ("authorization_pending", "slow_down"):
        raise SystemExit(token.get("error_description", token.get("error")))
TOKEN_FILE.parent.mkdir(parents=True, exist_ok=True)
TOKEN_FILE.write_text(json.dumps({"access_token": token["access_token"]}))
TOKEN_FILE.chmod(0o600)
print(f"Saved to {TOKEN_FILE}")
