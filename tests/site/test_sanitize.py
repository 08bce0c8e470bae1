"""The HTML allow-list for untrusted SKILL.md content."""

from __future__ import annotations

import html.parser

from hypothesis import given, settings
from hypothesis import strategies as st

from skillyard.site.markdown_render import BodyRenderer
from skillyard.site.sanitize import LINK_REL, clean_html, resolve_relative, safe_external_url

FILES = {"references/guide.md", "assets/diagram.png"}
BASE = "../../.well-known/agent-skills/demo/"


def clean(text: str) -> str:
    return clean_html(text, files=FILES, file_base=BASE)


class Collect(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parsed(fragment: str) -> list[tuple[str, dict]]:
    collector = Collect()
    collector.feed(fragment)
    return collector.tags


def test_scripts_and_their_content_are_removed():
    out = clean("<p>a</p><script>window.__xss=1</script><style>p{}</style>b")
    assert "script" not in out and "__xss" not in out and "p{}" not in out
    assert out.startswith("<p>a</p>") and out.endswith("b")


def test_event_handlers_are_removed():
    out = clean('<img src="assets/diagram.png" onerror="alert(1)"><p onclick="x()" onmouseover=y>t</p>')
    assert "onerror" not in out and "onclick" not in out and "onmouseover" not in out
    assert '<img src="../../.well-known/agent-skills/demo/assets/diagram.png">' in out


def test_javascript_and_data_urls_are_dropped_in_every_spelling():
    for href in ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "java&#x09;script:alert(1)",
                 "data:text/html,<script>x</script>", "vbscript:x", "&#106;avascript:alert(1)"]:
        out = clean(f'<a href="{href}">x</a>')
        assert "href" not in out, (href, out)


def test_frames_forms_and_embeds_are_removed_with_their_content():
    out = clean('<iframe src="https://e.com"></iframe><form action="/x"><input name=a><button>go</button></form>'
                '<object data="x"></object><embed src="x"><svg><script>1</script></svg>kept')
    assert out == "kept"


def test_external_links_get_nofollow_noopener():
    out = clean('<a href="https://example.com/x">e</a>')
    assert out == f'<a href="https://example.com/x" rel="{LINK_REL}">e</a>'
    assert "nofollow" in LINK_REL and "noopener" in LINK_REL


def test_relative_links_point_at_shipped_files_only():
    out = clean('<a href="references/guide.md#part">g</a><a href="../../../etc/passwd">p</a>'
                '<a href="missing.md">m</a><a href="/abs">a</a><a href="//evil.example/x">n</a>')
    tags = parsed(out)
    assert tags[0][1]["href"] == BASE + "references/guide.md"
    assert all("href" not in attrs for _, attrs in tags[1:])


def test_remote_images_are_not_loaded():
    assert clean('<img src="https://tracker.example/p.gif" alt="t">') == '<img alt="t">'


def test_only_language_classes_survive_and_ids_are_dropped():
    out = clean('<code class="language-python md-header evil">x</code><h2 id="__config">h</h2><p style="x">s</p>')
    assert out == '<code class="language-python">x</code><h2>h</h2><p>s</p>'


def test_resolve_relative():
    assert resolve_relative("./references/../references/guide.md", FILES) == "references/guide.md"
    assert resolve_relative("references/guide%2Emd", FILES) == "references/guide.md"
    assert resolve_relative("../guide.md", FILES) is None
    assert resolve_relative("references\\guide.md", FILES) is None


def test_safe_external_url():
    assert safe_external_url("https://example.com/a?b=c") == "https://example.com/a?b=c"
    for bad in ["javascript:alert(1)", "http:/x", "//example.com", 'https://e.com/"onmouseover=x', 3, None, "ftp://x"]:
        assert safe_external_url(bad) is None


def test_markdown_body_is_rendered_then_sanitised():
    renderer = BodyRenderer()
    out = renderer.render("# T\n\n[x](javascript:alert(1)) <b onclick=1>b</b>\n\n| a |\n|---|\n| 1 |\n\n```py\nx = 1\n```\n",
                          files=FILES, file_base=BASE)
    assert "<h1>T</h1>" in out and "<table>" in out and '<code class="language-py">' in out
    assert "javascript" not in out and "onclick" not in out and "<b>b</b>" in out


markup = st.lists(st.one_of(
    st.text(max_size=20),
    st.sampled_from(["<script>", "</script>", "<img src=x onerror=alert(1)>", "<a href='javascript:x'>",
                     "<iframe>", "<form>", "<svg onload=x>", "<p style='x'>", "<a href=https://e.com>", "</a>",
                     "javascript:", "<", ">", '"', "'", "&#", "<!--", "-->", "<math><mi>", "<div onclick=1>",
                     "<img src='//e.com/x'>", "<base href=//e.com>", "<meta http-equiv=refresh>", "<link rel=x>"]),
), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(markup)
def test_no_active_content_survives(source):
    out = clean(source)
    for tag, attrs in parsed(out):
        assert tag not in {"script", "iframe", "form", "svg", "math", "style", "base", "meta", "link", "object"}
        for name, value in attrs.items():
            assert not name.startswith("on"), out
            assert name != "style"
            if name in {"href", "src"}:
                assert value.startswith(("https://", "http://", "mailto:", "#", BASE)), out
                if tag == "img":
                    assert value.startswith(BASE)


def test_fenced_code_inside_a_numbered_step_stays_code():
    out = BodyRenderer().render("1. Run:\n\n    ```bash\n    echo <b>hi</b>\n    ```\n\n2. Done\n")
    assert '<pre><code class="language-bash">echo &lt;b&gt;hi&lt;/b&gt;\n</code></pre>' in out  # cmark keeps the last \n
    assert "<li>" in out and "Done" in out


def test_sizes_and_spans_keep_ascii_numbers_only():
    """Python's `\\d` and str.isdigit() take other scripts' digits (and `²`): those attribute values are dropped."""
    html = clean_html('<table><tr><td colspan="2" rowspan="²">a</td><td colspan="١٢">b</td></tr></table>'
                      '<img src="x.png" width="١٠٠" height="40%"><ol start="3"><li>c</li></ol>', files=["x.png"])
    assert 'colspan="2"' in html and 'height="40%"' in html and 'start="3"' in html
    assert "²" not in html and "١" not in html
