"""Accessibility of the built site in real headless Chromium (issue 27): axe-core on every page type at desktop and
phone width finds nothing critical or serious; the keyboard reaches every control, and only visible ones; the
phone skill page shows the install command on its first screen and its inputs table scrolls within reach.

axe-core comes from npm, installed by this test session into a cache folder (as tests/interop installs its
clients); without npm or the package registry the axe tests skip and say why. The keyboard and layout tests need
only the browser.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlparse

import pytest
from tests.site.test_browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
AXE = "axe-core@4.14.1"  # pinned so a run is repeatable; bump on purpose and rerun
NPM_CACHE = Path(os.environ.get("SKILLYARD_TEST_NPM")
                 or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "skillyard-tests")
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 3},
}
PAGES = {
    "home": "/",
    "search": "/?q=pdf",
    "search-chinese": "/?q=%E5%8F%91%E7%A5%A8",  # 发票: results with CJK text, badges and copy buttons
    "skill": "/skills/pdf-tools/",
    "chinese-skill": "/skills/invoice-reader/",
    "untrusted-skill": "/skills/evil-skill/",
    "tags": "/tags/",
    "tag": "/tags/pdf/",
    "publishers": "/publishers/",
    "publisher": "/publishers/author-ada/",
    "long-tables": "/format/",
    "not-built": "/not-built/",
    "404": "/404.html",
}
# Page types of the pointer site (`pointer_site_server`): a pointer skill with its upstream body shown, and one
# whose licence keeps the body off the site.
POINTER_PAGES = {
    "pointer-skill": "/skills/alpha/",
    "pointer-skill-no-body": "/skills/beta/",
    "publisher-repository": "/publishers/up-skills/",
    "pointer-search": "/?q=pointer",  # results with pointer badges and upstream publishers
}
BLOCKING = ("critical", "serious")
# Checked without its SKILL.md body: that is a stranger's HTML (an <img> with no alt), shown sanitised, not ours.
AUTHORS_MARKUP = {"untrusted-skill": [".sy-body"]}


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe.min.js from the pinned npm package, installed once into the cache folder."""
    prefix = NPM_CACHE / AXE.replace("@", "-")
    script = prefix / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip(f"{AXE}: npm is not installed (apt-get install npm), so axe-core cannot be fetched")
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--fetch-retries=1",
                               "--fetch-timeout=60000", "--prefix", str(prefix), AXE],
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "npm_config_update_notifier": "false"})
        if done.returncode != 0 or not script.is_file():
            said = [line for line in done.stderr.splitlines() if line.strip() and "complete log" not in line]
            pytest.skip(f"{AXE}: npm install failed ({'; '.join(said[:2]) or 'no output'})")
    return script.read_text(encoding="utf-8")


def _site_prefix() -> str:
    """The path of the configured site_url ('/registry/'): 404.html names its assets under it."""
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    url = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("site_url:")), "/")
    return urlparse(url).path or "/"


def _open(browser, site_server, out: Path, size: str, path: str, *, bypass_csp: bool = False):
    """A fresh context at `size` showing `path`; the 404 page's assets (under site_url's path) are served from the
    site's root, as GitHub Pages serves them."""
    context = browser.new_context(**SIZES[size], bypass_csp=bypass_csp)
    prefix = _site_prefix()
    if prefix != "/":
        def serve(route, request):
            rel = urlparse(request.url).path[len(prefix):]
            target = out / rel
            if target.is_file():
                route.fulfill(path=str(target))
            else:
                route.fulfill(status=404, body="")
        context.route(f"{site_server}{prefix}**", serve)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    tab.goto(site_server + path, wait_until="load")
    if "?q=" in path:
        tab.wait_for_selector("#sy-results a.sy-result__name")
    tab.evaluate("() => new Promise(done => setTimeout(done, 0))")  # after the page's own load handlers
    return context, tab


