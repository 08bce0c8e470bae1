"""Print a JWT's header and payload (base64url-decoded JSON) and its expiry; no signature check, no network."""

import base64
import datetime
import json
import sys


def part(segment: str) -> dict:
    padded = segment + "=" * (-len(segment) % 4)
    return json.loads(base64.urlsafe_b64decode(padded))


def main() -> None:
    token = sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read().strip()
    header, payload, _signature = token.split(".")
    print("header:", json.dumps(part(header), indent=2))
    claims = part(payload)
    print("payload:", json.dumps(claims, indent=2))
    if "exp" in claims:
        expires = datetime.datetime.fromtimestamp(claims["exp"])
        print(f"expires: {expires:%Y-%m-%d %H:%M:%S} ({'expired' if expires < datetime.datetime.now() else 'valid'})")


if __name__ == "__main__":
    main()
