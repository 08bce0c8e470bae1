"""Building the site from a fixture registry: pages, escaping, machine files, determinism, atomic output."""

from __future__ import annotations

import hashlib
import html.parser
import json
import shutil
import urllib.request
from pathlib import Path

import pytest
from tests.site.wellknown import archive_files, runnable_files, served_archives

from conftest import CONFIG, SKILLS, write_registry
from skillyard.cli.main import skillyard_main
from skillyard.errors import SkillyardError
from skillyard.format.schemas import schema_errors
from skillyard.site.builder import build_site


class Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append(dict(attrs).get("src") or "")

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data

    def handle_endtag(self, tag):
        self._in_script = False


def parse(path: Path) -> Tags:
    tags = Tags()
    tags.feed(path.read_text(encoding="utf-8"))
    return tags


def test_outputs_are_all_there(built_site):
    _, out, result = built_site
    for rel in ["index.html", "tags/index.html", "tags/pdf/index.html", "publish/index.html",
                "registry-json/index.html", "format/index.html", "search.json", "registry.json", "index.json",
                ".well-known/agent-skills/index.json", ".nojekyll", "sitemap.xml", "assets/search.js"]:
        assert (out / rel).is_file(), rel
    for spec in SKILLS:
        assert (out / "skills" / spec["name"] / "index.html").is_file()
    assert result.skills == len(SKILLS)
    assert result.warnings == []
    # Material's own search index is not built: our search.json replaces it.
    assert not (out / "search" / "search_index.json").exists()


def test_navigation_lists_only_the_hand_written_pages(built_site):
    _, out, _ = built_site
    for page in ["index.html", "skills/pdf-tools/index.html", "tags/pdf/index.html"]:
        links = [a.get("href", "") for tag, a in parse(out / page).tags
                 if tag == "a" and "md-nav__link" in a.get("class", "")]
        assert 4 <= len(links) <= 13, (page, links)  # the hand-written pages and the indexes, never one per skill
        assert not any("skills/" in href for href in links)


def test_skill_page_shows_metadata_install_inputs_mcp_and_files(built_site):
    _, out, _ = built_site
    text = (out / "skills/pdf-tools/index.html").read_text(encoding="utf-8")
    assert "<h1 class=\"sy-skill__title\">PDF Tools</h1>" in text
    assert "<code>skill install pdf-tools</code>" in text
    assert "skill install pdf-tools --target claude-code" in text
    assert "<code>skill install pdf-tools@1.0.0</code>" in text
    assert ("<tr><td><code>pages</code></td><td>string</td><td><code>all</code></td><td>no</td>"
            "<td>Page range such as 1-3.</td></tr>") in text
    assert "<tr><td><code>dpi</code></td><td>number</td><td><span class=\"sy-muted\">none</span></td><td>yes</td>" in text
    assert "<tr><td><code>filesystem.read_file</code></td><td>yes</td><td>Read the input PDF.</td></tr>" in text
    raw = "https://raw.githubusercontent.com/example/registry/0123456789abcdef0123456789abcdef01234567/skills/pdf-tools/scripts/extract.py"
    assert f'href="{raw}"' in text
    assert "extract.py</a> <span class=\"sy-muted\">17 B</span>" in text
    assert '<time datetime="2026-03-01T10:00:00Z">2026-03-01</time>' in text
    assert '<a class="sy-tag" href="../../tags/pdf/">pdf</a>' in text
    assert "<table>" in text and "print(&#x27;hi&#x27;)" in text or "print('hi')" in text  # body rendered


