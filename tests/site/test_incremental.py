"""A rebuild that reuses the build before (checked sources, cached pages, the output trees) writes the same bytes as a build
from scratch, whatever changed in between: a body, a skill added or removed, the previous output or the work
folder tampered with, the theme config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import CONFIG, SKILLS, write_registry
from skillyard.errors import SkillyardError
from skillyard.site import publish, staged
from skillyard.site.builder import build_site, render_skill_pages
from skillyard.site.page_cache import PageCache


@pytest.fixture(autouse=True)
def trust_fresh_files(monkeypatch):
    """The fixture's files are seconds old: without this the racy rule would never let a rebuild reuse them."""
    monkeypatch.setattr(staged, "RACY_NS", 0)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def assert_same_as_scratch(tmp_path: Path, registry: Path, root: Path, out: Path, config: Path = CONFIG) -> None:
    scratch = tmp_path / f"scratch-{len(list(tmp_path.glob('scratch-*')))}"
    build_site(registry, root, scratch, config=config, work_dir=tmp_path / f"{scratch.name}-work", use_cache=False)
    expected, got = tree(scratch), tree(out)
    assert sorted(got) == sorted(expected)
    assert [rel for rel in expected if expected[rel] != got[rel]] == []


@pytest.fixture
def built(tmp_path):
    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS)
    out, work = tmp_path / "out", tmp_path / "work"
    build_site(registry, root, out, config=CONFIG, work_dir=work)
    return root, registry, out, work


def rebuild(built, config: Path = CONFIG):
    root, registry, out, work = built
    return build_site(registry, root, out, config=config, work_dir=work)


def served_identity(out: Path, name: str, rel: str) -> tuple[int, int, int]:
    """A served file's inode and times: a rewrite may get the freed inode number back, never the same times."""
    info = (out / ".well-known/agent-skills" / name / rel).stat()
    return info.st_ino, info.st_mtime_ns, info.st_ctime_ns


def inactive_tree(out: Path, work: Path) -> Path:
    """The spare copy of the site in the work folder (site/real_out.py): the one the next build brings up to date
    and exchanges with `out`."""
    from skillyard.site import output

    return output._tree_home(work, out) / "spare"


@pytest.fixture
def reads(monkeypatch):
    """(skill folder name, file) of every served file read from the sources, SKILL.md left out (the page reads it)."""
    seen: list[tuple[str, str]] = []
    real = publish.read_regular

    def counting(folder, rel, limit):
        if rel != "SKILL.md":
            seen.append((Path(folder).name, rel))
        return real(folder, rel, limit)

    monkeypatch.setattr(publish, "read_regular", counting)
    return seen


def test_an_unchanged_skill_is_neither_read_nor_written_again(built, tmp_path, reads):
    root, registry, out, work = built
    first = served_identity(out, "pdf-tools", "scripts/extract.py")  # tree a
    rebuild(built)  # tree b, written from nothing: its files are read once more
    reads.clear()
    rebuild(built)  # tree a again: the copy there is proven unchanged, and so are its sources
    assert served_identity(out, "pdf-tools", "scripts/extract.py") == first
    assert [read for read in reads if read[0] == "pdf-tools"] == []
    assert_same_as_scratch(tmp_path, registry, root, out)


def test_one_body_changed(built, tmp_path, reads):
    root, registry, out, work = built
    first = {rel: served_identity(out, "pdf-tools", rel) for rel in ("SKILL.md", "scripts/extract.py")}
    rebuild((root, registry, out, work))
    changed = [dict(spec, body=spec["body"] + "\nA new line.\n") if spec["name"] == "pdf-tools" else spec
               for spec in SKILLS]
    registry = write_registry(root, changed)
    reads.clear()
    rebuild((root, registry, out, work))  # tree a again: only the changed file is written
    assert served_identity(out, "pdf-tools", "SKILL.md") != first["SKILL.md"]
    assert served_identity(out, "pdf-tools", "scripts/extract.py") == first["scripts/extract.py"]
    assert ("pdf-tools", "scripts/extract.py") in reads  # a changed entry has all its sources checked again
    assert b"A new line." in (out / ".well-known/agent-skills/pdf-tools/SKILL.md").read_bytes()
    assert_same_as_scratch(tmp_path, registry, root, out)


