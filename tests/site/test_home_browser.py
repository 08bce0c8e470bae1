"""The home page in headless Chromium (issue 37 item 1): the registry's title, pitch and sections show, the copy
button copies the client's install line (by mouse and by keyboard), and at phone width nothing overflows sideways.
axe and the full keyboard walk of the home page are in test_a11y.py (kind "home")."""

from __future__ import annotations

import pytest
from tests.site.test_a11y import SIZES
from tests.site.test_browser import ARTIFACTS

from skillyard.site import model

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open(browser, site_server, size: str):
    context = browser.new_context(**SIZES[size])
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_server)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    tab.problems = []
    tab.on("pageerror", lambda e: tab.problems.append(f"page error: {e}"))
    tab.on("console", lambda m: tab.problems.append(f"console: {m.text}") if m.type == "error" else None)
    tab.goto(site_server + "/", wait_until="load")
    return context, tab


def _clipboard(tab) -> str:
    return tab.evaluate("() => navigator.clipboard.readText()")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_home_page_shows_the_front_door(browser, site_server, size):
    context, tab = _open(browser, site_server, size)
    try:
        assert tab.inner_text("h1").strip() == "Skillyard Test"
        assert tab.inner_text(".sy-pitch") == "Skills for the fixture's agents, checked before they ship."
        assert tab.is_visible("#sy-q")
        assert tab.inner_text(".sy-client-install code") == model.CLIENT_INSTALL
        assert tab.inner_text(".sy-npx-install code") == "npx skills add https://example.org/"
        for anchor in ("featured", "tags", "publishers", "recent"):
            assert tab.is_visible(f"h2#{anchor}"), anchor
        assert tab.locator(".sy-featured a.sy-list__name").all_inner_texts()[:1] != []
        box = tab.locator("#sy-q").bounding_box()
        assert box["y"] < tab.locator("#get-started").bounding_box()["y"]  # search before everything else
        wide = tab.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert wide <= 0, f"the page scrolls sideways by {wide}px at {size}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"home-{size}.png"), full_page=True)
        assert tab.problems == []
    finally:
        context.close()


def test_the_copy_button_copies_the_install_line(browser, site_server):
    context, tab = _open(browser, site_server, "desktop")
    try:
        block = tab.locator(".sy-client-install")
        block.hover()
        button = block.locator('button[data-md-type="copy"]')
        button.click()
        tab.wait_for_function("want => navigator.clipboard.readText().then(t => t === want)", arg=model.CLIENT_INSTALL)
        assert _clipboard(tab) == model.CLIENT_INSTALL
    finally:
        context.close()


def test_the_keyboard_reaches_the_copy_button_and_copies(browser, site_server):
    context, tab = _open(browser, site_server, "desktop")
    try:
        tab.evaluate("() => navigator.clipboard.writeText('nothing yet')")
        for _ in range(60):
            tab.keyboard.press("Tab")
            if tab.evaluate("() => document.activeElement.matches("
                            "'.sy-client-install button[data-md-type=\\'copy\\']')"):
                break
        else:
            pytest.fail("Tab never reached the install line's copy button")
        tab.keyboard.press("Enter")
        tab.wait_for_function("want => navigator.clipboard.readText().then(t => t === want)", arg=model.CLIENT_INSTALL)
    finally:
        context.close()