def test_untrusted_values_are_escaped_everywhere(built_site):
    _, out, _ = built_site
    pages = [out / "skills/evil-skill/index.html", out / "tags/security-test/index.html", out / "index.html"]
    # The only scripts are the theme's and ours: the evil page has exactly the benign page's scripts.
    benign = parse(out / "skills/pdf-tools/index.html")
    assert parse(pages[0]).scripts == benign.scripts
    active = {"iframe", "form", "object", "embed", "input", "button", "base", "meta", "link"}
    assert [t for t, _ in parse(pages[0]).tags if t in active] == [t for t, _ in benign.tags if t in active]
    for page in pages:
        doc = parse(page)
        for tag, attrs in doc.tags:
            assert not any(name.startswith("on") for name in attrs), (page, tag, attrs)
            for name in ("href", "src"):
                assert not attrs.get(name, "").strip().lower().startswith(("javascript:", "data:")), (page, attrs)
            assert tag not in {"iframe", "object", "embed"}
        # A skill's description is the text of its page's meta description and og:description, inert there.
        text_meta = [a for t, a in doc.tags if t == "meta" and set(a) == {"content", "name" if "name" in a else "property"}
                     and (a.get("name") == "description" or a.get("property", "").startswith("og:"))]
        assert "__xss" not in "".join(str(a) for _, a in doc.tags if a not in text_meta) + "".join(doc.scripts)
    evil = (out / "skills/evil-skill/index.html").read_text(encoding="utf-8")
    assert "Harmless text &lt;script&gt;window.__xss=6&lt;/script&gt;" in evil
    assert "&lt;b onmouseover=" in evil
    assert "<title>Evil &lt;script&gt;window.__xss=5&lt;/script&gt; skill - Skillyard</title>" in evil
    assert "Homepage" not in evil  # a javascript: homepage is not linked at all
    assert '<a href="https://example.com/page" rel="nofollow noopener">the homepage</a>' in evil
    assert '<a href="../../.well-known/agent-skills/evil-skill/references/guide.md" rel="nofollow noopener">' in evil


def test_search_data_is_small_and_complete(built_site):
    _, out, result = built_site
    data = json.loads((out / "search.json").read_text(encoding="utf-8"))
    assert data["names"].split("\n") == sorted(spec["name"] for spec in SKILLS)
    assert result.search_bytes == (out / "search.json").stat().st_size
    assert result.search_bytes / len(SKILLS) <= 300


def test_index_json_and_registry_json_are_published(built_site):
    root, out, _ = built_site
    assert (out / "registry.json").read_bytes() == (root / "registry.json").read_bytes()
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert schema_errors("index", index) == []
    assert set(index["skills"]) == {spec["name"] for spec in SKILLS}


def test_the_sparse_index_is_published_beside_registry_json(built_site):
    from skillyard.format.sparse import sparse_files

    root, out, _ = built_site
    registry = json.loads((root / "registry.json").read_text(encoding="utf-8"))
    expected = sparse_files(registry)
    published = {str(p.relative_to(out / "sparse")): p.read_bytes() for p in (out / "sparse").rglob("*") if p.is_file()}
    assert published == expected and len(expected) == 257 + len(SKILLS)


def test_well_known_index_lists_every_skill_as_an_archive_of_its_registry_files(built_site, site_server):
    """Schema 0.2.0: every skill is one `.tar.gz` holding exactly its registry files (their sha256), active content
    included (an archive is never run by a browser); only the inert skills' files are also served one by one (the
    pages link them), and nothing a browser could run is ever served under /.well-known/."""
    root, out, result = built_site
    registry = json.loads((root / "registry.json").read_text(encoding="utf-8"))
    expected = {s["name"]: {f["path"]: f["sha256"] for f in s["files"]} for s in registry["skills"]}
    well_known = out / ".well-known/agent-skills"
    assert not (well_known / "active-content").exists()
    assert [note.split("'")[1] for note in result.notes] == ["active-content"]
    assert "only as active-content.tar.gz" in result.notes[0]  # served, as an archive, and the note says so
    assert "`assets/doc.xhtml` has the suffix `.xhtml`" in result.notes[0]
    assert runnable_files(well_known) == []
    with urllib.request.urlopen(f"{site_server}/.well-known/agent-skills/index.json") as response:
        assert response.status == 200
        assert json.load(response) == json.loads((well_known / "index.json").read_text(encoding="utf-8"))
    archives = served_archives(well_known)
    assert sorted(archives) == sorted(expected)
    for name, files in archives.items():
        assert {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()} == expected[name], name
        with urllib.request.urlopen(f"{site_server}/.well-known/agent-skills/{name}.tar.gz") as response:
            assert files == archive_files(response.read())
        if name == "active-content":
            continue
        for rel, data in files.items():
            with urllib.request.urlopen(f"{site_server}/.well-known/agent-skills/{name}/{rel}") as response:
                assert response.read() == data
    assert {"assets/page.html", "assets/logo.svg"} <= set(archives["active-content"])