@pytest.fixture
def cache_reads(monkeypatch):
    """The keys of every skill page read from the page cache (tag pages left out)."""
    seen: list[str] = []
    real = PageCache.get

    def counting(self, key):
        if self.folder is not None and self.folder.name == "pages":
            seen.append(key)
        return real(self, key)

    monkeypatch.setattr(PageCache, "get", counting)
    return seen


def test_a_rebuild_reads_only_the_cached_pages_it_writes(built, tmp_path, cache_reads):
    root, registry, out, work = built
    rebuild(built)  # both output trees hold every page
    cache_reads.clear()
    rebuild(built)
    assert len(cache_reads) == 1  # the page mkdocs renders the shell from; no page is stamped again
    changed = [dict(spec, body=spec["body"] + "\nA new line.\n") if spec["name"] == "pdf-tools" else spec
               for spec in SKILLS]
    registry = write_registry(root, changed)
    for _ in range(2):  # each tree gets the changed page once, rendered the first time and cached the second
        cache_reads.clear()
        rebuild((root, registry, out, work))
        assert len(cache_reads) <= 2
    assert_same_as_scratch(tmp_path, registry, root, out)


@pytest.mark.parametrize("damage", ["deleted", "undecodable"])
def test_a_cached_page_lost_before_it_is_stamped_is_rendered_again(built, tmp_path, monkeypatch, damage):
    from skillyard.site import shell

    root, registry, out, work = built
    rebuild(built)
    shutil.rmtree(out)  # every page must be stamped again: neither the site nor its spare copy is left
    shutil.rmtree(inactive_tree(out, work))
    real = shell.stamp_pages

    def damaging(*args, **kwargs):
        for entry in (work / "cache" / "pages").glob("*.md"):
            if damage == "deleted":
                entry.unlink()
            else:
                entry.write_bytes(b"\xff\xfe broken")
        return real(*args, **kwargs)

    monkeypatch.setattr(shell, "stamp_pages", damaging)
    rebuild(built)
    assert_same_as_scratch(tmp_path, registry, root, out)


def test_a_skill_added_and_one_removed(built, tmp_path):
    root, _, out, work = built
    registry = write_registry(root, SKILLS[1:])
    rebuild((root, registry, out, work))
    assert not (out / ".well-known/agent-skills" / SKILLS[0]["name"]).exists()
    assert_same_as_scratch(tmp_path, registry, root, out)
    registry = write_registry(root, SKILLS)
    rebuild((root, registry, out, work))
    assert_same_as_scratch(tmp_path, registry, root, out)


def test_the_previous_output_edited_or_replaced(built, tmp_path):
    root, registry, out, _ = built
    served = out / ".well-known/agent-skills/pdf-tools"
    with (served / "SKILL.md").open("ab") as handle:  # in place: the staged copy shares this file
        handle.write(b"\nedited in the output\n")
    (served / "scripts/extract.py").unlink()
    (served / "scripts/extract.py").write_text("replaced\n", encoding="utf-8")
    (out / "index.html").write_text("edited\n", encoding="utf-8")
    rebuild(built)
    assert_same_as_scratch(tmp_path, registry, root, out)


def test_the_work_folder_tampered_with(built, tmp_path):
    root, registry, out, work = built
    rebuild(built)
    served = inactive_tree(out, work) / ".well-known/agent-skills/pdf-tools"
    with (served / "references/guide.md").open("r+b") as handle:  # in place, same size
        handle.write(b"X")
    (served / "extra.html").write_text("<script>1</script>\n", encoding="utf-8")
    (work / "well-known.json").write_text("{not json", encoding="utf-8")
    rebuild(built)
    assert not (out / ".well-known/agent-skills/pdf-tools/extra.html").exists()
    assert_same_as_scratch(tmp_path, registry, root, out)
    forged = {"format": staged.code_fingerprint(), "skills": {"pdf-tools": {"key": "0" * 64, "sources": {}}}}
    (work / "well-known.json").write_text(json.dumps(forged), encoding="utf-8")
    (root / "skills/pdf-tools/references/guide.md").write_text("changed after registry.json\n", encoding="utf-8")
    with pytest.raises(SkillyardError, match="sha256"):  # a forged record proves nothing: the sources are read
        rebuild(built)


def test_the_theme_config_changed(built, tmp_path):
    root, registry, out, _ = built
    config = tmp_path / "cfg" / "mkdocs.yml"
    shutil.copytree(CONFIG.parent / "site", config.parent / "site")
    config.write_text(CONFIG.read_text(encoding="utf-8").replace("primary: teal", "primary: red"), encoding="utf-8")
    rebuild(built, config)
    assert b'data-md-color-primary="red"' in (out / "index.html").read_bytes()
    assert_same_as_scratch(tmp_path, registry, root, out, config)


