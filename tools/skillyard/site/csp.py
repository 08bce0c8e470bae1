"""A Content-Security-Policy `<meta>` for the pages the site generates: defence in depth behind the sanitiser.

GitHub Pages sends no CSP header we control, so each page carries its own: `default-src 'none'`, then only what
the pages use: scripts from the site's files and the theme's own inline scripts (by hash), styles, images, fonts,
fetches and workers from the site itself (images also as data: URLs, the theme's icons), no plugins, no `<base>`
elsewhere. `frame-ancestors` only works as a response header: `skillyard site serve` sends the page's policy with it
(`header_policy`); GitHub Pages cannot. Inline event handlers and
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


# Everything is refused unless named: the pages load only the site's own files. data: images are the theme's icons
# (SVG masks in its CSS); connect-src covers our search.json and Material's search_index.json; worker-src Material's
# search worker (a file on the site); form-action the theme's search form (it never leaves the page).
_ALLOWED = ("default-src 'none'", "style-src 'self'", "img-src 'self' data:", "font-src 'self' data:",
            "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'", "object-src 'none'", "base-uri 'self'",
            "form-action 'self'")
# Only a response header can carry these (a <meta> policy ignores them, and Chromium logs an error for each).
HEADER_ONLY = ("frame-ancestors 'none'",)


def policy(hashes: list[str]) -> str:
    """The page policy as a <meta> carries it."""
    return "; ".join([_ALLOWED[0], " ".join(["script-src 'self'", *hashes]), *_ALLOWED[1:]])


def header_policy(meta_policy: str) -> str:
    """The policy for a `Content-Security-Policy` response header: the page's own, plus what only a header can
    say (a page framed by another site cannot be click-jacked)."""
    return "; ".join([meta_policy, *HEADER_ONLY])


def add_policy(page_html: str, content: str) -> str:
    """`page_html` with the policy as the first element of `<head>` (a meta CSP covers only what follows it)."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(theme_script_hashes(page_html, content))}">'
    head = re.search(r"<head\b[^>]*>", page_html, re.I)
    if head is None:
        return page_html
    return page_html[:head.end()] + "\n  " + meta + page_html[head.end():]
