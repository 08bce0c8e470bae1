"""Translate stdin to English with the DeepL API."""
import os
import sys

import requests

text = sys.stdin.read()
reply = requests.post("https://api-free.deepl.com/v2/translate",
                      headers={"Authorization": f"DeepL-Auth-Key {os.environ['DEEPL_API_KEY']}"},
                      data={"text": text, "target_lang": "EN"}, timeout=30)
reply.raise_for_status()
print(reply.json()["translations"][0]["text"])
