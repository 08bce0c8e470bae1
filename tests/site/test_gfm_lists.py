"""GitHub-style lists in SKILL.md bodies render as lists on the site, and nothing else changes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.site.gfm_lists import github_lists
from skillyard.site.markdown_render import BodyRenderer


def render(body: str) -> str:
    return BodyRenderer().render(body)


def test_a_list_right_after_a_paragraph_line_is_a_list():
    html = render("Steps:\n- read the file\n- write the summary\n")
    assert "<p>Steps:</p>" in html and "<li>read the file</li>" in html and "- read" not in html


def test_an_ordered_list_after_a_paragraph_line_is_a_list():
    assert "<ol>" in render("Then:\n1. open\n2. close\n")


def test_two_space_nesting_nests():
    html = render("- outer\n  - inner one\n  - inner two\n- last\n")
    assert html.count("<ul>") == 2 and "<li>outer<ul>" in html.replace("\n", "")


def test_four_space_nesting_is_left_alone():
    body = "- outer\n    - inner\n- last\n"
    assert github_lists(body) == body


def test_code_keeps_its_bytes_inside_and_outside_lists():
    body = "Intro:\n- step\n  ```py\n  if x:\n      y = 1\n  ```\n  - sub\n\n```\n- not a list\n  kept\n```\n"
    html = render(body)
    assert "if x:\n    y = 1</code>" in html
    assert "<code>- not a list\n  kept</code>" in html


def test_lazy_continuation_does_not_split_a_list():
    html = render("- one\ncontinued\n- two\n")
    assert html.count("<ul>") == 1


def test_a_rule_or_heading_is_not_a_list_item():
    html = render("Text\n---\n\n# Heading\n- item\n\n* * *\n")
    assert "<h2" in html and "Text</h2>" in html  # `---` under text is a heading underline, not an item
    assert "<li>item</li>" in html and "<hr" in html


pieces = st.sampled_from(["- a", "  - b", "    - c", "1. d", "2) e", "* f", "+ g", "text", "", "```", "~~~", "    code",
                          "# h", "> q", "| t |", "---", "***", "- - -", "  cont", "\t- tab", "<div>", "-", "1."])


@settings(max_examples=500, deadline=None)
@given(st.lists(pieces, max_size=14))
def test_only_whitespace_is_ever_added(lines):
    body = "\n".join(lines)
    out = github_lists(body)
    assert "".join(out.split()) == "".join(body.split())
    assert out.count("\n") >= body.count("\n")
    render(body)  # and the renderer takes whatever comes out