def _axe(tab, axe_source: str, exclude: list[str] | None = None) -> dict:
    tab.add_script_tag(content=axe_source)
    return tab.evaluate("""async exclude => {
        const r = await axe.run({exclude: exclude.map(s => [s])}, {resultTypes: ['violations']});
        return {passes: r.passes.length, violations: r.violations.map(v => ({id: v.id, impact: v.impact,
            nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary.split('\\n').slice(0, 2).join(' '))}))};
    }""", exclude or [])


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", list(PAGES) + list(POINTER_PAGES))
def test_axe_finds_nothing_critical_or_serious(browser, request, axe_source, kind, size):
    if kind in POINTER_PAGES:
        (_, out), server, path = request.getfixturevalue("pointer_site"), \
            request.getfixturevalue("pointer_site_server"), POINTER_PAGES[kind]
    else:
        (_, out, _), server, path = request.getfixturevalue("built_site"), request.getfixturevalue("site_server"), \
            PAGES[kind]
    context, tab = _open(browser, server, out, size, path, bypass_csp=True)  # to inject axe
    try:
        found = _axe(tab, axe_source, AUTHORS_MARKUP.get(kind))
    finally:
        context.close()
    counts: dict[str, int] = {}
    for v in found["violations"]:
        counts[v["impact"]] = counts.get(v["impact"], 0) + len(v["nodes"])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"axe-{kind}-{size}.json").write_text(json.dumps({"counts": counts, **found}, indent=1) + "\n",
                                                        encoding="utf-8")
    assert found["passes"] > 10  # axe really ran its rules on the page
    blocking = [v for v in found["violations"] if v["impact"] in BLOCKING]
    assert blocking == [], f"{kind} at {size}: {counts}"


def test_axe_reports_what_the_theme_used_to_get_wrong(browser, site_server, built_site, axe_source):
    """The check can fail: Material's own teal (3.76:1) and an unlabelled focusable radio button are reported."""
    _, out, _ = built_site
    context, tab = _open(browser, site_server, out, "desktop", "/skills/pdf-tools/", bypass_csp=True)
    try:
        tab.evaluate("""() => {
            document.body.style.setProperty('--md-typeset-a-color', '#009485');
            document.querySelector('.md-header').insertAdjacentHTML('beforeend',
                '<input type="radio" aria-hidden="true" name="x">');
        }""")
        found = _axe(tab, axe_source)
    finally:
        context.close()
    ids = {v["id"] for v in found["violations"] if v["impact"] in BLOCKING}
    assert {"color-contrast", "aria-hidden-focus"} <= ids


_CONTROLS = """() => {
    const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
        .filter(el => !el.disabled && el.tabIndex >= 0 && el.type !== 'hidden');
    all.forEach((el, i) => el.setAttribute('data-sy-i', String(i)));
    return all.map(el => el.outerHTML.slice(0, 160));
}"""
_SHOWN = """el => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility === 'visible' && s.display !== 'none'
        && r.right > 0 && r.left < innerWidth && !el.closest('[aria-hidden="true"], [hidden], [inert]');
}"""


def _tab_through(tab) -> tuple[list[str], set[int], list[tuple[int, bool]]]:
    """Every focusable control (marked), which of them are visible, and (control, visible when focused) for each
    Tab press until focus leaves the page's controls."""
    controls = tab.evaluate(_CONTROLS)
    shown = {i for i in range(len(controls))
             if tab.eval_on_selector(f'[data-sy-i="{i}"]', _SHOWN)}
    walk = []
    for _ in range(len(controls) + 3):
        tab.keyboard.press("Tab")
        at = tab.evaluate(f"""() => {{ const el = document.activeElement;
            const i = el && el.getAttribute('data-sy-i'); return i === null ? null : [Number(i), ({_SHOWN})(el)]; }}""")
        if at is None:
            break
        walk.append((at[0], at[1]))
    return controls, shown, walk


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", ["home", "search", "skill", "chinese-skill", "tag", "publisher", "long-tables", "404"])
def test_the_keyboard_reaches_every_visible_control_and_nothing_unseen(browser, site_server, built_site, kind, size):
    _, out, _ = built_site
    context, tab = _open(browser, site_server, out, size, PAGES[kind])
    try:
        controls, shown, walk = _tab_through(tab)
    finally:
        context.close()
    assert walk, "the first Tab press focused nothing"
    assert "sy-skip" in controls[walk[0][0]], f"first Tab stop: {controls[walk[0][0]]}"
    unseen = [controls[i] for i, visible in walk if not visible]
    assert unseen == [], f"{kind} at {size}: focus went to controls a user cannot see"
    missed = [controls[i] for i in sorted(shown - {i for i, _ in walk})]
    assert missed == [], f"{kind} at {size}: Tab never reached these visible controls"