def test_builds_are_byte_identical(built_site, tmp_path):
    root, out, _ = built_site
    again = tmp_path / "again"
    build_site(root / "registry.json", root, again, config=CONFIG, work_dir=tmp_path / "work")
    first = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert sorted(first) == sorted(second)
    different = [str(rel) for rel in first if first[rel] != second[rel]]
    assert different == []  # sitemap.xml(.gz) included: its date comes from SOURCE_DATE_EPOCH
    assert len([rel for rel in first if rel.name.endswith(".tar.gz")]) == len(SKILLS)  # the archives too
    assert "<lastmod>2026-04-02</lastmod>" in (out / "sitemap.xml").read_text(encoding="utf-8")


def test_a_cached_rebuild_gives_the_same_bytes_and_rerenders_only_changes(tmp_path):
    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS)
    first = build_site(registry, root, tmp_path / "one", config=CONFIG, work_dir=tmp_path / "work")
    assert first.cached_pages == 0
    second = build_site(registry, root, tmp_path / "two", config=CONFIG, work_dir=tmp_path / "work")
    assert second.cached_pages == len(SKILLS)
    for path in (tmp_path / "one").rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (tmp_path / "two" / path.relative_to(tmp_path / "one")).read_bytes(), path
    changed = [dict(spec, description="A new description.") if spec["name"] == "pdf-tools" else spec for spec in SKILLS]
    registry = write_registry(root, changed)
    third = build_site(registry, root, tmp_path / "three", config=CONFIG, work_dir=tmp_path / "work")
    assert third.cached_pages == len(SKILLS) - 1
    assert "A new description." in (tmp_path / "three/skills/pdf-tools/index.html").read_text(encoding="utf-8")
    assert len(list((tmp_path / "work/cache/pages").glob("*.md"))) == len(SKILLS)  # stale entries pruned


def test_a_cached_rebuild_packs_a_changed_skill_again_and_its_digest_follows(tmp_path):
    """The archives' digests are remembered between builds by what decides their bytes: a changed file makes a new
    archive whose digest the index lists; an unchanged skill keeps its bytes."""
    root = tmp_path / "repo"
    specs = [s for s in SKILLS if s["name"] in ("evil-skill", "active-content")]
    write_registry(root, specs)
    build_site(root / "registry.json", root, tmp_path / "one", config=CONFIG, work_dir=tmp_path / "work")
    before = served_archives(tmp_path / "one/.well-known/agent-skills")
    changed = [dict(s, files={**s["files"], "assets/page.html": "<p>new</p>\n"}) if s["name"] == "active-content"
               else s for s in specs]
    write_registry(root, changed)
    build_site(root / "registry.json", root, tmp_path / "two", config=CONFIG, work_dir=tmp_path / "work")
    after = served_archives(tmp_path / "two/.well-known/agent-skills")
    assert after["active-content"]["assets/page.html"] == b"<p>new</p>\n"
    assert after["evil-skill"] == before["evil-skill"]
    assert (tmp_path / "one/.well-known/agent-skills/evil-skill.tar.gz").read_bytes() == \
        (tmp_path / "two/.well-known/agent-skills/evil-skill.tar.gz").read_bytes()


