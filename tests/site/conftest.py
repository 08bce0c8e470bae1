"""Fixtures for the site tests: a small registry written to tmp_path the way `skillyard build` writes it."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from functools import partial
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "mkdocs.yml"
COMMIT = "0123456789abcdef0123456789abcdef01234567"

XSS_BODY = """# Evil skill

<script>window.__xss=1</script>

<img src=x onerror="window.__xss=2">

[click me](javascript:window.__xss=3)

<a href="javascript:window.__xss=4">html link</a>

<iframe src="https://example.com/"></iframe>
<form action="https://example.com/"><input name="a"></form>

Visit [the homepage](https://example.com/page) and read [the guide](references/guide.md).
"""

from tests.site.sitekit import ACTIVE_FILES, INERT_FILES, SERVED_PATHS  # noqa: E402 - shared with test_browser.py
from tests.support.loopback import LoopbackHTTPServer  # noqa: E402

SKILLS = [
    {
        "name": "pdf-tools",
        "display_name": "PDF Tools",
        "description": "Extract text and tables from PDF files, merge and split documents, fill PDF forms.",
        "tags": ["pdf", "documents"],
        "body": "# PDF Tools\n\nUse `pypdf` to read pages.\n\n## Merging files\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nprint('hi')\n```\n",
        "files": {"scripts/extract.py": "print('extract')\n", "references/guide.md": "# Guide\n"},
        "inputs": [
            {"name": "pages", "type": "string", "description": "Page range such as 1-3.", "required": False, "default": "all"},
            {"name": "dpi", "type": "number", "description": "Render resolution.", "required": True},
        ],
        "mcp_deps": [{"tool": "filesystem.read_file", "required": True, "description": "Read the input PDF."}],
        "capabilities": ["filesystem", "scripts"],
        "updated_at": "2026-03-01T10:00:00Z",
    },
    {
        "name": "invoice-reader",
        "display_name": "发票识别助手",
        "description": "Read invoices and receipts. 这个技能可以从扫描的增值税发票和收据中提取金额、日期和销售方信息，并整理成表格。",
        "tags": ["finance", "ocr"],
        "body": "# 发票识别\n\nReads invoices.\n\n## Accounting export\n",
        "updated_at": "2026-04-02T08:30:00Z",
    },
    {
        "name": "meeting-notes",
        "description": "Summarise meeting notes; can also export the summary to a pdf when asked.",
        "tags": ["notes", "meetings"],
        "body": "# Notes\n\n## Calendar export\n",
        "updated_at": "2026-01-15T00:00:00Z",
    },
    {
        "name": "docs-converter",
        "description": "Convert Word and Markdown documents between formats.",
        "tags": ["pdf", "office"],
        "body": "# Converter\n",
        "updated_at": "2025-12-24T00:00:00Z",
    },
    {
        "name": "evil-skill",
        "display_name": "Evil <script>window.__xss=5</script> skill",
        "description": "Harmless text <script>window.__xss=6</script> <img src=x onerror=\"window.__xss=7\"> [x](javascript:window.__xss=8) &lt;b&gt;",
        "tags": ["security-test"],
        "author": "<b onmouseover=\"window.__xss=9\">mallory</b>",
        "homepage": "javascript:window.__xss=10",
        "body": XSS_BODY,
        "files": {"references/guide.md": "# Guide\n"},
        "findings": [{"rule": "body-script-tag", "severity": "warning", "message": "The body contains <script>.", "file": "SKILL.md", "line": 3}],
        "updated_at": "2026-02-01T00:00:00Z",
    },
    {
        "name": "active-content",
        "description": "Ships page templates and vector artwork for reports.",
        "tags": ["templates"],
        "body": "# Active\n\nOpen [the template](assets/page.html) or [the notes](references/notes.md).\n\n"
                "![logo](assets/logo.svg)\n",
        "files": ACTIVE_FILES,
        "updated_at": "2025-11-01T00:00:00Z",
    },
    {
        "name": "inert-files",
        "description": "Ships script-looking text under inert names.",
        "tags": ["templates"],
        "body": "# Inert\n\nRead [the page](references/page.html.txt).\n",
        "files": INERT_FILES,
        "updated_at": "2025-11-02T00:00:00Z",
    },
]


# The fixture registry's settings for its home page (issue 37 item 1); the title stays the registry's name.
HOME_SETTINGS = 'pitch = "Skills for the fixture\'s agents, checked before they ship."\nfeatured = ["invoice-reader", "pdf-tools"]\n'


def skill_md(spec: dict) -> str:
    front = {"name": spec["name"], "description": spec["description"]}
    return "---\n" + json.dumps(front, ensure_ascii=False) + "\n---\n" + spec.get("body", "")


def write_registry(root: Path, specs: list[dict], *, commit: str = COMMIT) -> Path:
    """Write skill folders under root/skills and root/registry.json matching schemas/registry.schema.json."""
    skills = []
    for spec in specs:
        folder = root / "skills" / spec["name"]
        contents = {"SKILL.md": skill_md(spec), **spec.get("files", {})}
        files = []
        for rel, text in sorted(contents.items()):
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            data = text.encode("utf-8")
            path.write_bytes(data)
            files.append({"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
        lines = "".join(f"{f['sha256']}  {f['path']}\n" for f in files)
        scripts = [f["path"] for f in files if f["path"].startswith("scripts/")]
        skill = {
            "name": spec["name"], "description": spec["description"], "version": spec.get("version", "1.0.0"),
            "tags": spec.get("tags", []), "author": spec.get("author", "Ada"), "maintainers": ["ada"],
            "license": "MIT", "path": f"skills/{spec['name']}", "commit": commit,
            "updated_at": spec.get("updated_at", "2026-01-01T00:00:00Z"), "files": files,
            "integrity": "sha256-" + hashlib.sha256(lines.encode()).hexdigest(),
            "inventory": {"has_scripts": bool(scripts), "script_files": scripts,
                          "reference_files": [f["path"] for f in files if f["path"].startswith("references/")],
                          "asset_files": [], "total_files": len(files), "total_size": sum(f["size"] for f in files)},
            "capabilities": spec.get("capabilities", []), "mcp_deps": spec.get("mcp_deps", []),
            "inputs": spec.get("inputs", []), "findings": spec.get("findings", []),
        }
        for key in ("display_name", "homepage"):
            if key in spec:
                skill[key] = spec[key]
        skills.append(skill)
    registry = {
        "schema_version": "1.0", "name": "Skillyard Test", "description": "Fixture registry.",
        "homepage": "https://example.org/",
        "repository": {"url": "https://github.com/example/registry", "slug": "example/registry",
                       "raw_url_template": "https://raw.githubusercontent.com/example/registry/{commit}/{path}"},
        "skills": sorted(skills, key=lambda s: s["name"]),
    }
    path = root / "registry.json"
    path.write_text(json.dumps(registry, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The fixture registry built once per session: (root, out)."""
    from skillyard.site.builder import build_site

    root = tmp_path_factory.mktemp("site-root")
    registry = write_registry(root, SKILLS)
    (root / "skillyard.toml").write_text(HOME_SETTINGS, encoding="utf-8")  # the home page's pitch and featured
    out = root / "_site"
    result = build_site(registry, root, out, config=CONFIG, work_dir=root / ".site-build")
    return root, out, result


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def log_request(self, code="-", size="-") -> None:
        SERVED_PATHS.append(self.path)


@pytest.fixture(scope="session")
def site_server(built_site):
    """The built site served on 127.0.0.1 by a thread; yields the base URL."""
    _, out, _ = built_site
    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def pointer_site(tmp_path_factory):
    """A registry of one own skill and three pointer skills (tests/site/pointerkit.py) built with the upstream
    content fetched from the GitHub stand-in: (root, out). `alpha` shows its body, `beta` (GPL) and `gamma` (a file
    differs from its pin) say why they show none."""
    from tests.site.pointerkit import add_pointers, make_upstreams, pointer_entries
    from tests.support.gitserver import GitServer

    from skillyard.client import http
    from skillyard.site.builder import build_site
    from skillyard.site.upstream import Fetcher

    base = tmp_path_factory.mktemp("pointer-site")
    server = GitServer(base / "server").start()
    try:
        make_upstreams(server)
        root = base / "root"
        registry = write_registry(root, [s for s in SKILLS if s["name"] == "meeting-notes"])
        add_pointers(registry, pointer_entries(server))
        fetcher = Fetcher(get=lambda url, **kw: http.fetch(url, timeout=5, **kw).body, codeload_url=server.url)
        build_site(registry, root, root / "_site", config=CONFIG, work_dir=root / ".site-build", fetcher=fetcher)
    finally:
        server.stop()
    return root, root / "_site"


@pytest.fixture(scope="session")
def pointer_site_server(pointer_site):
    """The pointer site served on 127.0.0.1 by a thread; yields the base URL."""
    _, out = pointer_site
    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (Debian's, through Playwright) per test module; skips, or fails in CI, without it."""
    from tests.site.test_browser import ARGS, CHROMIUM, _require_browser

    _require_browser()  # before importing playwright, so a missing package is a clear skip
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()
