"""Issue 24 item 8: the pages' Content-Security-Policy refuses everything it does not name (`default-src 'none'`),
and names everything the pages themselves use, in real headless Chromium.

Every page type loads with no policy violation (and our search, Material's search worker and its index fetch still
work); HTML injected into a served page cannot load an image, a CSS `url()`, a fetch, a frame or a style from
anywhere else; `skillyard site serve` sends the policy as a header with `frame-ancestors`, which a <meta> cannot.
"""

from __future__ import annotations

import threading
import urllib.request
from functools import partial

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Records every violation the page reports, from the first script on.
RECORD = """document.addEventListener('securitypolicyviolation', e =>
    (window.__violations = window.__violations || []).push(e.effectiveDirective + ' ' + e.blockedURI));"""

PAGES = ["/", "/skills/pdf-tools/", "/skills/evil-skill/", "/tags/", "/tags/pdf/", "/publishers/", "/publishers/author-ada/",
         "/publish/", "/registry-json/",
         "/security/", "/404.html"]


@pytest.fixture
def tab(browser):
    context = browser.new_context()
    context.add_init_script(RECORD)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.messages = []
    page.requests = []
    page.on("console", lambda m: page.messages.append(f"{m.type}: {m.text}"))
    page.failures = {}
    page.on("request", lambda r: page.requests.append(r.url))
    page.on("requestfailed", lambda r: page.failures.setdefault(r.url, r.failure))
    yield page
    context.close()


def violations(tab) -> list[str]:
    return tab.evaluate("window.__violations || []")


def csp_messages(tab) -> list[str]:
    return [m for m in tab.messages if "Content Security Policy" in m or "Content-Security-Policy" in m]


def test_the_meta_policy_refuses_by_default_and_names_what_the_pages_use(built_site):
    _, out, _ = built_site
    html = (out / "index.html").read_text(encoding="utf-8")
    meta = html.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
    directives = {part.split()[0]: part.split()[1:] for part in meta.split("; ")}
    assert directives["default-src"] == ["'none'"]
    for name in ("img-src", "style-src", "connect-src", "font-src", "form-action", "worker-src"):
        assert "'self'" in directives[name], name
    assert "frame-ancestors" not in directives  # a <meta> cannot carry it (Chromium logs an error for it)


def test_every_page_type_loads_with_no_policy_violation(tab, site_server):
    for path in PAGES:
        tab.goto(site_server + path, wait_until="load")
        assert tab.locator("h1").first.is_visible(), path
        assert violations(tab) == [], path
    tab.goto(site_server + "/")
    tab.fill("#sy-q", "pdf")  # our search fetches search.json
    tab.wait_for_selector("#sy-results a.sy-result__name")
    assert violations(tab) == [] and csp_messages(tab) == [], tab.messages
    assert all(url.startswith(site_server) or url.startswith("data:") for url in tab.requests), tab.requests


INJECT = """async () => {
    const body = document.querySelector('.sy-body') || document.body;
    body.insertAdjacentHTML('beforeend', '<img id="x-img" src="https://images.example.invalid/pixel.png">');
    body.insertAdjacentHTML('beforeend', '<iframe src="https://frames.example.invalid/"></iframe>');
    body.insertAdjacentHTML('beforeend', '<p id="x-styled" style="color: rgb(255, 0, 0)">styled</p>');
    const style = document.createElement('style');
    style.textContent = 'body { outline: 3px solid red; }';
    document.head.append(style);
    document.body.style.backgroundImage = 'url("https://css.example.invalid/bg.png")';
    let fetched = 'no';
    try { await fetch('https://api.example.invalid/data'); fetched = 'yes'; } catch (e) { fetched = 'refused'; }
    return fetched;
}"""


