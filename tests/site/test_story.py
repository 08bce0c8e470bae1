"""Each skill's story (issue 37 items 3-4): the display title, the version history read from git, the verification
facts, and the publisher pages, checked on their own and in built sites (the fixtures' and one in a real git
repository with two commits)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.site.pointerkit import tree_bytes

from conftest import CONFIG, SKILLS, write_registry
from skillyard.registry.compile import dumps
from skillyard.site import history, publishers
from skillyard.site.search_index import search_rows
from skillyard.site.titles import MAX_TITLE, display_title, first_heading

# ---- display title ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, title", [
    ("# PDF Tools\n\ntext", "PDF Tools"),
    ("\n\n#   Expo UI (`@expo/ui`)  ##\n", "Expo UI (@expo/ui)"),
    ("# **Bold** and [a link](https://x.y) with snake_case\n", "Bold and a link with snake_case"),
    ("Setext title\n============\n\nbody", "Setext title"),
    ("## Overview\n\n# Later title\n", ""),  # the first heading is not level 1
    ("```\n# not a heading\n```\n# Real\n", "Real"),
    ("~~~~md\n# fenced\n~~~\nstill fenced\n~~~~\n# After\n", "After"),
    ("# Instructions\n", ""),  # a section's name, not the skill's
    ("#\n", ""),
    ("#hashtag not heading\n# Yes\n", "Yes"),
    ("plain text only", ""),
    ("# 发票处理 Invoice Processor\n", "发票处理 Invoice Processor"),
])
def test_the_first_level_one_heading_is_the_title(body, title):
    assert first_heading(body) == title


def test_a_declared_display_name_wins_and_the_name_is_the_last_resort():
    assert display_title({"name": "pdf", "display_name": "PDF Kit"}, "# Other\n") == "PDF Kit"
    assert display_title({"name": "pdf"}, "# Other\n") == "Other"
    assert display_title({"name": "pdf", "display_name": "  "}, "## Sub\n") == "pdf"
    assert display_title({"name": "pdf", "display_name": "a\u202eb\nc"}) == "a b c"


@given(st.text(max_size=400))
def test_any_body_gives_a_short_single_line_title(body):
    title = first_heading(body)
    assert len(title) <= MAX_TITLE
    assert title == title.strip() and not re.search(r"[\x00-\x1f\x7f\u2028\u2029]", title)
    assert display_title({"name": "x"}, body) == (title or "x")


# ---- publishers -------------------------------------------------------------------------------------------------

def _pointer(name: str, repository: str) -> dict:
    return {"name": name, "source_url": f"https://github.com/{repository}", "source": {"repository": repository}}


def test_publisher_slugs_follow_the_url_scheme_and_never_collide():
    skills = [_pointer("a", "getsentry/skills"), _pointer("b", "HashiCorp/Agent.Skills"),
              {"name": "c", "author": "Ada Lovelace"}, {"name": "d", "author": "张三"},
              _pointer("e", "a-b/c"), _pointer("f", "a/b-c"), {"name": "g"}, {"name": "h", "author": " "}]
    table = publishers.slugs(skills)
    assert table[("repository", "getsentry/skills")] == "getsentry-skills"
    assert table[("repository", "HashiCorp/Agent.Skills")] == "hashicorp-agent-skills"
    assert table[("author", "Ada Lovelace")] == "author-ada-lovelace"
    assert re.fullmatch(r"author-[0-9a-f]{8}", table[("author", "张三")])
    assert table[("repository", "a-b/c")] == "a-b-c"
    assert re.fullmatch(r"a-b-c-[0-9a-f]{8}", table[("repository", "a/b-c")])
    assert len(set(table.values())) == len(table) == 6  # no page for a skill with no author: the registry's
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) for slug in table.values())
    assert publishers.publisher_link({"name": "g"}, table) == {"kind": "registry", "name": "", "slug": "",
                                                               "url": None}


def test_a_publisher_with_many_skills_gets_pages_of_a_hundred():
    skills = [{"name": f"s{i:03}", "author": "many", "description": "d"} for i in range(publishers.PAGE_SIZE + 5)]
    [group] = publishers.groups(skills, {})
    assert group["count"] == 105 and [len(p) for p in group["pages"]] == [100, 5]
    docs = publishers.render_pages(group)
    assert list(docs) == ["publishers/author-many/index.md", "publishers/author-many/2.md"]
    assert 'href="../../../publishers/author-many/">1</a>' in docs["publishers/author-many/2.md"]
    assert '<strong aria-current="page">2</strong>' in docs["publishers/author-many/2.md"]


# ---- history from git -------------------------------------------------------------------------------------------

GIT_ENV = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "T",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str, date: str = "2026-05-01T12:00:00Z") -> str:
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


def commit_registry(root: Path, specs: list[dict], date: str, message: str) -> None:
    """Write the skills and a registry.json as `skillyard build` does (one compact line a skill), and commit."""
    path = write_registry(root, specs)
    path.write_text(dumps(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message, date=date)


def _spec(name: str, **extra) -> dict:
    return {"name": name, "description": f"The {name} skill.", "body": f"# {name.title()} Kit\n", **extra}


@pytest.fixture(scope="module")
def history_repo(tmp_path_factory):
    """Three commits of a registry: a and b listed; a's SKILL.md changed and c added, b's tags only changed; b
    dropped and a's files unchanged but its version bumped."""
    root = tmp_path_factory.mktemp("history-repo")
    git(root, "init", "-q", "-b", "main")
    commit_registry(root, [_spec("a"), _spec("b", tags=["x"])], "2026-05-01T12:00:00Z", "first")
    commit_registry(root, [_spec("a", body="# A Kit\n\nNew words.\n"), _spec("b", tags=["y"]), _spec("c")],
                    "2026-05-02T12:00:00Z", "second")
    commit_registry(root, [_spec("a", body="# A Kit\n\nNew words.\n", version="1.1.0"), _spec("c")],
                    "2026-05-03T12:00:00Z", "third")
    return root


