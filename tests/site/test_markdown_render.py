"""SKILL.md bodies render as GitHub renders them (cmark-gfm), sanitised, deterministic and bounded on any text."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from tests.site.test_sanitize import parsed  # the start tags of a fragment, with their attributes

from skillyard.site.cmark import gfm_to_html
from skillyard.site.markdown_render import (
    MAX_BODY_CHARS,
    MAX_NESTING,
    BodyRenderer,
    nesting_depth,
)

FILES = {"references/guide.md", "assets/diagram.png"}
BASE = "../../.well-known/agent-skills/demo/"


def render(body: str) -> str:
    return BodyRenderer().render(body, files=FILES, file_base=BASE)


# --- GitHub's Markdown ------------------------------------------------------------------------------------------

def test_a_list_right_after_a_paragraph_line_is_a_list():
    out = render("Steps:\n- read the file\n- write the summary\n")
    assert "<p>Steps:</p>" in out and "<li>read the file</li>" in out and "- read" not in out


def test_an_ordered_list_after_a_paragraph_line_is_a_list():
    assert "<ol>" in render("Then:\n1. open\n2. close\n")


def test_two_space_nesting_nests():
    out = render("- outer\n  - inner one\n  - inner two\n- last\n")
    assert out.count("<ul>") == 2 and "<li>outer<ul>" in out.replace("\n", "")


def test_code_keeps_its_bytes_inside_and_outside_lists():
    out = render("Intro:\n- step\n  ```py\n  if x:\n      y = 1\n  ```\n  - sub\n\n```\n- not a list\n  kept\n```\n")
    assert '<code class="language-py">if x:\n    y = 1\n</code>' in out
    assert "<code>- not a list\n  kept\n</code>" in out


def test_lazy_continuation_does_not_split_a_list():
    assert render("- one\ncontinued\n- two\n").count("<ul>") == 1


def test_a_rule_or_heading_is_not_a_list_item():
    out = render("Text\n---\n\n# Heading\n- item\n\n* * *\n")
    assert "<h2>Text</h2>" in out and "<li>item</li>" in out and "<hr" in out


def test_headings_have_no_ids():
    """The page's own sections (#install, #files, …) keep their ids; a body heading never takes one."""
    assert render("# Install\n\n## Files\n") == "<h1>Install</h1>\n<h2>Files</h2>\n"


def test_tables_keep_their_alignment():
    out = render("| a | b |\n|:-:|--:|\n| 1 | 2 |\n")
    assert '<th align="center">a</th>' in out and '<td align="right">2</td>' in out


def test_strikethrough_and_autolinks():
    out = render("~~old~~ see www.example.com and https://example.org/x.\n")
    assert "<del>old</del>" in out
    assert '<a href="http://www.example.com" rel="nofollow noopener">www.example.com</a>' in out
    assert '<a href="https://example.org/x" rel="nofollow noopener">https://example.org/x</a>.' in out


def test_task_list_boxes_are_characters_not_inputs():
    out = render("- [ ] todo\n- [x] done\n")
    assert "<li>\u2610 todo</li>" in out and "<li>\u2611 done</li>" in out and "<input" not in out


def test_footnotes_link_both_ways():
    out = render("Claim.[^src]\n\n[^src]: Where it comes from.\n")
    assert '<a href="#fn-src" id="fnref-src" rel="nofollow noopener">1</a>' in out
    assert '<li id="fn-src">' in out and '<a href="#fnref-src" rel="nofollow noopener">' in out
    assert "footnote" not in out and "data-" not in out  # classes and data attributes are dropped


def test_only_footnote_ids_survive():
    out = render('<a id="__config">a</a> <li id="install">b</li> <a id="fn-x\n">c</a> <a id="fnref-1">d</a>\n')
    assert re.findall(r'id="([^"]*)"', out) == ["fnref-1"]


def test_relative_links_and_images_point_at_the_served_copies():
    out = render("[g](references/guide.md#part) ![d](assets/diagram.png) [m](missing.md) ![r](https://t.example/p)\n")
    assert f'<a href="{BASE}references/guide.md" rel="nofollow noopener">g</a>' in out
    assert f'<img src="{BASE}assets/diagram.png" alt="d">' in out
    assert "<a>m</a>" in out or '<a rel="nofollow noopener">m</a>' in out
    assert '<img alt="r">' in out


