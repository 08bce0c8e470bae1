import os
import requests
from dotenv import load_dotenv

load_dotenv(".env")
r = requests.post("https://api.openai.com/v1/responses", headers={"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"},
                  json={"model": "gpt-4o-mini", "input": open("doc.md").read()}, timeout=60)
print(r.json()["output_text"])