def test_a_first_build_reads_each_served_file_once_and_writes_what_it_checked(tmp_path, monkeypatch):
    """The bytes checked against registry.json when a skill is staged are the ones written (served copies and
    archive, packed once): no served file is read again. With no room to keep them (`HELD_BYTES` 0) every file is
    read again when written, and the site is the same bytes."""
    from collections import Counter

    from skillyard.site import machine, publish

    root = tmp_path / "repo"
    write_registry(root, SKILLS)
    reads: Counter = Counter()
    real_read = publish.read_regular

    def counted(folder, rel, limit):
        reads[f"{Path(folder).name}/{rel}"] += 1
        return real_read(folder, rel, limit)

    monkeypatch.setattr(publish, "read_regular", counted)
    build_site(root / "registry.json", root, tmp_path / "held", config=CONFIG, work_dir=tmp_path / "w1")
    served = {p.relative_to(tmp_path / "held/.well-known/agent-skills").as_posix()
              for p in (tmp_path / "held/.well-known/agent-skills").rglob("*") if p.is_file()}
    served_files = [rel for rel in reads if rel in served]
    assert len(served_files) >= 5
    assert {rel: reads[rel] for rel in served_files if reads[rel] > (2 if rel.endswith("/SKILL.md") else 1)} == {}
    reads.clear()
    monkeypatch.setattr(machine, "HELD_BYTES", 0)
    build_site(root / "registry.json", root, tmp_path / "read", config=CONFIG, work_dir=tmp_path / "w2")
    assert all(reads[rel] >= 2 for rel in served_files if not rel.endswith("/SKILL.md"))
    first = {p.relative_to(tmp_path / "held"): p.read_bytes() for p in (tmp_path / "held").rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "read"): p.read_bytes() for p in (tmp_path / "read").rglob("*") if p.is_file()}
    assert first == second


def test_archives_compressed_beside_the_stage_are_the_packed_bytes_and_no_thread_outlives_a_failure(tmp_path):
    """Each archive's tar is compressed in a thread while the next skill is read: the bytes are `pack`'s; a stage
    that stops (a file no longer matching registry.json) leaves no such thread behind."""
    import threading

    from skillyard.format import skill_archive

    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS)
    build_site(registry, root, tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work", use_cache=False)
    entries = json.loads(registry.read_text(encoding="utf-8"))["skills"]
    well_known = tmp_path / "out/.well-known/agent-skills"
    for entry in entries:
        archive = well_known / f"{entry['name']}.tar.gz"
        if archive.is_file():
            files = archive_files(archive.read_bytes())
            executable = {f["path"]: bool(f.get("executable")) for f in entry["files"]}
            repacked = skill_archive.pack({rel: (data, executable[rel]) for rel, data in files.items()},
                                          _member_mtime(archive.read_bytes()))
            assert archive.read_bytes() == repacked
    last = entries[-1]
    (root / last["path"] / "SKILL.md").write_text("changed after the build\n", encoding="utf-8")
    with pytest.raises(SkillyardError, match="sha256"):
        build_site(registry, root, tmp_path / "again", config=CONFIG, work_dir=tmp_path / "work2", use_cache=False)
    assert [t.name for t in threading.enumerate() if t.name.startswith("site-archives")] == []


def _member_mtime(data: bytes) -> int:
    import gzip
    import io
    import tarfile

    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data))) as tar:
        return tar.getmembers()[0].mtime


def test_our_templates_compiled_code_is_kept_for_the_next_build(tmp_path):
    """A cached build keeps the compiled code of the page templates beside mkdocs' (a one-skill rebuild then compiles
    nothing); the environment forgets the folder when the build ends, and the pages are the same bytes."""
    from skillyard.site import pages

    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS)
    pages.environment().cache.clear()  # templates loaded by earlier tests would not be compiled again
    build_site(registry, root, tmp_path / "one", config=CONFIG, work_dir=tmp_path / "work")
    assert pages.environment().bytecode_cache is None
    kept = {p.parent.name for p in (tmp_path / "work/cache/templates").glob("*/*.cache")}
    assert len(kept) == 2  # mkdocs' environment and ours, apart
    pages.environment().cache.clear()
    build_site(registry, root, tmp_path / "two", config=CONFIG, work_dir=tmp_path / "work")
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert all((tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes() for rel in files)


def test_a_failed_build_keeps_the_previous_site(tmp_path):
    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS[:2])
    out = tmp_path / "out"
    build_site(registry, root, out, config=CONFIG, work_dir=tmp_path / "work")
    before = (out / "index.html").read_bytes()
    (root / "skills/pdf-tools/scripts/extract.py").write_text("print('changed')\n", encoding="utf-8")
    with pytest.raises(SkillyardError) as caught:
        build_site(registry, root, out, config=CONFIG, work_dir=tmp_path / "work")
    assert "extract.py" in caught.value.message and "sha256" in caught.value.message
    assert "skillyard build" in caught.value.fix
    assert (out / "index.html").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "repo", "work"]  # no staging left behind


