"""A pointer skill's page in real headless Chromium (Debian's): it renders with no console or page errors and no
request off the site, shows the upstream repository and commit as links, the verified state and the fetched
upstream body; a page whose licence keeps the body off says so; the search finds pointer skills."""

from __future__ import annotations

import pytest
from tests.site.test_browser import ARTIFACTS, search

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def tab(browser, pointer_site_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.problems = []
    page.on("console", lambda m: page.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: page.problems.append(f"page error: {e}"))
    page.on("request", lambda r: None if r.url.startswith((pointer_site_server, "data:", "blob:"))
            else page.problems.append(f"request off the site: {r.url}"))
    yield page
    context.close()


def test_a_pointer_page_shows_upstream_links_verified_state_and_the_body(tab, pointer_site_server):
    tab.goto(pointer_site_server + "/skills/alpha/", wait_until="load")
    upstream = tab.locator("table.sy-upstream")
    repo = upstream.locator("a", has_text="up/skills")
    assert repo.get_attribute("href") == "https://github.com/up/skills"
    commit = upstream.locator("a:has(code)").first
    assert commit.get_attribute("href").startswith("https://github.com/up/skills/commit/")
    sha = commit.get_attribute("href").rsplit("/", 1)[1]
    assert tab.locator(".sy-verified").inner_text() == \
        f"Pinned at commit {sha[:12]} and hash-checked; not yet reviewed by a maintainer of this registry."
    assert tab.locator(".sy-checked").inner_text().startswith("not since it was pinned")
    assert tab.locator(".sy-upstream-state").get_attribute("data-state") == "shown"
    assert "hello from alpha" in tab.locator(".sy-body").inner_text()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "pointer-skill-page.png"), full_page=True)
    assert tab.problems == []
    served = tab.locator(".sy-body a", has_text="the notes")
    served.click()  # the body's relative link opens the served upstream copy on this site
    tab.wait_for_load_state("load")
    assert tab.url.endswith("/.well-known/agent-skills/alpha/references/notes.md")
    assert "# Alpha notes" in tab.content()  # (a plain file: the browser's own favicon request may 404)


def test_a_pointer_page_without_a_body_says_why(tab, pointer_site_server):
    tab.goto(pointer_site_server + "/skills/beta/", wait_until="load")
    state = tab.locator(".sy-upstream-state")
    assert state.get_attribute("data-state") == "licence"
    assert "not on this site's list of licences" in state.inner_text()
    assert tab.locator(".sy-body").count() == 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / "pointer-skill-no-body.png"), full_page=True)
    tab.goto(pointer_site_server + "/", wait_until="load")
    assert "beta" in search(tab, "beta")
    assert tab.problems == []
