"""Search results and the front door in headless Chromium (issue 37 items 1, 2 and 6): each hit shows title,
publisher, badges, a description cut at a word and an install line whose copy button copies (by mouse and by
keyboard); the arrow keys walk the results; the count is announced; at phone width nothing overflows sideways; a
registry made by `init-registry` is headed by its own name. Screenshots of the page states go to the artefacts
folder ($SKILLYARD_ARTEFACTS/site, else test-artifacts/site, ignored by git), never committed."""

from __future__ import annotations

import re
import threading
from functools import partial
from pathlib import Path

import pytest
from tests.site.test_a11y import SIZES
from tests.site.test_browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_FOCUSED_OUTLINE = "() => { const s = getComputedStyle(document.activeElement); " \
                   "return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; }"


@pytest.fixture(scope="session")
def artefacts() -> Path:
    folder = ARTIFACTS  # $SKILLYARD_ARTEFACTS/site, beside the other browser tests' screenshots
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _serve(out: Path):
    from tests.site.conftest import _QuietHandler
    from tests.support.loopback import LoopbackHTTPServer

    server = LoopbackHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _open(browser, base: str, size: str, path: str = "/"):
    context = browser.new_context(**SIZES[size])
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    tab.problems = []
    tab.on("pageerror", lambda e: tab.problems.append(f"page error: {e}"))
    tab.on("console", lambda m: tab.problems.append(f"console: {m.text}") if m.type == "error" else None)
    tab.goto(base + path, wait_until="load")
    return context, tab


def _search(tab, query: str) -> list[dict]:
    """Type `query` and return each hit as the visitor sees it."""
    tab.fill("#sy-q", query)
    tab.wait_for_function("q => new URL(location.href).searchParams.get('q') === q", arg=query)
    return tab.eval_on_selector_all("#sy-results > li.sy-result", """items => items.map(li => ({
        title: li.querySelector('a.sy-result__name').textContent,
        href: li.querySelector('a.sy-result__name').getAttribute('href'),
        publisher: (li.querySelector('.sy-result__publisher') || {textContent: ''}).textContent,
        publisherLink: (li.querySelector('.sy-result__publisher a') || {href: ''}).href,
        badges: [...li.querySelectorAll('.sy-badge')].map(b => b.textContent),
        desc: li.querySelector('.sy-result__desc').textContent,
        install: li.querySelector('.sy-result__install code').textContent,
        button: li.querySelector('.sy-result__install button').getAttribute('aria-label')}))""")


def _sideways(tab) -> int:
    return tab.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_hit_shows_what_a_visitor_acts_on(browser, site_server, artefacts, size):
    context, tab = _open(browser, site_server, size)
    try:
        hits = _search(tab, "pdf")
        first = hits[0]
        assert first["title"] == "PDF Tools" and first["href"].endswith("/skills/pdf-tools/")
        assert first["publisher"] == "by Ada"
        assert first["badges"] == ["own", "MIT", "ships scripts"]
        assert first["install"] == "skill install pdf-tools"
        assert first["button"] == "Copy: skill install pdf-tools"
        assert [h["badges"] for h in hits[1:]] == [["own", "MIT"]] * (len(hits) - 1)  # no scripts there
        assert tab.inner_text("#sy-status") == f"{len(hits)} skills"
        assert _sideways(tab) <= 0, f"the results scroll sideways at {size}"
        tab.screenshot(path=str(artefacts / f"search-{size}.png"), full_page=True)
        assert tab.problems == []
    finally:
        context.close()


LONG = ("Drafts quarterly board reports from spreadsheets, meeting minutes and the finance team's ledgers, checks "
        "every figure against its source and writes a summary the board can read in five minutes.")


