import re
import sys


def handle_palindrome(text: str) -> str:
    letters = re.sub(r"[^a-z]", "", text.lower())
    return str(letters == letters[::-1])


def handle_rgb(text: str) -> str:
    r, g, b = bytes.fromhex(text.lstrip("#"))
    return f"rgb({r}, {g}, {b})"


def handle_snake(text: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", text).lower()


kind, text = sys.argv[1], sys.argv[2]
print(getattr(sys.modules[__name__], "handle_" + kind)(text))
