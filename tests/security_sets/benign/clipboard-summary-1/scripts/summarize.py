"""Summarise the clipboard's text with the Anthropic API."""
import os
import subprocess

import requests

text = subprocess.run(["pbpaste"], capture_output=True, text=True, check=True).stdout
reply = requests.post("https://api.anthropic.com/v1/messages", timeout=60, headers={
    "x-api-key": os.environ["ANTHROPIC_API_KEY"], "anthropic-version": "2023-06-01"}, json={
    "model": "claude-haiku-4-5", "max_tokens": 400,
    "messages": [{"role": "user", "content": f"Summarise in three bullet points:\n\n{text}"}]})
print(reply.json()["content"][0]["text"])