def test_history_lists_every_listing_with_its_date_commit_and_file_changes(history_repo, tmp_path):
    found = history.read_history(history_repo / "registry.json", tmp_path)
    assert found["available"] and not found["truncated"]
    a = found["skills"]["a"]
    assert [(e["event"], e["listed_at"], e["version"]) for e in a] == [
        ("changed", "2026-05-03T12:00:00Z", "1.1.0"), ("changed", "2026-05-02T12:00:00Z", "1.0.0"),
        ("added", "2026-05-01T12:00:00Z", "1.0.0")]
    assert a[0]["files"]["changed_count"] == 0 and a[1]["files"]["changed"] == ["SKILL.md"]
    assert a[2]["files"]["added"] == ["SKILL.md"]
    assert all(re.fullmatch(r"[0-9a-f]{40}", e["registry_commit"]) for e in a)
    # b's tag change is no new listing; its removal is
    assert [e["event"] for e in found["skills"]["b"]] == ["removed", "added"]
    assert [e["event"] for e in found["skills"]["c"]] == ["added"]
    # cached by HEAD: the same answer without running git log again
    assert json.loads((tmp_path / "history.json").read_text())["history"] == found
    assert history.read_history(history_repo / "registry.json", tmp_path) == found


def test_history_is_bounded(history_repo, monkeypatch):
    monkeypatch.setattr(history, "MAX_ENTRIES", 2)
    monkeypatch.setattr(history, "MAX_COMMITS", 2)
    found = history.read_history(history_repo / "registry.json")
    assert len(found["skills"]["a"]) == 2 and found["truncated"] and "newest 2 changes" in found["note"]
    monkeypatch.setattr(history, "MAX_PATHS", 1)
    changes = history.file_changes({"files": []}, {"files": [{"path": p, "sha256": "0"} for p in "xyz"]})
    assert changes["added"] == ["x"] and changes["added_count"] == 3


