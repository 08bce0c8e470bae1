"""Data shared by the site fixtures and the browser tests, in a uniquely named module: `from conftest import …`
would find whichever conftest.py was imported first in a full run."""

from __future__ import annotations

# Files that run script when a browser opens them on the site's origin (each reports to /__ran__/… on the site):
# the site must never serve them. The `inert-files` skill ships the same payloads with inert suffixes.
BEACON = "fetch('/__ran__/{0}');window.__ran='{0}'"
ACTIVE_FILES = {
    "assets/page.html": f"<!doctype html><title>t</title><script>{BEACON.format('html')}</script>\n",
    "assets/logo.svg": ('<svg xmlns="http://www.w3.org/2000/svg" onload="' + BEACON.format("svg-onload")
                        + '"><script>' + BEACON.format("svg") + "</script></svg>\n"),
    "assets/doc.xhtml": ('<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body><script>'
                         + BEACON.format("xhtml") + "</script></body></html>\n"),
    "assets/data.xml": '<?xml version="1.0"?>\n<?xml-stylesheet type="text/xsl" href="style.xsl"?>\n<root/>\n',
    "assets/style.xsl": ('<?xml version="1.0"?>\n<xsl:stylesheet version="1.0" '
                         'xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/">'
                         "<html><body><script>" + BEACON.format("xsl") + "</script></body></html>"
                         "</xsl:template></xsl:stylesheet>\n"),
    "scripts/tool.js": BEACON.format("js") + "\n",
    "references/notes.md": "# Notes\n",
}
INERT_FILES = {
    "LICENSE": "<script>" + BEACON.format("no-suffix") + "</script>\n",
    "references/page.html.txt": "<script>" + BEACON.format("txt") + "</script>\n",
    "references/readme.md": "<script>" + BEACON.format("md") + "</script>\n",
    "assets/data.json": '{"html": "<script>' + BEACON.format("json").replace('"', "'") + '</script>"}\n',
    "assets/chart.png": "<svg onload=\"" + BEACON.format("png") + "\"></svg>\n",
    "scripts/run.py": "print('<script>" + BEACON.format("py").replace("'", '"') + "</script>')\n",
}

SERVED_PATHS: list[str] = []  # every path the session's site server was asked for (beacons land here)
