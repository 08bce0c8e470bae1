"""Save a message's attachments: the Gmail API returns each one base64url-encoded."""
import base64
import json
import pathlib
import sys


def save(message: dict, out: pathlib.Path) -> list[pathlib.Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for part in message["message"]["attachments"]:
        target = out / part["filename"]
        target.write_bytes(base64.b64decode(part["data"]))
        written.append(target)
    return written


if __name__ == "__main__":
    data = json.loads(pathlib.Path(sys.argv[1]).read_text())
    for path in save(data, pathlib.Path(sys.argv[2])):
        print(path)
