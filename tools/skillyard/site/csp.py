"""A Content-Security-Policy `<meta>` for the pages the site generates: defence in depth behind the sanitiser.

GitHub Pages sends no CSP header we control, so each page carries its own: scripts only from the site's files
and the theme's own inline scripts (by hash), no plugins, no `<base>` elsewhere. Inline event handlers and
`javascript:` URLs are refused by the browser, so if a stranger's HTML ever slipped past nh3 it still could not
run. Hashes are taken from the page with its content (the only part derived from a skill) removed, so nothing a
skill wrote is ever allowed by hash.
"""

from __future__ import annotations

import base64
import hashlib
import re

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]+)""", re.I)
_JS_TYPES = {"", "module", "text/javascript", "application/javascript"}


def theme_script_hashes(page_html: str, content: str) -> list[str]:
    """CSP source expressions for the inline scripts of `page_html` outside `content`."""
    outside = page_html.replace(content, "") if content else page_html
    hashes = set()
    for attrs, body in _SCRIPT.findall(outside):
        kind = _TYPE.search(attrs)
        if re.search(r"\bsrc\s*=", attrs, re.I) or (kind and kind.group(1).lower() not in _JS_TYPES):
            continue
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")
        hashes.add(f"'sha256-{digest}'")
    return sorted(hashes)


def policy(hashes: list[str]) -> str:
    return " ".join(["script-src 'self'", *hashes]) + "; object-src 'none'; base-uri 'self'"


def add_policy(page_html: str, content: str) -> str:
    """`page_html` with the policy as the first element of `<head>` (a meta CSP covers only what follows it)."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(theme_script_hashes(page_html, content))}">'
    head = re.search(r"<head\b[^>]*>", page_html, re.I)
    if head is None:
        return page_html
    return page_html[:head.end()] + "\n  " + meta + page_html[head.end():]
