"""The built site's pages without a browser (issue 27): each skill page describes itself to search engines and
link previews (meta description, Open Graph), and the "What we do not build" page is in the navigation, covers
the designs' features we leave out, and every link on it resolves, anchors included."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

from hypothesis import given
from hypothesis import strategies as st

from conftest import SKILLS
from skillyard.site.pages import META_DESCRIPTION_CHARS, meta_description
from skillyard.site.titles import display_title

SITE_URL = "https://skillyard.github.io/registry/"  # the repository's mkdocs.yml, which built_site uses


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, list[str]] = {}
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.nav_links: list[str] = []
        self._nav = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "meta" and "content" in a and ("name" in a or "property" in a):
            self.meta.setdefault(a.get("name") or a["property"], []).append(a["content"])
        if tag == "nav":
            self._nav += 1
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
            if self._nav:
                self.nav_links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "nav" and self._nav:
            self._nav -= 1


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _expected_description(text: str) -> str:
    return html.unescape(json.loads(meta_description(text)))


def test_every_skill_page_has_its_own_description_and_open_graph_tags(built_site):
    _, out, _ = built_site
    generic = parse(out / "index.html").meta["description"]
    for spec in SKILLS:
        page = parse(out / "skills" / spec["name"] / "index.html")
        want = _expected_description(spec["description"])
        assert page.meta["description"] == [want] != generic, spec["name"]
        assert page.meta["og:description"] == [want]
        assert page.meta["og:title"] == [display_title(spec, spec.get("body", ""))]  # the heading when no name
        assert page.meta["og:type"] == ["website"]
        assert page.meta["og:url"] == [f"{SITE_URL}skills/{spec['name']}/"]
        assert page.meta["og:site_name"] == ["Skillyard"]
    evil = (out / "skills/evil-skill/index.html").read_text(encoding="utf-8")
    assert '<meta name="description" content="Harmless text &lt;script&gt;window.__xss=6&lt;/script&gt;' in evil
    assert "<script>window.__xss" not in evil


def test_hand_written_pages_and_the_home_page_share_the_site_description(built_site):
    _, out, _ = built_site
    home = parse(out / "index.html")
    assert home.meta["og:title"] == ["Skillyard Test"] and home.meta["og:url"] == [SITE_URL]  # the registry's name
    guide = parse(out / "not-built" / "index.html")
    assert guide.meta["og:title"] == ["What we do not build"]  # its title in the navigation
    assert guide.meta["og:url"] == [f"{SITE_URL}not-built/"]
    assert guide.meta["og:description"] == home.meta["description"]


@given(st.text(max_size=1500))
def test_a_meta_description_is_one_bounded_escaped_line(text):
    value = json.loads(meta_description(text))  # a YAML double-quoted scalar is a JSON string
    plain = html.unescape(value)
    assert len(plain) <= META_DESCRIPTION_CHARS
    assert not re.search(r"[\x00-\x1f\x7f\u0085\u2028\u2029<>\"]", value)
    words = " ".join(re.sub(r"[\x00-\x1f\x7f\u0085\u2028\u2029]", " ", text).split())
    if words and len(words) <= META_DESCRIPTION_CHARS:
        assert plain == words
    elif words:
        assert plain.endswith("…") and words.startswith(plain[:-1])


def test_a_long_description_is_cut_at_a_word(built_site):
    text = "Extract tables from scanned invoices. " * 20
    cut = _expected_description(text)
    assert len(cut) <= META_DESCRIPTION_CHARS and cut.endswith("…")
    assert cut[:-1] == text[:len(cut) - 1].rstrip() and text[len(cut) - 1] == " "


# Every feature the designs ask for that Skillyard leaves out or maps to something else must be named.
DESIGN_FEATURES = ["execute(", "SkillExecutionOutcome", "memoryWrites", "intermediateSteps", "sandbox",
                   "skill_definitions", "HTTP API", "web UI", "downloads", "top-level `updated_at`", "templates/",
                   "Required body sections", "precedence", "triggers", "cacheable", "abp", "tools/call",
                   "--workflow", "verified", "SKILL_STORAGE_PATH"]


def test_the_not_built_page_names_every_left_out_feature():
    text = (Path(__file__).resolve().parents[2] / "site" / "pages" / "not-built.md").read_text(encoding="utf-8")
    missing = [term for term in DESIGN_FEATURES if term not in text]
    assert missing == []


def test_the_not_built_page_is_in_the_navigation_and_its_links_resolve(built_site):
    _, out, _ = built_site
    target = out / "not-built" / "index.html"
    assert target.is_file()
    for page in ("index.html", "format/index.html", "skills/pdf-tools/index.html", "tags/pdf/index.html"):
        hrefs = parse(out / page).nav_links
        resolved = {urljoin(f"https://x/{page}", h).split("#")[0] for h in hrefs}
        assert "https://x/not-built/" in resolved, page
    page = parse(target)
    local = [h for h in page.links if not urlparse(h).scheme and not h.startswith("//")]
    assert len(local) > 10
    broken = []
    for href in local:
        url = urlparse(urljoin("https://x/not-built/index.html", href))
        path = unquote(url.path).lstrip("/")
        file = out / (path + "index.html" if path.endswith("/") or not path else path)
        if not file.is_file() or url.fragment and url.fragment not in parse(file).ids:
            broken.append(href)
    assert broken == []