def test_the_skip_link_moves_focus_to_the_content(browser, site_server, built_site):
    _, out, _ = built_site
    context, tab = _open(browser, site_server, out, "desktop", "/skills/pdf-tools/")
    try:
        tab.keyboard.press("Tab")
        assert tab.evaluate("document.activeElement.textContent.trim()") == "Skip to content"
        assert tab.eval_on_selector(".sy-skip", _SHOWN)  # shown while focused
        tab.keyboard.press("Enter")
        assert tab.evaluate("document.activeElement.id") == "sy-content"
        tab.keyboard.press("Tab")  # the next stop is in the content, past the header and the navigation
        assert tab.evaluate("!!document.activeElement.closest('.md-content')")
    finally:
        context.close()


def test_on_a_phone_the_menu_opens_from_the_keyboard(browser, site_server, built_site):
    _, out, _ = built_site
    context, tab = _open(browser, site_server, out, "phone", "/skills/pdf-tools/")
    try:
        tab.keyboard.press("Tab")
        tab.keyboard.press("Tab")
        assert tab.evaluate("document.activeElement.getAttribute('for')") == "__drawer"
        assert tab.evaluate("document.activeElement.getAttribute('aria-expanded')") == "false"
        tab.keyboard.press("Enter")
        assert tab.evaluate("document.getElementById('__drawer').checked")
        tab.keyboard.press("Tab")
        tab.wait_for_function(f"() => ({_SHOWN})(document.activeElement)")
        assert tab.evaluate("document.activeElement.classList.contains('md-nav__link')")
    finally:
        context.close()


def test_on_a_phone_the_install_command_is_on_the_first_screen(browser, site_server, built_site):
    """Even with the longest description the standard allows (1,024 characters) and a long display name."""
    _, out, _ = built_site
    height = SIZES["phone"]["viewport"]["height"]
    context = None
    try:
        for name in ("pdf-tools", "invoice-reader", "longest"):
            context, tab = _open(browser, site_server, out, "phone", "/skills/pdf-tools/" if name == "longest"
                                 else f"/skills/{name}/")
            if name == "longest":
                tab.evaluate("""() => {
                    document.querySelector('.sy-skill__desc').textContent = 'Extracts text. '.repeat(73);
                    document.querySelector('.sy-skill__title').textContent = '发票识别助手 Invoice Reader '.repeat(5);
                }""")
            box = tab.locator("pre.sy-install").first.bounding_box()
            assert tab.evaluate("scrollY") == 0
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (name, box)
            assert tab.locator("pre.sy-install code").first.inner_text().startswith("skill install ")
            context.close()
            context = None
    finally:
        if context is not None:
            context.close()


def test_on_a_phone_the_inputs_table_scrolls_and_the_keyboard_reaches_it(browser, site_server, built_site):
    _, out, _ = built_site
    context, tab = _open(browser, site_server, out, "phone", "/skills/pdf-tools/")
    try:
        wrap = tab.locator(".sy-inputs .md-typeset__scrollwrap")
        assert wrap.evaluate("el => el.scrollWidth > el.clientWidth")  # wider than the phone: it must scroll
        assert wrap.evaluate("el => getComputedStyle(el).overflowX") in ("auto", "scroll")
        tab.wait_for_function("() => document.querySelector('.sy-inputs .md-typeset__scrollwrap').tabIndex === 0")
        wrap.focus()
        for _ in range(30):
            tab.keyboard.press("ArrowRight")
        assert wrap.evaluate("el => el.scrollLeft") > 0
        # Scrolled to its end, the last column is wholly inside the region: nothing is cut off.
        assert wrap.evaluate("""el => { el.scrollLeft = el.scrollWidth;
            const cell = el.querySelector('thead th:last-child').getBoundingClientRect();
            return cell.right <= el.getBoundingClientRect().right + 1; }""")
        # A code block wider than the phone is reachable too (Material gives it a Tab stop only where one can hover).
        wide = tab.locator(".md-typeset pre > code").evaluate_all(
            "els => els.filter(el => el.scrollWidth > el.clientWidth).map(el => el.tabIndex)")
        assert wide and all(index == 0 for index in wide)
    finally:
        context.close()
