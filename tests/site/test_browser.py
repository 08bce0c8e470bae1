"""The built site in real headless Chromium (Debian's `chromium`, driven by Playwright's Python API).

Skipped on a developer machine without chromium; under CI (CI=true) a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
# Screenshots and axe reports: $SKILLYARD_ARTEFACTS/site when the test session names a folder (CI keeps it as the
# run's artefacts), else test-artifacts/site (ignored by git); never committed.
ARTIFACTS = (Path(os.environ["SKILLYARD_ARTEFACTS"]) if os.environ.get("SKILLYARD_ARTEFACTS")
             else REPO / "test-artifacts") / "site"
CHROMIUM = os.environ.get("SKILLYARD_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]


def _require_browser() -> None:
    missing = []
    if not Path(CHROMIUM).is_file():
        missing.append(f"chromium not found at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("the playwright Python package is not installed")
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("browser test cannot run in CI: " + "; ".join(missing))
        pytest.skip("; ".join(missing))


@pytest.fixture
def page(browser, site_server):
    """A fresh page that records console errors, page errors and any request that leaves 127.0.0.1."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    tab.problems = []
    tab.on("console", lambda m: tab.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.problems.append(f"page error: {e}"))
    tab.on("request", lambda r: None if r.url.startswith((site_server, "data:", "blob:"))
           else tab.problems.append(f"request off the site: {r.url}"))
    yield tab
    context.close()


def search(tab, query: str) -> list[str]:
    """Type a query into the home page's box and return the result names in order."""
    tab.fill("#sy-q", query)
    tab.wait_for_function("q => document.getElementById('sy-q').value === q && "
                          "document.getElementById('sy-status').textContent !== ''", arg=query)
    tab.wait_for_function("q => new URL(location.href).searchParams.get('q') === q", arg=query)
    return tab.eval_on_selector_all("#sy-results a.sy-result__name",
                                    "links => links.map(a => a.getAttribute('href').split('/').slice(-2)[0])")


def test_search_open_and_install(page, site_server):
    page.goto(site_server + "/")
    assert page.title().startswith("Skillyard Test")
    assert page.is_visible("#sy-q")
    assert "skills" in page.inner_text(".sy-counts")

    assert search(page, "pdf")[:3] == ["pdf-tools", "docs-converter", "meeting-notes"]  # name > tag > description
    assert search(page, "发票")[0] == "invoice-reader"  # a substring of a longer Chinese description
    assert search(page, "invoice")[0] == "invoice-reader"
    assert search(page, "tag:ocr")[0] == "invoice-reader"
    assert search(page, "accounting") == ["invoice-reader"]  # a body heading keyword
    assert search(page, "zzzz-nothing") == []
    assert page.inner_text("#sy-status") == "No skills match."

    assert search(page, "pdf")[0] == "pdf-tools"
    page.click("#sy-results a.sy-result__name >> nth=0")
    page.wait_for_url("**/skills/pdf-tools/")
    install = page.locator("pre.sy-install code").first
    assert install.is_visible() and install.inner_text() == "skill install pdf-tools"
    inputs = page.locator(".sy-inputs table")
    assert inputs.is_visible()
    assert inputs.locator("tbody tr").count() == 2
    assert inputs.locator("tbody tr").first.inner_text().split("\t")[:4] == ["pages", "string", "all", "no"]
    assert page.locator(".sy-mcp table").is_visible()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "skill-page.png"), full_page=True)
    assert page.problems == []


def test_search_from_a_link_with_a_query(page, site_server):
    page.goto(site_server + "/?q=%E5%8F%91%E7%A5%A8")  # ?q=发票
    page.wait_for_selector("#sy-results a.sy-result__name")
    assert page.locator("#sy-results a.sy-result__name").first.inner_text() == "发票识别助手"
    assert page.problems == []


def test_untrusted_skill_runs_no_code(page, site_server):
    page.goto(site_server + "/skills/evil-skill/")
    page.wait_for_load_state("load")
    body = page.locator(".sy-body")
    for selector in ("a >> text=click me", "a >> text=html link"):
        body.locator(selector).click()  # javascript: hrefs were removed: clicking does nothing
    page.mouse.move(5, 5)
    page.hover("text=mallory")
    assert page.evaluate("typeof window.__xss") == "undefined"
    # The attack text is shown as text, harmlessly.
    assert "Harmless text <script>window.__xss=6</script>" in page.inner_text(".sy-skill__desc")
    assert page.inner_text(".sy-skill__title") == "Evil <script>window.__xss=5</script> skill"
    assert page.locator(".sy-body script, .sy-body iframe, .sy-body form").count() == 0
    external = page.locator(".sy-body a[href^='https://example.com']")
    assert external.get_attribute("rel") == "nofollow noopener"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "untrusted-skill-page.png"), full_page=True)

    page.goto(site_server + "/")
    assert search(page, "harmless") == ["evil-skill"]
    assert "<img src=x onerror=" in page.inner_text("#sy-results")
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.problems == []


def test_tag_pages_and_guides_load_cleanly(page, site_server):
    for path in ["/tags/", "/tags/pdf/", "/publish/", "/registry-json/"]:
        page.goto(site_server + path)
        assert page.locator("h1").first.is_visible(), path
    page.goto(site_server + "/tags/pdf/")
    assert page.locator("a.sy-list__name").all_inner_texts() == ["docs-converter", "PDF Tools"]
    assert page.problems == []


