"""Each skill's story and the publisher pages in headless Chromium (issue 37 items 3-4): the display title heads the
page, the publisher link leads (by mouse and by keyboard) to the publisher's page listing the skill, a pointer's pin
reads as facts above the fold, and at phone width nothing scrolls sideways. Screenshots go to the test artefacts.
axe on these page types is in test_a11y.py (kinds "publishers", "publisher", "publisher-repository")."""

from __future__ import annotations

import pytest
from tests.site.test_a11y import SIZES
from tests.site.test_browser import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _open(browser, server: str, path: str, size: str):
    context = browser.new_context(**SIZES[size])
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    tab.problems = []
    tab.on("pageerror", lambda e: tab.problems.append(f"page error: {e}"))
    tab.on("console", lambda m: tab.problems.append(f"console: {m.text}") if m.type == "error" else None)
    tab.goto(server + path, wait_until="load")
    return context, tab


def _no_sideways_scroll(tab, what: str) -> None:
    wide = tab.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert wide <= 0, f"{what} scrolls sideways by {wide}px"


@pytest.mark.parametrize("size", list(SIZES))
def test_an_own_skill_leads_to_its_author_page(browser, site_server, size):
    context, tab = _open(browser, site_server, "/skills/pdf-tools/", size)
    try:
        assert tab.inner_text("h1.sy-skill__title") == "PDF Tools"
        assert tab.is_visible("h2#history")
        assert tab.inner_text(".sy-history-note").startswith("History unavailable: ")
        link = tab.locator("a.sy-publisher-link")
        assert link.inner_text() == "Ada" and link.is_visible()
        _no_sideways_scroll(tab, f"the skill page at {size}")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"story-own-skill-{size}.png"), full_page=True)
        link.click()
        tab.wait_for_url("**/publishers/author-ada/")
        assert tab.inner_text(".sy-publisher-page h1") == "Ada"
        names = tab.locator(".sy-publisher-page a.sy-list__name").all_inner_texts()
        assert "PDF Tools" in names and "meeting-notes" in names  # "# Notes" names a section, not the skill
        assert "own" in tab.locator(".sy-publisher-page .sy-badges").first.inner_text()
        _no_sideways_scroll(tab, f"the publisher page at {size}")
        tab.screenshot(path=str(ARTIFACTS / f"publisher-{size}.png"), full_page=True)
        tab.locator(".sy-publisher-page a", has_text="All publishers").click()
        tab.wait_for_url("**/publishers/")
        assert tab.locator(".sy-publishers-index a", has_text="Ada").count() == 1
        assert tab.problems == []
    finally:
        context.close()


def test_the_keyboard_follows_the_publisher_link(browser, site_server):
    context, tab = _open(browser, site_server, "/skills/pdf-tools/", "desktop")
    try:
        for _ in range(60):
            tab.keyboard.press("Tab")
            if tab.evaluate("() => document.activeElement.classList.contains('sy-publisher-link')"):
                break
        else:
            pytest.fail("Tab never reached the publisher link")
        tab.keyboard.press("Enter")
        tab.wait_for_url("**/publishers/author-ada/")
    finally:
        context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_a_pointer_skill_states_its_pin_and_leads_to_its_repository_page(browser, pointer_site_server, size):
    context, tab = _open(browser, pointer_site_server, "/skills/alpha/", size)
    try:
        assert tab.inner_text("h1.sy-skill__title") == "Alpha upstream"
        pinned = tab.locator(".sy-pinned")
        assert "and hash-checked; not yet reviewed by a maintainer of this registry." in pinned.inner_text()
        box, height = pinned.bounding_box(), SIZES[size]["viewport"]["height"]
        assert box["y"] + box["height"] <= height * 1.5, "the pin's facts are far below the first screen"
        assert tab.locator("text=Not verified").count() == 0
        _no_sideways_scroll(tab, f"the pointer skill page at {size}")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(ARTIFACTS / f"story-pointer-skill-{size}.png"), full_page=True)
        tab.locator("a.sy-publisher-link").click()
        tab.wait_for_url("**/publishers/up-skills/")
        assert sorted(tab.locator("a.sy-list__name").all_inner_texts()) == ["Alpha upstream", "gamma"]
        assert tab.locator(".sy-badge--pointer").count() == 2
        _no_sideways_scroll(tab, f"the repository's publisher page at {size}")
        tab.screenshot(path=str(ARTIFACTS / f"publisher-repository-{size}.png"), full_page=True)
        assert tab.problems == []
    finally:
        context.close()
