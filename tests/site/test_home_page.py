"""The home page as the registry's front door (issue 37 item 1): headed by the registry's own title with its pitch,
the command that gets the `skill` client and the `npx skills add` alternative, search first, then featured (from
the registry's settings), categories, publishers and recently updated, with counts."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from conftest import CONFIG, SKILLS, write_registry
from skillyard.errors import SkillyardError
from skillyard.registry.config import load_registry_config
from skillyard.site import model
from skillyard.site.builder import build_site

README = Path(__file__).resolve().parents[2] / "README.md"


def _home(out: Path) -> str:
    return (out.resolve() / "index.html").read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def _section(page: str, anchor: str) -> str:
    match = re.search(rf'<h2 id="{anchor}">.*?</section>', page, re.S)
    return match.group(0) if match else ""


def test_the_home_page_is_headed_by_the_registry_and_says_how_to_get_the_client(built_site):
    _, out, _ = built_site
    page = _home(out)
    [heading] = re.findall(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    assert _text(heading) == "Skillyard Test"  # registry.json's name, never the nav's "Home"
    assert _text(re.search(r'<p class="sy-pitch">(.*?)</p>', page, re.S).group(1)) == \
        "Skills for the fixture's agents, checked before they ship."
    client = _text(re.search(r'sy-client-install"><code>(.*?)</code>', page, re.S).group(1))
    assert client == model.CLIENT_INSTALL and client in README.read_text(encoding="utf-8")  # the README's line
    assert _text(re.search(r'sy-npx-install"><code>(.*?)</code>', page, re.S).group(1)) == \
        "npx skills add https://example.org/"
    assert page.index('id="sy-q"') < page.index('id="get-started"') < page.index('id="featured"')  # search first


def test_the_home_page_browses_by_featured_category_publisher_and_recency_with_counts(built_site):
    _, out, _ = built_site
    page = _home(out)
    featured = _section(page, "featured")
    assert re.findall(r'href="skills/([^/]+)/"', featured) == ["invoice-reader", "pdf-tools"]  # the settings' order
    assert '<span class="sy-muted sy-count">2</span>' in featured
    tags = {tag for spec in SKILLS for tag in spec.get("tags", [])}
    assert f'<span class="sy-muted sy-count">{len(tags)}</span>' in _section(page, "tags")
    publishers = _section(page, "publishers")
    authors = sorted({spec.get("author", "Ada") for spec in SKILLS})
    assert f'<span class="sy-muted sy-count">{len(authors)}</span>' in publishers
    assert "Ada</li>" not in publishers and f"{sum(1 for s in SKILLS if s.get('author', 'Ada') == 'Ada')} skills" \
        in publishers
    recent = re.findall(r'href="skills/([^/]+)/"', _section(page, "recent"))
    newest = sorted(SKILLS, key=lambda s: (s.get("updated_at", "2026-01-01T00:00:00Z"), s["name"]), reverse=True)
    assert recent == [s["name"] for s in newest][:12]


def test_without_settings_the_title_is_the_name_and_no_featured_section(tmp_path):
    root = tmp_path / "plain"
    registry = write_registry(root, SKILLS[:2])
    build_site(registry, root, root / "_site", config=CONFIG, work_dir=root / ".work")
    page = _home(root / "_site")
    assert _text(re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S).group(1)) == "Skillyard Test"
    assert 'id="featured"' not in page
    assert _text(re.search(r'<p class="sy-pitch">(.*?)</p>', page, re.S).group(1)) == "Fixture registry."


def test_a_title_pitch_and_install_line_from_the_settings_replace_the_defaults(tmp_path):
    root = tmp_path / "set"
    registry = write_registry(root, SKILLS[:3])
    (root / "skillyard.toml").write_text(
        'title = "Acme <Skills>"\npitch = "Our team\'s skills & more."\nclient_install = "uv tool install acme-skill"\n'
        f'featured = ["{SKILLS[2]["name"]}", "not-a-skill"]\n', encoding="utf-8")
    result = build_site(registry, root, root / "_site", config=CONFIG, work_dir=root / ".work")
    page = _home(root / "_site")
    assert "<h1>Acme &lt;Skills&gt;</h1>" in page and "<title>Acme &lt;Skills&gt;" in page
    assert '<p class="sy-pitch">Our team&#x27;s skills &amp; more.</p>' in page
    assert "<code>uv tool install acme-skill</code>" in page
    assert re.findall(r'href="skills/([^/]+)/"', _section(page, "featured")) == [SKILLS[2]["name"]]
    assert any("not-a-skill" in note and "featured" in note for note in result.notes)


@pytest.mark.parametrize(("text", "key"), [('featured = "pdf-tools"\n', "featured"), ("pitch = 3\n", "pitch"),
                                           ('title = "two\\nlines"\n', "title"), ("featured = [1]\n", "featured")])
def test_a_wrong_setting_is_refused_naming_the_file_and_key(tmp_path, text, key):
    (tmp_path / "skillyard.toml").write_text(text, encoding="utf-8")
    with pytest.raises(SkillyardError) as caught:
        load_registry_config(tmp_path).home_page()
    assert "skillyard.toml" in str(caught.value) and f"`{key}`" in str(caught.value)


def test_publishers_are_upstream_repositories_and_authors_most_skills_first():
    skills = [{"name": "a", "author": "Ada"}, {"name": "b", "author": "Bo"}, {"name": "c", "author": "Bo"},
              {"name": "d", "source_url": "https://github.com/o/r", "source": {"repository": "o/r"}},
              {"name": "e", "source_url": "https://github.com/o/r", "source": {"repository": "o/r"}, "author": "X"}]
    assert model.publishers(skills) == [
        {"name": "Bo", "kind": "author", "count": 2, "url": None, "repository": False, "page": ""},
        {"name": "o/r", "kind": "repository", "count": 2, "url": "https://github.com/o/r", "repository": True,
         "page": ""},
        {"name": "Ada", "kind": "author", "count": 1, "url": None, "repository": False, "page": ""}]
    # A publisher links to its page only when the site has one (publishers/<slug>/: owner-repo, author-<name>).
    linked = model.publishers(skills, {"o-r", "author-ada"})
    assert [(p["name"], p["page"]) for p in linked] == [("Bo", ""), ("o/r", "o-r"), ("Ada", "author-ada")]


def test_publisher_slugs_are_url_safe_and_distinct():
    skills = [{"name": "a", "author": "Ada Lovelace"}, {"name": "b", "author": "张三"}, {"name": "c", "author": "李四"},
              {"name": "d", "source_url": "u", "source": {"repository": "Get.Sentry/skills"}},
              {"name": "e", "source_url": "u", "source": {"repository": "get-sentry/skills"}},
              {"name": "f", "author": "  "}]
    slugs = model.publisher_slugs(skills)
    assert slugs[("author", "Ada Lovelace")] == "author-ada-lovelace"
    assert slugs[("repository", "Get.Sentry/skills")] == "get-sentry-skills"
    assert slugs[("repository", "get-sentry/skills")].startswith("get-sentry-skills-")  # the later one: hashed
    assert len(set(slugs.values())) == len(slugs) == 5  # the blank author publishes nothing
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) for slug in slugs.values())


def test_publisher_slugs_agree_with_the_publisher_pages():
    """The home page and search link to `publishers/<slug>/` with the publisher pages' own rule."""
    publishers = pytest.importorskip("skillyard.site.publishers", reason="the publisher pages are not on this branch")
    skills = [{"name": "a", "author": "Ada"}, {"name": "b", "author": "张三"},
              {"name": "d", "source_url": "u", "source": {"repository": "o/r"}},
              {"name": "e", "source_url": "u", "source": {"repository": "O.r/x"}}]
    assert model.publisher_slugs(skills) == publishers.slugs(skills)