def test_a_source_changed_after_registry_json_still_stops_the_build(built):
    root, _, out, _ = built
    before = (out / "index.html").read_bytes()
    (root / "skills/pdf-tools/scripts/extract.py").write_text("print('changed')\n", encoding="utf-8")
    with pytest.raises(SkillyardError) as caught:
        rebuild(built)
    assert "extract.py" in caught.value.message and "sha256" in caught.value.message
    assert (out / "index.html").read_bytes() == before


def test_a_file_too_new_to_trust_is_checked_again(tmp_path, monkeypatch, reads):
    monkeypatch.setattr(staged, "RACY_NS", 10**18)  # every file counts as just written
    root = tmp_path / "repo"
    built = (root, write_registry(root, SKILLS), tmp_path / "out", tmp_path / "work")
    rebuild(built)
    assert json.loads((tmp_path / "work/well-known.json").read_text(encoding="utf-8"))["skills"] == {}
    rebuild(built)
    reads.clear()
    rebuild(built)  # tree a again: its copies are kept, but the sources are checked again all the same
    assert ("pdf-tools", "scripts/extract.py") in reads


def test_pages_rendered_on_a_wrong_guess_of_the_served_skills_are_rendered_again(tmp_path):
    registry = json.loads(write_registry(tmp_path / "repo", SKILLS).read_text(encoding="utf-8"))
    registry["skills"] = [dict(skill, name=f"{skill['name']}-{i}") for i in range(210)
                          for skill in registry["skills"]][:210]  # enough for the worker processes
    names = [skill["name"] for skill in registry["skills"]]
    bodies = dict.fromkeys(names, "# Body\n\nRead [the guide](references/guide.md).\n")
    served = set(names[::3])
    cache = PageCache(tmp_path / "pages")
    got, cached = render_skill_pages(registry, bodies, workers=2, cache=cache, served=set(names[::2]),
                                     meanwhile=lambda: served)
    assert cached == 0
    assert got != render_skill_pages(registry, bodies, workers=1, served=set(names[::2]))[0]  # the guess matters
    assert got == render_skill_pages(registry, bodies, workers=1, served=served)[0]
    assert render_skill_pages(registry, bodies, workers=1, cache=cache, served=served) == (got, len(names))


def test_tag_pages_follow_a_changed_description_and_a_damaged_tag_cache(built, tmp_path):
    root, _, out, work = built
    changed = [dict(spec, description="A new description.") if spec["name"] == "pdf-tools" else spec
               for spec in SKILLS]
    registry = write_registry(root, changed)
    rebuild((root, registry, out, work))
    assert "A new description." in (out / "tags/pdf/index.html").read_text(encoding="utf-8")
    assert_same_as_scratch(tmp_path, registry, root, out)
    entries = sorted((work / "cache/tags").glob("*.md"))
    assert len(entries) == len({tag for spec in SKILLS for tag in spec.get("tags", [])})  # stale ones pruned
    for entry in entries:
        entry.write_text('{"tags/elsewhere/index.md": "# damaged\\n"}' if entry == entries[0] else "{not json",
                         encoding="utf-8")
    rebuild((root, registry, out, work))
    assert_same_as_scratch(tmp_path, registry, root, out)


def test_compiled_templates_are_kept_and_a_damaged_one_is_compiled_again(built, tmp_path):
    root, registry, out, work = built
    cached = sorted((work / "cache" / "templates").rglob("*.cache"))
    assert cached  # the theme's templates, compiled by the first build
    for path in cached:
        path.write_bytes(b"garbage")  # jinja2 refuses an entry without its header and compiles the template again
    rebuild(built)
    assert_same_as_scratch(tmp_path, registry, root, out)
    assert all(path.read_bytes() != b"garbage" for path in cached)


def test_environments_set_up_differently_never_share_compiled_templates(tmp_path):
    import jinja2

    from skillyard.site.page_cache import template_cache

    plain, trimmed = jinja2.Environment(), jinja2.Environment(trim_blocks=True)
    assert template_cache(plain, tmp_path).directory != template_cache(trimmed, tmp_path).directory
    assert template_cache(plain, tmp_path).directory == template_cache(jinja2.Environment(), tmp_path).directory
