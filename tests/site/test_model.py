"""Pure view-model helpers: slugs, trees, tag pages, URLs."""

from __future__ import annotations

from skillyard.site import model, pages


def test_tag_slug_keeps_simple_tags_and_hashes_others():
    assert model.tag_slug("pdf") == "pdf"
    odd = [model.tag_slug(t) for t in ["c++", "c#", "发票", "A B", "../x"]]
    assert len(set(odd)) == len(odd)
    assert all(s.replace("-", "").isalnum() and s.isascii() for s in odd)


def test_file_tree_is_nested_folders_first():
    tree = model.file_tree([{"path": "SKILL.md", "size": 3, "sha256": "0"},
                            {"path": "scripts/a.py", "size": 5, "sha256": "0", "executable": True},
                            {"path": "references/x/y.md", "size": 1, "sha256": "0"}])
    assert [n["name"] for n in tree] == ["references/", "scripts/", "SKILL.md"]
    assert tree[0]["children"][0]["children"][0]["path"] == "references/x/y.md"
    assert tree[1]["children"][0]["executable"] is True


def test_raw_url_pins_the_commit_and_quotes_the_path():
    registry = {"repository": {"raw_url_template": "https://raw.example/o/r/{commit}/{path}"}}
    skill = {"path": "skills/a b", "commit": "a" * 40}
    assert model.raw_url(registry, skill, "x y.md") == f"https://raw.example/o/r/{'a' * 40}/skills/a%20b/x%20y.md"
    assert model.raw_url(registry, {"path": "skills/a", "commit": ""}, "x") is None


def test_tag_pages_are_split_into_pages_of_100():
    skills = [{"name": f"s{i:03d}", "description": "d", "tags": ["big"], "updated_at": ""} for i in range(250)]
    (group,) = model.tag_groups(skills)
    rendered = pages.render_tag_pages(group)
    assert list(rendered) == ["tags/big/index.md", "tags/big/2.md", "tags/big/3.md"]
    assert rendered["tags/big/3.md"].count('class="sy-list__name"') == 50
    assert 'href="../../../skills/s249/"' in rendered["tags/big/3.md"]


def test_meta_title_is_escaped_single_line_yaml():
    import yaml

    title = pages.meta_title('Evil "<script>"\n\u2028x')
    assert yaml.safe_load(f"t: {title}")["t"] == "Evil &quot;&lt;script&gt;&quot; x"


def test_show_value():
    assert model.show_value("a") == "a"
    assert model.show_value(["x", 1]) == '["x", 1]'
    assert model.show_value(False) == "false"


def test_a_skill_without_a_commit_links_to_the_site_copies():
    skill = {"name": "demo", "description": "d", "version": "1.0.0", "path": "skills/demo", "commit": "",
             "updated_at": "", "files": [{"path": "SKILL.md", "size": 10, "sha256": "0" * 64}],
             "integrity": "sha256-" + "0" * 64, "inventory": {"total_files": 1, "total_size": 10}}
    registry = {"repository": {"url": "https://github.com/o/r", "slug": "o/r",
                               "raw_url_template": "https://raw.example/{commit}/{path}"}}
    text = pages.render_skill(registry, skill, "<p>body</p>")
    assert 'href="../../.well-known/agent-skills/demo/SKILL.md">SKILL.md</a>' in text
    assert "raw.example" not in text and "/tree/" not in text
    assert "<td>unknown</td>" in text


def test_a_path_deeper_than_the_path_rule_is_listed_flat():
    deep = "/".join(["d"] * 250) + "/f.md"
    tree = model.file_tree([{"path": deep, "size": 1}, {"path": "a/b.md", "size": 2}])
    assert tree[0]["name"] == "a/" and tree[0]["children"][0]["path"] == "a/b.md"
    assert tree[1] == {"name": deep, "path": deep, "size": 1, "executable": False}


def test_a_time_based_version_reads_as_its_commit_and_date_and_a_declared_one_as_itself():
    """Issue 37 item 3: `0.0.20260819184126` (no version declared) shows as the pinned commit and date; the
    machine version is kept for pins."""
    from skillyard.site.model import list_item, readable_version

    pointer = {"name": "p", "version": "0.0.20260819184126", "commit": "6abccd60c704f669423d6a06ff0809fa39513ce8"}
    assert readable_version(pointer) == {"label": "6abccd60c704 · 2026-08-19", "date": "2026-08-19",
                                         "commit": "6abccd60c704", "machine": "0.0.20260819184126",
                                         "declared": False}
    assert readable_version({**pointer, "commit": ""})["label"] == "2026-08-19"
    assert readable_version({**pointer, "version": "1.2.0"}) == {"label": "1.2.0", "date": "", "commit": "",
                                                                  "machine": "1.2.0", "declared": True}
    assert readable_version({**pointer, "version": "0.0.0"})["declared"] is True  # UNKNOWN: no time to show
    assert list_item({**pointer, "description": "P."})["version"] == "6abccd60c704 · 2026-08-19"
