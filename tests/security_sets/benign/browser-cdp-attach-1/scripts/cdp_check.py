import json
import urllib.request

with urllib.request.urlopen("http://127.0.0.1:9222/json/version", timeout=2) as resp:
    info = json.load(resp)
print(info["Browser"], info["webSocketDebuggerUrl"])