def test_cli_build_json_summary(tmp_path, capsys):
    root = tmp_path / "repo"
    write_registry(root, SKILLS[:1])
    code = skillyard_main(["site", "build", "--root", str(root), "--config", str(CONFIG), "--json",
                           "--out", str(tmp_path / "public"), "--work-dir", str(tmp_path / "work")])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] is True and summary["skills"] == 1 and summary["out"] == str(tmp_path / "public")
    assert (tmp_path / "public/skills/pdf-tools/index.html").is_file()


@pytest.mark.parametrize(("content", "expected"), [
    ("{not json", "not valid JSON"),
    ('{"schema_version": "1.0"}', "registry.schema.json"),
])
def test_cli_rejects_a_bad_registry(tmp_path, capsys, content, expected):
    (tmp_path / "registry.json").write_text(content, encoding="utf-8")
    code = skillyard_main(["site", "build", "--root", str(tmp_path), "--config", str(CONFIG)])
    err = capsys.readouterr().err
    assert code == 1
    assert str(tmp_path / "registry.json") in err and expected in err and "fix:" in err
    assert not (tmp_path / "_site").exists()


def test_cli_missing_registry(tmp_path, capsys):
    assert skillyard_main(["site", "build", "--root", str(tmp_path), "--config", str(CONFIG)]) == 1
    assert "registry.json: not found" in capsys.readouterr().err