def _open(tab, url: str) -> str:
    """Navigate to `url`; 'downloaded' when the browser saves it instead of rendering it, else the HTTP status."""
    from playwright.sync_api import Error

    try:
        response = tab.goto(url, wait_until="load")
    except Error as exc:
        if "Download is starting" in str(exc):
            return "downloaded"
        raise
    return str(response.status) if response else "no response"


def test_no_file_served_from_skill_folders_runs_script(browser, built_site, site_server):
    """Acceptance: open EVERY file the site serves from skill folders; no script runs on the site's origin."""
    from tests.site.sitekit import ACTIVE_FILES, INERT_FILES, SERVED_PATHS

    _, out, _ = built_site
    base = out / ".well-known" / "agent-skills"
    served = sorted(p.relative_to(out).as_posix() for p in base.rglob("*") if p.is_file() and p != base / "index.json")
    assert {f".well-known/agent-skills/inert-files/{rel}" for rel in INERT_FILES} <= set(served)
    unserved = [f".well-known/agent-skills/active-content/{rel}" for rel in ACTIVE_FILES]
    context = browser.new_context(accept_downloads=True)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    outcomes = {}
    for rel in served + unserved:
        outcomes[rel] = _open(tab, f"{site_server}/{quote(rel)}")
        if outcomes[rel] != "downloaded":
            assert tab.evaluate("typeof window.__ran") == "undefined", rel
    context.close()
    assert all(outcomes[rel] in {"200", "downloaded"} for rel in served), outcomes
    assert all(outcomes[rel] == "404" for rel in unserved), outcomes
    ran = [url for url in requests if "/__ran__/" in url] + [path for path in SERVED_PATHS if "/__ran__/" in path]
    assert ran == []


# The types GitHub Pages (and most servers) give these suffixes.
ACTIVE_TYPES = {".html": "text/html", ".svg": "image/svg+xml", ".xhtml": "application/xhtml+xml",
                ".xml": "application/xml", ".xsl": "application/xslt+xml", ".js": "text/javascript",
                ".md": "text/markdown"}


@pytest.mark.parametrize("rel", ["assets/page.html", "assets/logo.svg", "assets/doc.xhtml", "assets/data.xml"])
def test_the_check_sees_script_when_an_active_file_is_served(browser, site_server, rel):
    """The check above can fail: the same fixtures, served on the site's origin with their usual types, run."""
    from tests.site.sitekit import ACTIVE_FILES, SERVED_PATHS

    context = browser.new_context()
    def serve(route, request):
        name = request.url.split("/__canary__/", 1)[1]
        route.fulfill(status=200, content_type=ACTIVE_TYPES[Path(name).suffix], body=ACTIVE_FILES[name])

    context.route(f"{site_server}/__canary__/**", serve)
    tab = context.new_page()
    before = len(SERVED_PATHS)
    with tab.expect_response("**/__ran__/**"):  # the site server has answered (and recorded) the beacon
        tab.goto(f"{site_server}/__canary__/{rel}", wait_until="load")
    assert tab.evaluate("typeof window.__ran") == "string"
    context.close()
    assert any(path.startswith("/__ran__/") for path in SERVED_PATHS[before:])


def test_the_page_policy_blocks_script_that_slipped_into_a_page(browser, site_server):
    """Defence in depth: HTML injected into a skill page cannot run inline handlers or inline scripts."""
    context = browser.new_context()
    tab = context.new_page()
    violations = []
    tab.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    tab.goto(site_server + "/skills/evil-skill/", wait_until="load")
    tab.evaluate("""() => {
        document.querySelector('.sy-body').insertAdjacentHTML('beforeend', '<img src="x" onerror="window.__csp=1">');
        document.querySelector('.sy-body img[src="x"]').addEventListener('error', () => { window.__failed = 1; });
        const s = document.createElement('script'); s.textContent = 'window.__csp=2'; document.body.append(s);
    }""")
    tab.wait_for_function("() => window.__failed === 1")  # the image's error event has fired (its handler refused)
    assert tab.evaluate("typeof window.__csp") == "undefined"
    assert violations
    context.close()


def test_search_matching_rules_over_the_columns(page, site_server):
    """What search.js finds in search.json's columns: every term must match (AND), a name starting with the term
    ranks above one holding it, a display title counts as the name, a long Chinese term falls back to its character
    pairs (增值税收据: three of its four pairs are in the description), full-width letters are folded (NFKC), and a
    term never matches across two skills' lines."""
    page.goto(site_server + "/")
    assert search(page, "pdf merge") == ["pdf-tools"]  # both terms, in name and description
    assert search(page, "pdf calendar") == ["meeting-notes"]  # description and body keyword
    assert search(page, "识别助手") == ["invoice-reader"]  # only in the display title
    assert search(page, "增值税收据") == ["invoice-reader"]  # not a substring: 3 of 4 character pairs
    assert search(page, "ＰＤＦ")[0] == "pdf-tools"  # full-width, folded by NFKC
    assert search(page, "tag:pdf convert") == ["docs-converter"]
    assert search(page, "filesinvoice") == []  # "inert-files" and "invoice-reader" are adjacent lines, not one text
    assert page.problems == []
