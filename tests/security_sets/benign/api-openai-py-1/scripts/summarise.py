"""Summarise text files with the OpenAI Chat Completions API."""

import argparse
import json
import os
import pathlib
import sys
import urllib.request

API = "https://api.openai.com/v1/chat/completions"


def load_key() -> str:
    key = os.environ.get("OPENAI_API_KEY")
    env_file = pathlib.Path(".env")
    if not key and env_file.is_file():
        for line in env_file.read_text().splitlines():
            if line.startswith("OPENAI_API_KEY="):
                key = line.split("=", 1)[1].strip().strip('"')
    if not key:
        sys.exit("Set OPENAI_API_KEY (or put it in .env).")
    return key


def summarise(text: str, model: str, key: str) -> str:
    body = json.dumps({
        "model": model,
        "messages": [
            {"role": "system", "content": "Summarise the user's document in five bullet points."},
            {"role": "user", "content": text},
        ],
    }).encode()
    request = urllib.request.Request(API, data=body, headers={
        "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["choices"][0]["message"]["content"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=pathlib.Path)
    parser.add_argument("--model", default="gpt-4o-mini")
    args = parser.parse_args()
    key = load_key()
    for path in sorted(args.folder.rglob("*")):
        if path.suffix not in {".txt", ".md"} or path.name.endswith(".summary.md"):
            continue
        if path.stat().st_size > 100_000:
            print(f"skip {path} (too large)")
            continue
        out = path.with_name(path.stem + ".summary.md")
        out.write_text(summarise(path.read_text(errors="replace"), args.model, key) + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