def test_no_git_or_a_shallow_clone_gives_a_note_not_a_failure(history_repo, tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "registry.json").write_text("{}")
    found = history.read_history(tmp_path / "plain" / "registry.json")
    assert not found["available"] and found["note"].startswith("History unavailable: ")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{history_repo}", str(shallow)], check=True,
                   env={**os.environ, **GIT_ENV})
    found = history.read_history(shallow / "registry.json")
    assert not found["available"] and "shallow clone" in found["note"]
    untracked = tmp_path / "untracked"
    git(untracked.parent, "init", "-q", str(untracked))
    (untracked / "registry.json").write_text("{}")
    git(untracked, "commit", "-q", "--allow-empty", "-m", "empty")
    found = history.read_history(untracked / "registry.json")
    assert not found["available"] and "no commits" in found["note"]
    assert history.read_history(tmp_path / "plain" / "registry.json", tmp_path / "cache")["skills"] == {}


def test_a_log_that_is_not_one_line_a_skill_is_skipped_not_misread():
    log = ("\x00" + "1" * 40 + " 1767225600\n\ndiff --git a/registry.json b/registry.json\n"
           '+    {\n+      "name": "a",\n-  "skills": [\n+    {"name": broken\n')
    assert history.history_entries(log) == {}


# ---- built sites ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def history_site(history_repo, tmp_path_factory):
    """The git registry built twice from scratch into two folders: (first out, second out)."""
    from skillyard.site.builder import build_site

    outs = []
    for number in (1, 2):
        base = tmp_path_factory.mktemp(f"history-site-{number}")
        build_site(history_repo / "registry.json", history_repo, base / "_site", config=CONFIG,
                   work_dir=base / "work", use_cache=False)
        outs.append(base / "_site")
    return outs


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _section(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    return page[start:page.index("<h2", start + 1)]


def test_the_skill_page_and_its_json_tell_the_history(history_site):
    out = history_site[0]
    page = (out / "skills/a/index.html").read_text(encoding="utf-8")
    section = _section(page, "history")
    rows = re.findall(r'<tr data-event="(\w+)"><td><time datetime="([^"]+)">', section)
    assert rows == [("changed", "2026-05-03T12:00:00Z"), ("changed", "2026-05-02T12:00:00Z"),
                    ("added", "2026-05-01T12:00:00Z")]
    assert "changed 1: SKILL.md" in _text(section) and "same files" in _text(section)
    assert '<h1 class="sy-skill__title">A Kit</h1>' in page  # the SKILL.md's first heading
    doc = json.loads((out / "api/skills/a.json").read_bytes())
    assert doc["title"] == "A Kit" and doc["history"]["available"]
    assert [e["listed_at"] for e in doc["history"]["entries"]] == [r[1] for r in rows]
    assert doc["publisher"] == {"kind": "author", "name": "Ada", "url": None, "page": "publishers/author-ada/"}
    search = json.loads((out / "search.json").read_bytes())
    assert [entry[4] for entry in search_rows(search) if entry[0] == "a"] == ["A Kit"]


def test_two_builds_of_one_registry_and_head_are_byte_identical(history_site):
    first, second = (tree_bytes(out) for out in history_site)
    assert first.keys() == second.keys()
    assert [rel for rel in first if first[rel] != second[rel]] == []
    assert "publishers/author-ada/index.html" in first and "publishers/index.html" in first


def test_the_fixture_site_says_its_history_is_unavailable(built_site):
    _, out, _ = built_site
    page = (out / "skills/pdf-tools/index.html").read_text(encoding="utf-8")
    assert 'data-available="false">History unavailable: the registry is not in a git repository' in page
    doc = json.loads((out / "api/skills/pdf-tools.json").read_bytes())
    assert doc["history"] == {"available": False, "entries": [], "truncated": False,
                              "note": "History unavailable: the registry is not in a git repository with commits."}


def test_publisher_pages_list_their_skills_and_every_skill_links_to_its_own(built_site):
    _, out, _ = built_site
    index = (out / "publishers/index.html").read_text(encoding="utf-8")
    table = publishers.slugs([{"name": s["name"], "author": s.get("author", "Ada")} for s in SKILLS])
    for (_, name), slug in table.items():
        assert f'href="../publishers/{slug}/"' in index
        page = (out / "publishers" / slug / "index.html").read_text(encoding="utf-8")
        for spec in SKILLS:
            if spec.get("author", "Ada") == name:
                assert f'href="../../skills/{spec["name"]}/"' in page
                skill = (out / "skills" / spec["name"] / "index.html").read_text(encoding="utf-8")
                assert f'class="sy-publisher-link" href="../../publishers/{slug}/"' in skill
                assert f'<a href="../../publishers/{slug}/">' in _section(skill, "about")
    evil = (out / "publishers" / table[("author", SKILLS[4]["author"])] / "index.html").read_text(encoding="utf-8")
    assert "<b onmouseover" not in evil and "&lt;b onmouseover" in evil
    ada = (out / "publishers/author-ada/index.html").read_text(encoding="utf-8")
    assert '<span class="sy-badge sy-badge--own">own</span>' in ada and "sy-badge--scripts" in ada
    assert "<title>Ada · publisher - " in ada
    sitemap = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert "publishers/author-ada/</loc>" in sitemap and "publishers/</loc>" in sitemap
    assert '<a href="publishers/"' in (out / "index.html").read_text(encoding="utf-8") or \
        "publishers/" in (out / "index.html").read_text(encoding="utf-8")  # in the nav


def test_pointer_pages_word_verification_as_facts_and_link_the_repository(pointer_site):
    _, out = pointer_site
    alpha = (out / "skills/alpha/index.html").read_text(encoding="utf-8")
    assert '<h1 class="sy-skill__title">Alpha upstream</h1>' in alpha  # the fetched SKILL.md's heading
    assert "Not verified" not in alpha and "Last verified" not in alpha
    top = alpha[:alpha.index('id="install"')]
    assert re.search(r"Pinned at commit <code>[0-9a-f]{12}</code> and hash-checked; not yet reviewed by a "
                     r"maintainer of this registry\.", top)
    assert 'From <a class="sy-publisher-link" href="../../publishers/up-skills/">up/skills</a>' in top
    up = (out / "publishers/up-skills/index.html").read_text(encoding="utf-8")
    assert 'href="../../skills/alpha/"' in up and 'href="../../skills/gamma/"' in up
    assert 'href="../../skills/beta/"' not in up and "Upstream repository" in up
    assert "sy-badge--pointer" in up
    assert (out / "publishers/gpl-tools/index.html").is_file()


def test_a_reviewed_pin_is_shown_under_the_title_with_its_date_and_reviewer():
    from skillyard.site import pages, story

    skill = {"name": "x", "description": "X.", "version": "0.0.20260101000000", "path": "skills/x",
             "commit": "a" * 40, "updated_at": "2026-01-01T00:00:00Z", "files": [], "integrity": "sha256-0",
             "inventory": {}, "license": "MIT", "source_url": "https://github.com/o/r", "verified": True,
             "verification": {"approved_by": "ada", "approved_at": "2026-02-03T04:05:06Z",
                              "approved_in": "https://github.com/o/reg/pull/7"},
             "source": {"repository": "o/r", "tracks": "main"}}
    told = story.story(skill, "X Kit", publishers.slugs([skill]), history.unavailable("none read"))
    page = pages.render_skill({"repository": {}}, {**skill, "story": told}, "")
    top = page[:page.index('id="install"')]
    assert '<h1 class="sy-skill__title">X Kit</h1>' in top
    assert re.search(r'<p class="sy-reviewed" data-reviewed="true"><strong>Reviewed</strong> by a maintainer of this '
                     r'registry \(ada\) on <time datetime="2026-02-03T04:05:06Z">2026-02-03</time>: this exact pin, '
                     r'commit <code>a{12}</code>, in <a href="https://github.com/o/reg/pull/7"', top)
    assert "not yet reviewed" not in page and "Not verified" not in page
    assert 'href="../../publishers/o-r/">o/r</a>' in top
    # the version a person reads: commit and date, the machine version kept for clients
    assert 'data-machine-version="0.0.20260101000000">commit <code>aaaaaaaaaaaa</code> of' in page