def test_a_registry_made_by_init_registry_is_headed_by_its_own_name(tmp_path):
    from tests.site.test_served_tree import env_for, run

    env = env_for(tmp_path)
    run(["skillyard", "init-registry", "team-skills", "--host", "static"], tmp_path, env)
    root = tmp_path / "team-skills"
    run(["skillyard", "build"], root, env)
    run(["skillyard", "site", "build", "--out", "_site"], root, env)
    name = json.loads((root / "registry.json").read_text(encoding="utf-8"))["name"]
    page = _home(root / "_site")
    heading = _text(re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S).group(1))
    assert heading == name and heading != "Home"
    assert "Skillyard" not in _text(re.search(r"<title>(.*?)</title>", page, re.S).group(1))
    assert _text(re.search(r'sy-client-install"><code>(.*?)</code>', page, re.S).group(1)) == model.CLIENT_INSTALL


def test_our_own_registry_features_skills_it_has():
    """The repository's own `featured` list names own skills that registry.json lists (a typo would drop one)."""
    repo = Path(__file__).resolve().parents[2]
    featured = load_registry_config(repo).home_page().get("featured", [])
    skills = {s["name"]: s for s in json.loads((repo / "registry.json").read_text(encoding="utf-8"))["skills"]}
    assert len(featured) >= 4
    assert [name for name in featured if name not in skills or "source_url" in skills[name]] == []