def test_injected_html_cannot_load_anything_from_elsewhere(tab, site_server):
    tab.goto(site_server + "/skills/evil-skill/", wait_until="load")
    assert tab.evaluate(INJECT) == "refused"
    expected = {"img-src https://images.example.invalid/pixel.png", "frame-src https://frames.example.invalid",
                "img-src https://css.example.invalid/bg.png", "connect-src https://api.example.invalid/data",
                "style-src-elem inline", "style-src-attr inline"}
    tab.wait_for_function("n => (window.__violations || []).length >= n", arg=len(expected))
    assert set(violations(tab)) >= expected, violations(tab)
    elsewhere = {url: tab.failures.get(url) for url in tab.requests if "example.invalid" in url}
    assert set(elsewhere.values()) <= {"csp", "net::ERR_BLOCKED_BY_CSP"}, elsewhere  # refused before it left the browser
    assert tab.evaluate("getComputedStyle(document.getElementById('x-styled')).color") != "rgb(255, 0, 0)"
    assert tab.evaluate("getComputedStyle(document.body).outlineStyle") != "solid"


@pytest.fixture(scope="module")
def material_search_site(tmp_path_factory):
    """The fixture registry built with Material's own search plugin on: its worker and search_index.json."""
    from tests.site.conftest import CONFIG, SKILLS, write_registry

    from skillyard.site.builder import build_site

    root = tmp_path_factory.mktemp("material-search")
    config = root / "mkdocs.yml"
    config.write_text(CONFIG.read_text(encoding="utf-8").replace("plugins: []", "plugins:\n  - search"),
                      encoding="utf-8")
    registry = write_registry(root, SKILLS)
    out = root / "_site"
    build_site(registry, root, out, config=config, work_dir=root / ".site-build")
    assert (out / "search" / "search_index.json").is_file()

    yield out


def test_materials_search_worker_runs_under_the_policy(tab, material_search_site):
    from skillyard.site.serve import make_server

    server = make_server(material_search_site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        tab.goto(base + "/format/", wait_until="networkidle")  # the worker has its index
        tab.click("input[data-md-component='search-query']")
        tab.keyboard.type("skill")
        tab.wait_for_selector(".md-search-result__item")
        assert violations(tab) == [] and csp_messages(tab) == [], tab.messages
        assert any(url.endswith("search/search_index.json") for url in tab.requests)
    finally:
        server.shutdown()
        server.server_close()


def test_site_serve_sends_the_policy_as_a_header_with_frame_ancestors(built_site):
    from skillyard.site.serve import make_server

    _, out, _ = built_site
    server = make_server(out)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(base + "/skills/pdf-tools/") as response:
            header = response.headers["Content-Security-Policy"]
            page = response.read().decode("utf-8")
        meta = page.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0]
        assert header == meta + "; frame-ancestors 'none'"
        with urllib.request.urlopen(base + "/registry.json") as response:
            assert response.headers["Content-Security-Policy"] is None  # data files: no page policy
            assert response.headers["X-Content-Type-Options"] == "nosniff"
    finally:
        server.shutdown()
        server.server_close()


def test_another_site_cannot_frame_a_served_page(tab, built_site):
    """frame-ancestors works from the header: a page on another origin that frames ours gets nothing."""
    import http.server

    from skillyard.site.serve import make_server

    _, out, _ = built_site
    site = make_server(out)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    target = f"http://127.0.0.1:{site.server_address[1]}/publish/"
    parent_dir = out.parent / "framer"
    parent_dir.mkdir(exist_ok=True)
    (parent_dir / "index.html").write_text(f'<iframe id="f" src="{target}"></iframe>', encoding="utf-8")
    framer = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(
        http.server.SimpleHTTPRequestHandler, directory=str(parent_dir)))
    threading.Thread(target=framer.serve_forever, daemon=True).start()
    try:
        tab.goto(f"http://127.0.0.1:{framer.server_address[1]}/", wait_until="load")
        framed = [f for f in tab.frames if f != tab.main_frame]
        assert any("frame-ancestors" in m for m in tab.messages), tab.messages
        assert not any("Publish" in f.content() for f in framed)
    finally:
        for server in (site, framer):
            server.shutdown()
            server.server_close()