@pytest.fixture(scope="module")
def long_site(tmp_path_factory):
    """One skill whose description is longer than a result shows."""
    from tests.site.conftest import CONFIG, write_registry

    from skillyard.site.builder import build_site

    root = tmp_path_factory.mktemp("long-site")
    spec = {"name": "board-reports", "description": LONG, "tags": ["reports"], "body": "# Reports\n"}
    build_site(write_registry(root, [spec]), root, root / "_site", config=CONFIG, work_dir=root / ".site-build")
    server, url = _serve(root / "_site")
    yield url
    server.shutdown()
    server.server_close()


def test_a_long_description_is_cut_between_words_with_an_ellipsis(browser, long_site):
    context, tab = _open(browser, long_site, "phone")
    try:
        desc = _search(tab, "board")[0]["desc"]
        assert desc.endswith("…") and len(desc) < len(LONG)
        assert LONG.startswith(desc[:-1]) and LONG[len(desc) - 1] in " ,"  # the cut falls between two words
        assert _sideways(tab) <= 0
    finally:
        context.close()


def test_chinese_queries_find_and_show_their_skill(browser, site_server, artefacts):
    context, tab = _open(browser, site_server, "phone")
    try:
        hit = _search(tab, "发票")[0]
        assert hit["title"] == "发票识别助手" and hit["install"] == "skill install invoice-reader"
        assert "发票" in hit["desc"]
        assert _sideways(tab) <= 0
        tab.screenshot(path=str(artefacts / "search-chinese-phone.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_copy_button_copies_the_install_line(browser, site_server, size):
    context, tab = _open(browser, site_server, size)
    try:
        tab.evaluate("() => navigator.clipboard.writeText('nothing yet')")
        _search(tab, "meeting")
        button = tab.locator("#sy-results li.sy-result button.sy-copy").first
        button.click() if size == "desktop" else button.tap()
        tab.wait_for_function("() => navigator.clipboard.readText().then(t => t === 'skill install meeting-notes')")
        assert button.inner_text() == "Copied"
        tab.wait_for_function("() => document.getElementById('sy-copied').textContent.includes('meeting-notes')")
    finally:
        context.close()


def test_the_keyboard_walks_the_results_copies_and_opens(browser, site_server):
    context, tab = _open(browser, site_server, "desktop")
    try:
        tab.evaluate("() => navigator.clipboard.writeText('nothing yet')")
        tab.focus("#sy-q")
        names = [h["href"].split("/")[-2] for h in _search(tab, "pdf")]
        assert len(names) >= 3
        tab.keyboard.press("ArrowDown")
        assert tab.evaluate("document.activeElement.getAttribute('href')").endswith(f"/skills/{names[0]}/")
        assert tab.evaluate(_FOCUSED_OUTLINE), "the focused result shows no focus ring"
        tab.keyboard.press("ArrowDown")
        assert tab.evaluate("document.activeElement.getAttribute('href')").endswith(f"/skills/{names[1]}/")
        tab.keyboard.press("End")
        assert tab.evaluate("document.activeElement.getAttribute('href')").endswith(f"/skills/{names[-1]}/")
        tab.keyboard.press("Home")
        tab.keyboard.press("ArrowUp")
        assert tab.evaluate("document.activeElement.id") == "sy-q"
        tab.keyboard.press("ArrowDown")
        for _ in range(4):  # Tab from the first result reaches its copy button (past the publisher, if linked)
            tab.keyboard.press("Tab")
            if tab.evaluate("document.activeElement.classList.contains('sy-copy')"):
                break
        assert tab.evaluate("document.activeElement.getAttribute('aria-label')") == f"Copy: skill install {names[0]}"
        assert tab.evaluate(_FOCUSED_OUTLINE), "the focused copy button shows no focus ring"
        tab.keyboard.press("Enter")
        tab.wait_for_function("want => navigator.clipboard.readText().then(t => t === want)",
                              arg=f"skill install {names[0]}")
        tab.focus("#sy-results a.sy-result__name >> nth=1")
        tab.keyboard.press("Enter")
        tab.wait_for_url(f"**/skills/{names[1]}/")
    finally:
        context.close()


def test_screen_readers_hear_the_count_and_get_a_list(browser, site_server):
    context, tab = _open(browser, site_server, "desktop")
    try:
        status = tab.locator("#sy-status")
        assert status.get_attribute("aria-live") == "polite" and status.get_attribute("role") == "status"
        assert tab.get_attribute("#sy-q", "aria-describedby").split() == ["sy-status", "sy-keys"]
        hits = _search(tab, "notes")
        assert status.inner_text() == ("1 skill" if len(hits) == 1 else f"{len(hits)} skills")
        tree = tab.locator("#sy-results").aria_snapshot().splitlines()  # what assistive technology is given
        assert tree[0].startswith('- list "Search results"')
        assert sum(line.startswith("  - listitem") for line in tree) == len(hits)
        name = hits[0]["href"].split("/")[-2]
        assert f'button "Copy: skill install {name}"' in "\n".join(tree)
        # the facts are read apart: "by Ada" (a link where the site has Ada's publisher page), then ", own , MIT"
        assert re.search(r'- text: by(?: Ada|\n +- link "Ada":\n +- /url: [^\n]*publishers/author-ada/\n +- text: "?) ?, own ?, MIT',
                         "\n".join(tree))
        _search(tab, "zzzz-nothing")
        assert status.inner_text() == "No skills match."
        assert tab.locator("#sy-results").is_hidden()  # an empty list is not announced as one
    finally:
        context.close()


def test_a_pointer_hit_names_its_upstream_and_says_pointer(browser, pointer_site_server, artefacts):
    context, tab = _open(browser, pointer_site_server, "desktop")
    try:
        hits = {h["href"].split("/")[-2]: h for h in _search(tab, "pointer")}
        assert hits["alpha"]["publisher"] == "by up/skills"
        assert hits["alpha"]["badges"][0] == "pointer" and "MIT OR GPL-2.0-only" in hits["alpha"]["badges"]
        assert hits["beta"]["publisher"] == "by gpl/tools"
        assert "reviewed" not in hits["alpha"]["badges"]  # nobody of this registry reviewed the fixture's pins
        assert tab.problems == []
    finally:
        context.close()


def test_home_sections_have_counts_and_link_where_they_lead(browser, site_server):
    context, tab = _open(browser, site_server, "phone")
    try:
        for section in ("featured", "tags", "publishers", "recent"):
            assert tab.locator(f"h2#{section} .sy-count").inner_text().strip().isdigit(), section
        assert tab.locator(".sy-featured a.sy-list__name").all_inner_texts() == ["发票识别助手", "PDF Tools"]
        tab.click("section[aria-labelledby='tags'] a.sy-tag >> text=pdf")
        tab.wait_for_url("**/tags/pdf/")
        assert _sideways(tab) <= 0
    finally:
        context.close()


def test_screenshots_of_every_page_state(browser, site_server, pointer_site_server, pointer_site, artefacts):
    """Home, a search, an own skill, a pointer skill and (when the site has them) a publisher page, at desktop and
    phone width: the artefacts a reviewer looks at."""
    _, out = pointer_site
    publisher = sorted(p.parent.name for p in (out / "publishers").glob("*/index.html")) if \
        (out / "publishers").is_dir() else []
    states = [("home", site_server, "/"), ("search", site_server, "/?q=pdf"),
              ("own-skill", site_server, "/skills/pdf-tools/"), ("pointer-skill", pointer_site_server, "/skills/alpha/")]
    states += [("publisher", pointer_site_server, f"/publishers/{publisher[0]}/")] if publisher else []
    for size in SIZES:
        for name, base, path in states:
            context, tab = _open(browser, base, size, path)
            try:
                if "?q=" in path:
                    tab.wait_for_selector("#sy-results a.sy-result__name")
                assert _sideways(tab) <= 0, f"{name} scrolls sideways at {size}"
                tab.screenshot(path=str(artefacts / f"{name}-{size}.png"), full_page=True)
                assert tab.problems == [], name
            finally:
                context.close()
    assert len(list(artefacts.glob("*-phone.png"))) >= len(states)


@pytest.fixture(scope="module")
def own_named_site(tmp_path_factory):
    """A registry made by `skillyard init-registry` (its own name, no title or pitch set), built and served."""
    from tests.site.test_served_tree import env_for, run

    base = tmp_path_factory.mktemp("init-registry")
    env = env_for(base)
    run(["skillyard", "init-registry", "team-skills", "--host", "static"], base, env)
    root = base / "team-skills"
    run(["skillyard", "build"], root, env)
    run(["skillyard", "site", "build", "--out", "_site"], root, env)
    server, url = _serve(root / "_site")
    yield root, url
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_registry_made_by_init_registry_is_its_own_front_door(browser, own_named_site, artefacts, size):
    import json

    root, base = own_named_site
    registry = json.loads((root / "registry.json").read_text(encoding="utf-8"))
    context, tab = _open(browser, base, size)
    try:
        assert tab.inner_text("h1").strip() == registry["name"] == "team-skills"
        assert "Skillyard" not in tab.title()
        assert "Skillyard" not in tab.inner_text("header")
        assert tab.is_visible("#sy-q")
        skill = registry["skills"][0]
        hit = _search(tab, skill["name"])[0]
        assert hit["install"] == f"skill install {skill['name']}"
        assert hit["badges"][0] == "own"
        assert _sideways(tab) <= 0
        tab.screenshot(path=str(artefacts / f"init-registry-search-{size}.png"), full_page=True)
        tab.click("#sy-results a.sy-result__name >> nth=0")
        tab.wait_for_url(f"**/skills/{skill['name']}/")
        assert tab.problems == []
    finally:
        context.close()


@pytest.fixture(scope="module")
def own_titled_site(tmp_path_factory):
    """A registry made by `skillyard init-registry` whose settings give its own title, pitch and featured skill."""
    from tests.site.test_served_tree import env_for, run

    base = tmp_path_factory.mktemp("init-registry-titled")
    env = env_for(base)
    run(["skillyard", "init-registry", "acme-skills", "--host", "static"], base, env)
    root = base / "acme-skills"
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    skill = sorted(p.name for p in (root / "skills").iterdir() if (p / "SKILL.md").is_file())[0]
    settings = f'title = "Acme Skill Shelf"\npitch = "Skills the Acme data team trusts."\nfeatured = ["{skill}"]\n'
    pyproject.write_text(text.replace("[tool.skillyard]\n", "[tool.skillyard]\n" + settings, 1), encoding="utf-8")
    run(["skillyard", "build"], root, env)
    run(["skillyard", "site", "build", "--out", "_site"], root, env)
    server, url = _serve(root / "_site")
    yield root, url, skill
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_registry_that_names_itself_is_headed_by_its_own_title(browser, own_titled_site, artefacts, size):
    """The title and pitch a registry sets are its front door's heading and first line; no Skillyard branding in
    the page title, header or heading; its featured skill is listed and found by search."""
    root, base, skill = own_titled_site
    context, tab = _open(browser, base, size)
    try:
        assert tab.inner_text("h1").strip() == "Acme Skill Shelf"
        assert tab.inner_text(".sy-pitch").strip() == "Skills the Acme data team trusts."
        for where in (tab.title(), tab.inner_text("header"), tab.inner_text("h1")):
            assert "Skillyard" not in where
        assert tab.locator(".sy-featured a.sy-list__name").count() == 1
        hit = _search(tab, skill)[0]
        assert hit["install"] == f"skill install {skill}"
        assert _sideways(tab) <= 0
        tab.screenshot(path=str(artefacts / f"init-registry-titled-{size}.png"), full_page=True)
        assert tab.problems == []
    finally:
        context.close()
