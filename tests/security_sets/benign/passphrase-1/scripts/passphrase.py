"""Passphrase generator with an embedded, compressed word list (so the skill needs no download)."""
import base64
import json
import secrets
import zlib

_WORDS = "eJyLVkpKLEpRSlTSUcpLLMjPS8wpzs8tVorVUcpITcwBSidWpBYl5+cWlGTm5ykl5pQWZKYXFScWJ5YWZSbmZeYX5OdnpmQWFKQWJuYA9SgpFQCtpSO7"
WORDS = json.loads(zlib.decompress(base64.b64decode(_WORDS)))


def passphrase(n: int = 5) -> str:
    return "-".join(secrets.choice(WORDS) for _ in range(n))


if __name__ == "__main__":
    print(passphrase())