def test_raw_html_is_sanitised_not_escaped():
    out = render("<details><summary>More</summary>\n\n*hidden* <b onclick=x()>b</b>\n\n</details>\n\n<script>alert(1)</script>\n")
    assert "<details><summary>More</summary>" in out and "<em>hidden</em>" in out and "<b>b</b>" in out
    assert "script" not in out and "alert" not in out and "onclick" not in out


def test_long_bodies_are_cut_with_a_note():
    out = render("word " * (MAX_BODY_CHARS // 5 + 100))
    assert out.endswith("<p><em>The rest of SKILL.md is not shown here; open the raw file.</em></p>")
    assert out.count("word") == MAX_BODY_CHARS // 5


def test_nul_bytes_and_invalid_text_become_replacement_characters():
    assert gfm_to_html("a\x00b \ud800 c") == "<p>a\ufffdb \ufffd c</p>\n"
    assert render("a\x00b") == "<p>a\ufffdb</p>\n"


def test_rendering_is_deterministic():
    body = "# T\n\n| a |\n|---|\n| 1 |\n\n- [ ] x[^1]\n\n[^1]: n\n" * 50
    first = render(body)
    assert all(render(body) == first for _ in range(200))


def test_without_exported_functions_cmarkgfms_helper_gives_the_same_html(monkeypatch):
    from skillyard.site import cmark

    body = "# T\n\n| a |\n|:-:|\n| 1 |\n\n- [x] y ~~z~~ www.example.com[^1] <b>raw</b>\n\n[^1]: n\n\n```py\nx\n```\n"
    expected = [gfm_to_html(body), gfm_to_html(body, raw_html=False)]
    monkeypatch.setattr(cmark, "_library", lambda: None)
    assert [gfm_to_html(body), gfm_to_html(body, raw_html=False)] == expected
    assert gfm_to_html("a \ud800") == "<p>a \ufffd\ufffd\ufffd</p>\n"


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads Linux's /proc")
def test_rendering_frees_the_tree_and_the_html():
    """cmarkgfm's own helpers leak both (about 0.6 MB for this body: 300 renders would hold 170 MB)."""
    body = "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [ ] x[^1] *y* `z`\n\n[^1]: n\n" * 100
    gfm_to_html(body)
    before = resident_bytes()
    for _ in range(300):
        gfm_to_html(body)
    assert resident_bytes() - before < 50 * 2**20


# --- hostile text: bounded, never a crash, always inert ----------------------------------------------------------

ADVERSARIAL = {
    "quotes": ">" * 100_000,
    "list items": "- " * 100_000,
    "numbered": "1. " * 60_000,
    "brackets": "[" * 200_000,
    "links": "[a](b" * 40_000,
    "stars": "*" * 200_000,
    "star words": "*a **b " * 30_000,
    "underscores": "_a __b " * 30_000,
    "backticks": "`" * 200_000,
    "backtick runs": "".join("`" * n + "x" for n in range(1, 600)),
    "html attributes": '<a href="' * 22_000,
    "html openers": "<a " * 60_000,
    "comments": "<!--" * 50_000,
    "entities": "&#" * 100_000,
    "tables": "|" * 10_000 + "\n" + "|-" * 5_000 + "\n" + ("|x" * 5_000 + "\n") * 15,
    "table rows": "| a | b |\n|---|---|\n" + "| 1 |\n" * 15_000,
    "footnotes": "".join(f"[^{n}] " for n in range(20_000)) + "\n\n" + "".join(f"[^{n}]: n\n" for n in range(5_000)),
    "references": "[x]\n\n" + "[x]: /u\n" * 20_000,
    "autolinks": "www." * 50_000,
    "emails": "a@" * 100_000,
    "nested emphasis and links": "*[_`" * 50_000,
    "nul bytes": "\x00" * 200_000,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_bodies_render_in_bounded_time(name):
    try:
        out = render(ADVERSARIAL[name])
    except RecursionError:  # the builder shows such a body as escaped text
        assert nesting_depth(gfm_to_html(ADVERSARIAL[name][:MAX_BODY_CHARS], raw_html=False)) > MAX_NESTING
    else:
        assert_inert(out)


@pytest.mark.timeout(60)
def test_nesting_deeper_than_the_limit_is_refused_in_bounded_time():
    with pytest.raises(RecursionError, match="100000 levels deep"):
        render(">" * 100_000)
    mixed = render("> - 1. " * 20_000 + "<script>fetch('/x')</script>\n")  # cmark stops lists at 100 deep
    assert 10 < mixed.count("<blockquote>") < MAX_NESTING and "<script" not in mixed


@pytest.mark.timeout(60)
def test_many_tags_are_rendered_without_raw_html_and_nothing_else_changes():
    rows = "| a | b |\n|---|---|\n" + "| 1 | <b>2</b> |\n" * 3_000  # about 30,000 tags: more than sanitised as written
    out = render(rows)
    assert out.count("<tr>") == 3_001 and out.count("<td>2</td>") == 3_000 and "<b>" not in out
    assert render("<div>" * 40_000) == "\n" and render("<blockquote>" * 9_000) == "\n"
    assert render(">" * 4_000 + " deep").count("<blockquote>") == 4_000  # cmark's own tags: kept up to the limit
    with pytest.raises(RecursionError, match="6001 levels deep; the limit is 5000"):
        render(">" * 6_000 + " deeper")
    few = "| a | b |\n|---|---|\n" + "| 1 | <b>2</b> |\n" * 100
    assert render(few).count("<b>2</b>") == 100


@pytest.mark.timeout(60)
def test_raw_formatting_tags_the_sanitiser_would_reopen_are_left_out():
    """html5ever re-opens every unclosed <b> at each new <p>: 5,000 of each took it 30 s; cmark's own tags only."""
    body = "".join(f'<b title="{n}"><p>x' for n in range(5_000))
    out = render(body)
    assert "<b" not in out and "x" * 100 in out
    assert render("<b>bold</b> and <kbd>Ctrl</kbd>\n") == "<p><b>bold</b> and <kbd>Ctrl</kbd></p>\n"


def test_nesting_depth_counts_cmark_tags():
    assert nesting_depth(gfm_to_html("> - a\n>   > b\n\n---\n![i](x.png)\n", raw_html=False)) == 5
    assert nesting_depth("") == 0


SAFE_URL = re.compile(r"^(#|https?://|mailto:|" + re.escape(BASE) + r")", re.I)


# A `javascript:` URL as a browser reads an attribute: leading spaces and controls are skipped, and tabs and line
# feeds inside the scheme are dropped. (`http://www.javascript:0`, a link GFM makes of `www.JAVASCRIPT:0`, is none.)
SCRIPT_URL = re.compile(r"^[\x00-\x20]*j[\t\n\r]*a[\t\n\r]*v[\t\n\r]*a[\t\n\r]*s[\t\n\r]*c[\t\n\r]*r[\t\n\r]*i[\t\n\r]*"
                        r"p[\t\n\r]*t[\t\n\r]*:", re.I)


def assert_inert(fragment: str) -> None:
    tags = "".join(re.findall(r"<[^<>]*>", fragment)).lower()  # text may say anything: it is escaped
    assert "<script" not in tags and not re.search(r"\son\w+\s*=", tags)
    for tag, attrs in parsed(fragment):
        assert tag not in {"script", "style", "iframe", "svg", "math", "input", "form", "object", "embed"}, tag
        for name, value in attrs.items():
            assert not SCRIPT_URL.match(value or ""), (name, value)  # in any attribute, not only href and src
            assert not name.startswith("on") and name not in {"style", "class"} or (
                name == "class" and value.startswith("language-")), (name, value)
            if name in {"href", "src"}:
                assert SAFE_URL.match(value or ""), (name, value)


markdownish = st.lists(st.one_of(
    st.text(max_size=12),
    st.sampled_from(["\n", "\n\n", "- ", "  - ", "1. ", "> ", "# ", "```", "~~~", "    ", "|", "|---|", "*", "**",
                     "_", "`", "[", "]", "(", ")", "![", "[^1]", "[^1]: ", "<", ">", "&", "&#", "&#x6A;", "\x00",
                     "javascript:", "JaVaScRiPt:", "data:", "//evil.example", "www.", "https://e.example/x", "~~",
                     "- [ ] ", "- [x] ", "<script>", "</script>", "<img src=x onerror=alert(1)>", "<a href='",
                     "<svg onload=x>", "<details open ontoggle=x>", "<input type=checkbox>", "<!--", "-->",
                     "<style>", "<iframe src=//e>", '" onmouseover="x', "\\", "\t", "\ud800"]),
), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(markdownish)
@example("www.JAVASCRIPT:0")
@example("[a](javascript:alert(1)) [b]( JaVa\tScRiPt:x) <a href=\"&#x6A;avascript:x\">c</a>")
def test_any_markdownish_text_renders_to_inert_deterministic_html(text):
    out = render(text)
    assert_inert(out)
    assert render(text) == out