def test_unsafe_skill_path_is_refused(tmp_path):
    root = tmp_path / "repo"
    registry_path = write_registry(root, SKILLS[:1])
    registry = json.loads(registry_path.read_text(encoding="utf-8"))
    registry["skills"][0]["path"] = "../outside"
    registry_path.write_text(json.dumps(registry), encoding="utf-8")
    shutil.copytree(root / "skills/pdf-tools", tmp_path / "outside")
    with pytest.raises(SkillyardError, match="outside the root"):
        build_site(registry_path, root, tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")


def test_serve_serves_the_built_site_on_loopback(built_site):
    import threading

    from skillyard.site.serve import make_server

    _, out, _ = built_site
    server = make_server(out, 0)
    assert server.server_address[0] == "127.0.0.1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with urllib.request.urlopen(base + "/skills/pdf-tools/") as response:
            assert b"skill install pdf-tools" in response.read()
        with urllib.request.urlopen(base + "/search.json") as response:
            assert response.headers["Content-Type"].startswith("application/json")
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("where", ["root", "parent", "skills", "work", "foreign"])
def test_out_folders_that_would_destroy_sources_are_refused(tmp_path, where):
    root = tmp_path / "repo"
    registry = write_registry(root, SKILLS[:1])
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "notes.txt").write_text("mine", encoding="utf-8")
    out = {"root": root, "parent": tmp_path, "skills": root / "skills", "work": tmp_path / "work" / "x",
           "foreign": tmp_path / "foreign"}[where]
    with pytest.raises(SkillyardError) as caught:
        build_site(registry, root, out, config=CONFIG, work_dir=tmp_path / "work")
    assert "--out" in caught.value.message
    assert (root / "skills/pdf-tools/SKILL.md").is_file()
    assert (tmp_path / "foreign" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_index_json_next_to_the_registry_is_published_or_refused_when_stale(tmp_path):
    from skillyard.registry.compile import dumps, index_document

    root = tmp_path / "repo"
    registry_path = write_registry(root, SKILLS[:2])
    registry = json.loads(registry_path.read_text(encoding="utf-8"))
    written = json.dumps(index_document(registry), sort_keys=True).encode()  # a different layout than ours
    (root / "index.json").write_bytes(written)
    build_site(registry_path, root, tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    assert (tmp_path / "out/index.json").read_bytes() == written
    assert written != dumps(index_document(registry)).encode()

    stale = index_document(registry)
    stale["skills"]["pdf-tools"]["version"] = "0.9.0"
    (root / "index.json").write_text(json.dumps(stale), encoding="utf-8")
    with pytest.raises(SkillyardError, match="does not match registry.json"):
        build_site(registry_path, root, tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")


def test_well_known_copies_are_rendered_with_defaults_and_listed_as_served(tmp_path):
    """Other clients have no inputs: the served SKILL.md carries each default; a placeholder without one stays;
    other files stay as written, as `skill install` leaves them (a script's `${{ inputs.pages }}` is not ours); the
    index lists exactly the files served; the repository's own files are untouched."""
    spec = {"name": "paged", "description": "Reads pages. Use for paging.",
            "body": "Read pages {{inputs.pages}} at {{ inputs.dpi }} dpi, zoom {{inputs.zoom}}.\n",
            "files": {"references/notes.md": "Default range: {{inputs.pages}}\n",
                      "references/ci.yml.txt": "run: echo ${{ inputs.pages }}\n"},
            "inputs": [{"name": "pages", "type": "string", "required": False, "default": "1-3"},
                       {"name": "zoom", "type": "number", "required": False, "default": 2},
                       {"name": "dpi", "type": "number", "required": True}]}
    root = tmp_path / "root"
    write_registry(root, [spec])
    source = (root / "skills/paged/SKILL.md").read_bytes()
    build_site(root / "registry.json", root, root / "_site", config=CONFIG, work_dir=tmp_path / "work")
    served = root / "_site/.well-known/agent-skills/paged"
    assert served.joinpath("SKILL.md").read_text(encoding="utf-8").endswith(
        "Read pages 1-3 at {{ inputs.dpi }} dpi, zoom 2.\n")
    assert served.joinpath("references/notes.md").read_text(encoding="utf-8") == "Default range: {{inputs.pages}}\n"
    assert served.joinpath("references/ci.yml.txt").read_text(encoding="utf-8") == "run: echo ${{ inputs.pages }}\n"
    assert (root / "skills/paged/SKILL.md").read_bytes() == source
    archived = served_archives(root / "_site/.well-known/agent-skills")["paged"]
    assert archived == {str(p.relative_to(served)): p.read_bytes() for p in served.rglob("*") if p.is_file()}


def test_a_default_that_would_amplify_keeps_the_skill_off_the_well_known_tree(tmp_path):
    """Repeated placeholders times a long default are bounded: the skill is left out with a note, nothing huge is
    written, and the other skills are still served."""
    from skillyard.format.inputs import MAX_RENDERED

    bomb = {"name": "bomb", "description": "Amplifies. Use never.", "body": "{{inputs.x}}" * 2000,
            "inputs": [{"name": "x", "type": "string", "required": False, "default": "y" * 4096}]}
    fine = {"name": "fine", "description": "Is fine. Use always.", "body": "ok\n"}
    root = tmp_path / "root"
    write_registry(root, [bomb, fine])
    result = build_site(root / "registry.json", root, root / "_site", config=CONFIG, work_dir=tmp_path / "work")
    well_known = root / "_site/.well-known/agent-skills"
    assert not (well_known / "bomb").exists() and (well_known / "fine/SKILL.md").is_file()
    assert not (well_known / "bomb.tar.gz").exists()
    assert any("'bomb'" in note and f"{MAX_RENDERED:,}" in note for note in result.notes)
    assert list(served_archives(well_known)) == ["fine"]
