"""Skill pages stamped from one shell page are the pages mkdocs itself would write (skillyard.site.shell)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from conftest import CONFIG, SKILLS, write_registry
from skillyard.errors import SkillyardError
from skillyard.site import builder, model, shell
from skillyard.site.history import read_history
from skillyard.site.story import with_story
from skillyard.site.titles import all_titles


def _mkdocs_pages(root, tmp_path, registry_path):
    """The same site with every skill page rendered by mkdocs, the way the builder did before stamping."""
    registry, _ = builder.load_registry(registry_path)
    bodies = builder.read_bodies(registry, root)
    served = builder.machine.stage_well_known(registry, root, tmp_path / "wk", [])
    told, _ = with_story(registry, {}, all_titles(registry, bodies), read_history(registry_path))  # as the builder
    texts, _ = builder.render_skill_pages(told, bodies, served=served, workers=1)
    docs = tmp_path / "docs"
    *_, tag_pages = builder.generate_docs(registry, bodies, CONFIG.parent / "site", docs, None, served, [])
    (docs / "skills" / f"{shell.SHELL}.md").unlink()
    shutil.rmtree(docs / "tags" / shell.SHELL)
    for rel, text in tag_pages.items():
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        (docs / rel).write_text(text, encoding="utf-8")
    for skill, text in zip(registry["skills"], texts, strict=True):
        (docs / "skills" / f"{skill['name']}.md").write_text(text, encoding="utf-8")
    site = tmp_path / "plain"
    builder.run_mkdocs(CONFIG, docs, site, builder.source_epoch(registry), None)
    return registry, site


def _entries(sitemap: str) -> list[str]:
    return sorted(re.findall(r"<url>.*?</url>", sitemap, re.DOTALL))


def test_stamped_skill_pages_equal_the_pages_mkdocs_renders(built_site, tmp_path):
    root, out, _ = built_site
    registry, plain = _mkdocs_pages(root, tmp_path, root / "registry.json")
    assert len(registry["skills"]) == len(SKILLS)
    for skill in registry["skills"]:
        rel = f"skills/{skill['name']}/index.html"
        assert (out / rel).read_bytes() == (plain / rel).read_bytes(), rel
    assert not (out / "skills" / shell.SHELL).exists()
    stamped = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert _entries(stamped) == _entries((plain / "sitemap.xml").read_text(encoding="utf-8"))
    assert shell.SHELL not in stamped and shell.TITLE not in stamped


def test_stamped_tag_pages_and_sitemap_equal_what_mkdocs_writes(tmp_path, monkeypatch):
    monkeypatch.setattr(model, "TAG_PAGE_SIZE", 1)  # tags with two skills get a second page, one level deeper
    root = tmp_path / "repo"
    registry_path = write_registry(root, SKILLS)
    out = tmp_path / "out"
    builder.build_site(registry_path, root, out, config=CONFIG, work_dir=tmp_path / "work", use_cache=False)
    _, plain = _mkdocs_pages(root, tmp_path, registry_path)
    tag_html = sorted(p.relative_to(plain).as_posix() for p in (plain / "tags").rglob("*.html"))
    assert any(rel.count("/") == 3 for rel in tag_html)  # tags/<slug>/2/index.html
    assert sorted(p.relative_to(out).as_posix() for p in (out / "tags").rglob("*.html")) == tag_html
    for rel in tag_html:
        assert (out / rel).read_bytes() == (plain / rel).read_bytes(), rel
    stamped, written = ((site / "sitemap.xml").read_text(encoding="utf-8") for site in (out, plain))
    tags_in = [re.findall(r"<loc>[^<]*/tags/[^<]*</loc>", text) for text in (stamped, written)]
    assert tags_in[0] == tags_in[1]  # in mkdocs' order
    assert _entries(stamped) == _entries(written)
    assert not (out / "tags" / shell.SHELL).exists()


@pytest.mark.parametrize("title", ["</title><script>alert(1)</script>", f"{shell.TITLE} & {shell.CONTENT}",
                                   "skills/_shell/ \u2028 \"quoted\" 'single' {{ x }}"])
def test_a_hostile_title_or_body_holding_the_markers_is_still_escaped_and_never_replaced(tmp_path, title):
    specs = [dict(SKILLS[0], display_name=title,
                  body=f"# {shell.CONTENT}\n\n{shell.TITLE} skills/_shell/ <script>x()</script>\n")]
    root = tmp_path / "repo"
    registry_path = write_registry(root, specs)
    out = tmp_path / "out"
    builder.build_site(registry_path, root, out, config=CONFIG, work_dir=tmp_path / "work")
    name = specs[0]["name"]
    _, plain = _mkdocs_pages(root, tmp_path, registry_path)
    page = (out / f"skills/{name}/index.html").read_bytes()
    assert page == (plain / f"skills/{name}/index.html").read_bytes()
    assert b"<script>alert(1)" not in page and b"<script>x()" not in page
    assert page.count(b'http-equiv="Content-Security-Policy"') == 1


def test_a_registry_without_skills_builds_without_a_shell(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    registry_path = write_registry(root, [])
    out = tmp_path / "out"
    builder.build_site(registry_path, root, out, config=CONFIG, work_dir=tmp_path / "work")
    assert (out / "index.html").is_file() and not (out / "skills" / shell.SHELL).exists()


def test_a_rebuild_checks_changed_entries_against_the_schema_and_names_their_real_position(tmp_path):
    root = tmp_path / "repo"
    registry_path = write_registry(root, SKILLS)
    builder.build_site(registry_path, root, tmp_path / "one", config=CONFIG, work_dir=tmp_path / "work")
    assert (tmp_path / "work/cache/checked-skills.json").is_file()
    registry = json.loads(registry_path.read_text(encoding="utf-8"))
    registry["skills"][-1]["files"][0]["sha256"] = "not-a-digest"
    registry_path.write_text(json.dumps(registry), encoding="utf-8")
    with pytest.raises(SkillyardError) as caught:
        builder.build_site(registry_path, root, tmp_path / "two", config=CONFIG, work_dir=tmp_path / "work")
    assert f"at skills/{len(registry['skills']) - 1}/files/0/sha256" in caught.value.message
    assert not (tmp_path / "two").exists()


def test_a_registry_hook_that_rewrites_pages_stops_the_build_with_a_clear_message(tmp_path):
    root = tmp_path / "repo"
    registry_path = write_registry(root, SKILLS)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf/hook.py").write_text("def on_post_page(output, page, config):  # a minifier, say\n"
                                           "    return output.replace('\\n', '')\n", encoding="utf-8")
    config = tmp_path / "conf/mkdocs.yml"
    config.write_text(CONFIG.read_text(encoding="utf-8") + "\nhooks:\n  - hook.py\n", encoding="utf-8")
    with pytest.raises(SkillyardError) as caught:
        builder.build_site(registry_path, root, tmp_path / "out", config=config, work_dir=tmp_path / "work")
    assert "lost its content" in caught.value.message and "generated.html" in caught.value.fix
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", [
    "<urlset>\n    <url>\n         <loc>https://x/a/</loc>\n    </url>\n    <url>\n         <loc>https://x/tags/_shell/"
    "</loc>\n    </url>\n</urlset>",
    "<url><loc>https://x/tags/_shell/</loc></url>",  # no indent, no line feed
    "\t<url><loc>https://x/tags/_shell/2/</loc></url>\n<url><loc>https://x/tags/_shell/</loc><lastmod>1</lastmod></url>",
    "<url><loc>https://x/tags/_shell/2/</loc></url>",  # only the other shell
    "<url><loc>x</loc></url> tags/_shell/</loc>",  # a stray location outside any entry
])
def test_a_sitemap_entry_is_found_as_the_regex_it_replaced_finds_it(text):
    old = re.search(r"[ \t]*<url>(?:(?!</url>).)*?" + re.escape("tags/_shell/") + r"</loc>.*?</url>\n?", text,
                    re.DOTALL)
    assert shell._entry(text, "tags/_shell/") == (old.span() if old else None)
