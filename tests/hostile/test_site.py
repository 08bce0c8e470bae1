"""Hostile skills against the site builder: one skill never breaks the site, and nothing it ships runs as the site.

Each case builds a real site (mkdocs included) from a registry with one hostile skill next to a benign one, and
asserts the safe outcome: the build succeeds, the benign skill is complete, the hostile skill's files are not served
one by one under /.well-known/agent-skills/ (at most inside its `.tar.gz`, which no browser runs, when only its file
types keep it off the origin), and a note names the skill, the file and the reason.
"""

from __future__ import annotations

import hashlib
import html.parser
import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.site.conftest import CONFIG, write_registry
from tests.site.wellknown import runnable_files, served_archives

from skillyard.format.paths import path_problem
from skillyard.site import publish
from skillyard.site.builder import build_site
from skillyard.site.markdown_render import BodyRenderer
from skillyard.site.sanitize import clean_html

BENIGN = {"name": "benign", "description": "A plain skill.", "body": "# Benign\n\nRead [it](references/a.md).\n",
          "files": {"references/a.md": "# A\n", "scripts/run.py": "print(1)\n"}}
HOSTILE = {"name": "hostile", "description": "A skill with a bad file.", "body": "# Hostile\n",
           "files": {"references/ok.md": "# ok\n"}}
WELL_KNOWN = ".well-known/agent-skills"


def npx_skills_accepts(index: dict) -> bool:
    """The entry check `npx skills` 1.7 (vercel-labs/skills, well-known provider) applies to a discovery index of
    schema 0.2.0; an entry that fails it is skipped."""
    if index.get("$schema") != "https://schemas.agentskills.io/discovery/0.2.0/schema.json":
        return False
    for entry in index["skills"]:
        name = entry.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) or len(name) > 64:
            return False
        if not isinstance(entry.get("description"), str) or not 0 < len(entry["description"]) <= 1024:
            return False
        if entry.get("type") != "archive" or entry.get("url") != f"{name}.tar.gz":
            return False
        if not re.fullmatch(r"sha256:[a-f0-9]{64}", str(entry.get("digest"))):
            return False
    return True


def registry_with(root: Path, listed: dict[str, bytes]) -> Path:
    """Registry with BENIGN and HOSTILE, whose files list also names `listed` ({path: bytes}) as the build did."""
    path = write_registry(root, [BENIGN, HOSTILE])
    registry = json.loads(path.read_text(encoding="utf-8"))
    skill = next(s for s in registry["skills"] if s["name"] == "hostile")
    for rel, data in listed.items():
        skill["files"].append({"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    path.write_text(json.dumps(registry), encoding="utf-8")
    return path


def build(tmp_path: Path, registry: Path):
    out = tmp_path / "out"
    result = build_site(registry, tmp_path / "repo", out, config=CONFIG, work_dir=tmp_path / "work", use_cache=False)
    index = json.loads((out / WELL_KNOWN / "index.json").read_text(encoding="utf-8"))
    assert npx_skills_accepts(index)
    archives = served_archives(out / WELL_KNOWN)
    assert sorted(archives) in (["benign"], ["benign", "hostile"])  # an archive holds active content inertly
    assert sorted(archives["benign"]) == ["SKILL.md", "references/a.md", "scripts/run.py"]
    for rel in archives["benign"]:
        assert (out / WELL_KNOWN / "benign" / rel).is_file()
    assert not (out / WELL_KNOWN / "hostile").exists()
    assert runnable_files(out / WELL_KNOWN) == []
    assert (out / "skills/hostile/index.html").is_file() and (out / "skills/benign/index.html").is_file()
    notes = [n for n in result.notes if "'hostile'" in n]
    assert notes and not [n for n in result.notes if "'benign'" in n]
    return out, " ".join(notes)


@pytest.mark.parametrize(("rel", "reason"), [
    ("scripts\\..\\..\\escape.py", "not allowed in file names"),
    ("references/a..b.md", "`..` inside the name"),
    ("/".join(["d"] * 250) + "/deep.md", "levels deep"),
    ("references/con.txt", "device name Windows reserves"),
    ("references/a:b.md", "not allowed in file names"),
    ("references/note\u202egpj.md", "RIGHT-TO-LEFT OVERRIDE"),
    (".git/config", "metadata of a version-control system"),
    ("references/.env", "hidden"),
    ("assets/page.html", "suffix `.html`"),
    ("assets/PAGE.HTM", "suffix `.htm`"),
    ("assets/logo.svg", "suffix `.svg`"),
    ("assets/logo.svgz", "suffix `.svgz`"),
    ("assets/doc.xhtml", "suffix `.xhtml`"),
    ("assets/doc.xht", "suffix `.xht`"),
    ("assets/data.xml", "suffix `.xml`"),
    ("assets/style.xsl", "suffix `.xsl`"),
    ("assets/archive.mhtml", "suffix `.mhtml`"),
    ("assets/form.pdf", "suffix `.pdf`"),
    ("assets/app.js", "suffix `.js`"),
    ("assets/app.mjs", "suffix `.mjs`"),
    ("assets/movie.swf", "suffix `.swf`"),
    ("assets/page.shtml", "suffix `.shtml`"),
    ("assets/thing.unknownext", "suffix `.unknownext`"),
    ("src/main.rs", "suffix `.rs`"),
])
def test_a_file_the_site_must_not_serve_leaves_only_its_skill_out(tmp_path, rel, reason):
    data = b"<script>fetch('/__ran__')</script>"
    registry = registry_with(tmp_path / "repo", {rel: data})
    only_its_type = reason.startswith("suffix") or reason == "hidden"  # a path any client can write: on disk too
    if only_its_type:
        (tmp_path / "repo/skills/hostile" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "repo/skills/hostile" / rel).write_bytes(data)
    out, notes = build(tmp_path, registry)
    assert reason in notes
    served = [p for p in out.rglob("*") if p.is_file() and p.read_bytes() == data]
    assert served == []
    archived = (out / WELL_KNOWN / "hostile.tar.gz").is_file()  # only what a browser may not run as the site
    assert archived == only_its_type, (rel, archived)


@pytest.mark.parametrize("pair", [("references/A.md", "references/a.md"), ("references/x", "references/x/y.md")])
def test_colliding_names_leave_only_their_skill_out(tmp_path, pair):
    out, notes = build(tmp_path, registry_with(tmp_path / "repo", {rel: b"x\n" for rel in pair}))
    assert "letter case" in notes or "also used as a folder" in notes


@pytest.mark.parametrize("how", ["file", "folder", "skill-md"])
def test_a_symlink_in_the_folder_is_never_followed(tmp_path, how):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "key.md").write_bytes(b"TOP SECRET\n")
    root = tmp_path / "repo"
    data = b"TOP SECRET\n"
    registry = registry_with(root, {"references/key.md": data} if how != "skill-md" else {})
    folder = root / "skills/hostile"
    if how == "file":
        (folder / "references/key.md").symlink_to(secret / "key.md")
    elif how == "folder":
        (folder / "references/ok.md").unlink()
        (folder / "references").rmdir()
        (secret / "ok.md").write_bytes(b"# ok\n")
        (folder / "references").symlink_to(secret)
    else:
        text = (folder / "SKILL.md").read_bytes()
        (secret / "SKILL.md").write_bytes(text.replace(b"# Hostile", b"# TOP SECRET"))
        (folder / "SKILL.md").unlink()
        (folder / "SKILL.md").symlink_to(secret / "SKILL.md")
    out, notes = build(tmp_path, registry)
    assert "symlink" in notes
    assert not [p for p in out.rglob("*") if p.is_file() and b"TOP SECRET" in p.read_bytes()]


@pytest.mark.timeout(120)
def test_a_fifo_never_hangs_the_build(tmp_path):
    root = tmp_path / "repo"
    registry = registry_with(root, {"references/pipe.md": b"x\n"})
    os.mkfifo(root / "skills/hostile/references/pipe.md")
    _, notes = build(tmp_path, registry)
    assert "not a regular file" in notes


def test_a_body_the_markdown_parser_chokes_on_is_shown_as_text(tmp_path):
    nested = ">" * 100_000 + "<script>fetch('/__ran__')</script>\n"  # nested deeper than the sanitiser may parse
    registry = write_registry(tmp_path / "repo", [BENIGN, dict(HOSTILE, body=nested, files={})])
    result = build_site(registry, tmp_path / "repo", tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    assert [n for n in result.notes if "'hostile'" in n and "plain text" in n]
    page = (tmp_path / "out/skills/hostile/index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;fetch(" in page and "<script>fetch(" not in page
    assert (tmp_path / "out/skills/benign/index.html").is_file()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("body", ["[" * 200_000, "[a](b" * 40_000, '<a href="' * 22_000, "*a **b " * 30_000,
                                  "<div>" * 40_000 + "<script>fetch('/__ran__')</script>"])
def test_a_body_that_took_python_markdown_hours_renders_in_bounded_time(tmp_path, body):
    """Python-Markdown needed hours for these (and a clock to stop it); cmark-gfm is linear in the text."""
    registry = write_registry(tmp_path / "repo", [BENIGN, dict(HOSTILE, body=body, files={})])
    result = build_site(registry, tmp_path / "repo", tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    assert not [n for n in result.notes if "'hostile'" in n]
    page = (tmp_path / "out/skills/hostile/index.html").read_text(encoding="utf-8")
    assert '<div class="sy-body">' in page and "shown as plain text" not in page and "__ran__" not in page
    assert "Read <a" in (tmp_path / "out/skills/benign/index.html").read_text(encoding="utf-8")


def test_an_unserved_skill_links_its_files_off_the_site_and_shows_no_image_of_them(tmp_path):
    hostile = dict(HOSTILE, body="# H\n\n[page](assets/page.html) ![logo](assets/logo.svg)\n",
                   files={"assets/page.html": "<script></script>", "assets/logo.svg": "<svg/>"})
    registry = write_registry(tmp_path / "repo", [BENIGN, hostile])
    build_site(registry, tmp_path / "repo", tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    page = (tmp_path / "out/skills/hostile/index.html").read_text(encoding="utf-8")
    assert f"{WELL_KNOWN}/hostile" not in page
    raw = "https://raw.githubusercontent.com/example/registry/0123456789abcdef0123456789abcdef01234567/skills/hostile/"
    assert f'<a href="{raw}assets/page.html" rel="nofollow noopener">page</a>' in page
    body = page.split('<div class="sy-body">')[1]
    assert '<img alt="logo">' in body and "assets/logo.svg" not in body  # the image lost its source
    assert 'class="sy-muted sy-unserved"' in page


def test_a_file_changed_after_the_registry_build_stops_the_build(tmp_path):
    from skillyard.errors import SkillyardError

    registry = write_registry(tmp_path / "repo", [BENIGN])
    (tmp_path / "repo/skills/benign/references/a.md").write_bytes(b"# A, now much longer than it was\n")
    with pytest.raises(SkillyardError, match="sha256 differs"):
        build_site(registry, tmp_path / "repo", tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["con", "nul", "com1", "lpt9", "aux"])
def test_a_skill_name_no_client_can_use_as_a_folder_is_not_served(name):
    skill = {"name": name, "description": "d", "files": [{"path": "SKILL.md"}]}
    assert "device name Windows reserves" in " ".join(publish.skill_problems(skill))


@pytest.mark.parametrize("rel", ["SKILL.md", "references/guide.md", "scripts/x.py", "LICENSE", "a/b/c.json",
                                 "assets/logo.png", "notes.html.txt", "data.YAML"])
def test_inert_files_are_served(rel):
    assert publish.file_problem(rel) is None


# --- the skill page's own HTML (markdown -> nh3) ---------------------------------------------------------------

FILES = {"references/guide.md"}
BASE = "../../.well-known/agent-skills/demo/"
ATTACKS = [
    "<svg onload=alert(1)><script>alert(1)</script></svg>",
    "<svg><a xlink:href='javascript:alert(1)'><text>x</text></a></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<a href='javascript:alert(1)'>a</a>",
    "<a href='JaVaScRiPt:alert(1)'>a</a>",
    "<a href='&#106;avascript:alert(1)'>a</a>",
    "<a href='jav&#x09;ascript:alert(1)'>a</a>",
    "<a href='jav&#x0A;ascript:alert(1)'>a</a>",
    "<a href='&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)'>a</a>",
    "<a href='  javascript:alert(1)'>a</a>",
    "<a href='\x01javascript:alert(1)'>a</a>",
    "<a href='vbscript:msgbox(1)'>a</a>",
    "<a href='data:text/html,<script>alert(1)</script>'>a</a>",
    "<a href='data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='>a</a>",
    "<img src='data:image/svg+xml,<svg onload=alert(1)>'>",
    "<img src=x onerror=alert(1)>",
    "<img srcset='javascript:alert(1) 1x'>",
    "<iframe srcdoc='<script>alert(1)</script>'></iframe>",
    "<object data='javascript:alert(1)'></object><embed src='javascript:alert(1)'>",
    "<base href='javascript:alert(1)//'><meta http-equiv=refresh content='0;url=javascript:alert(1)'>",
    "<link rel=import href=x><style>*{background:url(javascript:alert(1))}</style>",
    "<form action='javascript:alert(1)'><button formaction='javascript:alert(1)'>b</button></form>",
    "<p style='background:url(javascript:alert(1))'>s</p>",
    "<details open ontoggle=alert(1)>d</details>",
    "[x](javascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "[x](JAVASCRIPT&#58;alert(1))",
    "<javascript:alert(1)>",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "[x](../../../../index.html)",
    "[x](//evil.example/x)",
    "<a href='references/guide.md/../../../../x.html'>a</a>",
]
SAFE_URL = re.compile(r"^(#|https?://|mailto:|" + re.escape(BASE) + r")", re.I)
ACTIVE_TAGS = {"script", "style", "svg", "math", "iframe", "object", "embed", "base", "meta", "link", "form",
               "button", "input", "template", "frame", "frameset", "noscript"}


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def assert_inert(fragment: str) -> None:
    parser = _Tags()
    parser.feed(fragment)
    for tag, attrs in parser.found:
        assert tag not in ACTIVE_TAGS, (tag, fragment)
        for name, value in attrs.items():
            assert not name.startswith("on") and name not in {"style", "srcset", "srcdoc", "formaction"}, fragment
            if name in {"href", "src", "xlink:href", "action", "data"}:
                assert SAFE_URL.match(value or ""), (name, value, fragment)


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_skill_body_renders_no_script_and_no_unsafe_url(attack):
    rendered = BodyRenderer().render(attack, files=FILES, file_base=BASE)
    assert_inert(rendered)


_PIECES = st.sampled_from(ATTACKS + ["<a href='references/guide.md'>ok</a>", "<p>", "</p>", "<div>", "</a>", "\n\n",
                                     "`", "```\n", "> ", "- ", "&#", "<", ">", "'", '"', "javascript:", "data:"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_PIECES, max_size=12), st.text(max_size=20))
def test_any_mix_of_attacks_stays_inert(pieces, noise):
    text = noise.join(pieces)
    assert_inert(BodyRenderer().render(text, files=FILES, file_base=BASE))
    assert_inert(clean_html(text, files=FILES, file_base=BASE))


def test_the_page_policy_never_allows_a_script_from_the_content_by_hash():
    from skillyard.site.csp import add_policy, theme_script_hashes

    content = "<p>x</p><script>alert(1)</script>"
    page = f"<html><head><script>theme()</script></head><body>{content}<script>tail()</script></body></html>"
    hashes = theme_script_hashes(page, content)
    assert len(hashes) == 2 and theme_script_hashes(content, "") != [] and \
        not set(theme_script_hashes(content, "")) & set(hashes)
    out = add_policy(page, content)
    assert out.startswith('<html><head>\n  <meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
                          'script-src \'self\' ')
    assert "object-src 'none'; base-uri 'self'" in out


def test_every_generated_page_carries_the_policy(tmp_path):
    registry = write_registry(tmp_path / "repo", [BENIGN])
    build_site(registry, tmp_path / "repo", tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    pages = list((tmp_path / "out").rglob("*.html"))
    assert len(pages) >= 5 and (tmp_path / "out/404.html") in pages
    for page in pages:
        text = page.read_text(encoding="utf-8")
        head = text.split("<head>", 1)[1].lstrip()
        assert head.startswith('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
                               'script-src \'self\''), page


# --- the publication rule itself -------------------------------------------------------------------------------

# Types a browser renders as a document that can run script (any XML type can pull in XSLT or XHTML script).
ACTIVE_TYPES = re.compile(r"\+xml$|/xml$|html|svg|javascript|ecmascript|pdf|css|shockwave|rfc822|xslt", re.I)
_NAMES = st.sampled_from(["SKILL.md", "a", "A", "x.html", "x.HTM", "y.svg", "z.xml", "page.xhtml", "s.xsl",
                          "t.js", "u.pdf", "v.md", "w.py", "LICENSE", "..", "a..b", ".env", "con", "x\\..\\y",
                          "\u202e", "ok.txt", "img.png", "", " ", "n.", "d.json"])
_PATHS = st.lists(_NAMES, min_size=1, max_size=20).map("/".join)


def test_no_inert_suffix_maps_to_a_type_a_browser_runs():
    import mimetypes

    for suffix in sorted(publish.INERT_SUFFIXES):
        guessed = mimetypes.guess_type(f"file{suffix}")[0] or "application/octet-stream"
        assert not ACTIVE_TYPES.search(guessed), (suffix, guessed)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_PATHS, min_size=1, max_size=6), min_size=1, max_size=5))
def test_the_well_known_index_is_always_one_npx_skills_accepts(file_lists):
    import mimetypes

    from skillyard.site.machine import well_known_index

    skills = [{"name": f"s{i}", "description": "d", "files": [{"path": p, "size": 1} for p in ["SKILL.md", *paths]]}
              for i, paths in enumerate(file_lists)]
    packable = {s["name"]: "sha256:" + "0" * 64 for s in skills if not publish.archive_problems(s)}
    index = well_known_index({"skills": skills}, packable)
    assert npx_skills_accepts(index)
    for skill in skills:  # the per-file copies (the pages' links) stay inert
        if not publish.skill_problems(skill):
            for entry in skill["files"]:
                assert publish.file_problem(entry["path"]) is None
                assert not ACTIVE_TYPES.search(mimetypes.guess_type(entry["path"])[0] or ""), entry["path"]
    for entry in index["skills"]:  # and every archived skill's paths are ones `npx skills` unpacks
        skill = next(s for s in skills if s["name"] == entry["name"])
        assert all(path_problem(f["path"]) is None for f in skill["files"])


@pytest.mark.parametrize(("field", "how"), [("description", "lower"), ("display_name", "lower"),
                                            ("description", "upper"), ("description", "low half"),
                                            ("description", "utf-16"), ("description", "utf-32")])
def test_a_registry_with_a_lone_surrogate_is_refused_with_a_message_not_a_traceback(tmp_path, capsys, field, how):
    from skillyard.cli.main import skillyard_main

    root = tmp_path / "repo"
    registry = write_registry(root, [dict(BENIGN, display_name="Benign")])
    data = json.loads(registry.read_text(encoding="utf-8"))
    data["skills"][0][field] += "\udc80" if how == "low half" else "\ud800"
    text = json.dumps(data)  # ASCII JSON: the surrogate travels as `\ud800`
    if how == "upper":
        text = text.replace("\\ud800", "\\uD800")
    encoding = how if how in ("utf-16", "utf-32") else "utf-8"
    registry.write_bytes(text.encode(encoding))  # json reads UTF-16 and UTF-32 too
    code = skillyard_main(["site", "build", "--root", str(root), "--config", str(CONFIG),
                           "--out", str(tmp_path / "out"), "--work-dir", str(tmp_path / "work")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert str(registry) in err and "skill 'benign'" in err and "surrogate" in err and "skillyard build" in err
    assert not (tmp_path / "out").exists()


def test_the_cli_reports_a_skill_left_out_and_still_succeeds(tmp_path, capsys):
    from skillyard.cli.main import skillyard_main

    root = tmp_path / "repo"
    write_registry(root, [BENIGN, dict(HOSTILE, files={"assets/page.html": "<script>fetch('/__ran__')</script>"})])
    args = ["site", "build", "--root", str(root), "--config", str(CONFIG), "--out", str(tmp_path / "out"),
            "--work-dir", str(tmp_path / "work")]
    assert skillyard_main(args) == 0
    err = capsys.readouterr().err
    assert "note: skill 'hostile' is served under /.well-known/agent-skills/ only as hostile.tar.gz" in err
    assert "`assets/page.html` has the suffix `.html`" in err
    assert skillyard_main([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] is True and len(summary["notes"]) == 1 and "'hostile'" in summary["notes"][0]


@pytest.mark.parametrize("path", ["../outside", "skills\\..\\..\\outside"])
def test_a_registry_whose_skill_path_leaves_the_root_is_refused_whole(tmp_path, path):
    from skillyard.errors import SkillyardError

    root = tmp_path / "repo"
    registry = write_registry(root, [BENIGN])
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/SKILL.md").write_text("---\nname: x\ndescription: y\n---\nTOP SECRET\n", encoding="utf-8")
    (root / "skills/link").symlink_to(tmp_path / "outside")
    data = json.loads(registry.read_text(encoding="utf-8"))
    data["skills"][0]["path"] = path
    registry.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SkillyardError, match="outside the root") as caught:
        build_site(registry, root, tmp_path / "out", config=CONFIG, work_dir=tmp_path / "work")
    assert "skillyard build" in caught.value.fix
    assert not (tmp_path / "out").exists()


def test_a_skill_folder_symlinked_out_of_the_repository_leaves_only_that_skill_out(tmp_path):
    root = tmp_path / "repo"
    registry = write_registry(root, [BENIGN, HOSTILE])
    (tmp_path / "outside").mkdir()
    for item in (root / "skills/hostile").iterdir():
        item.rename(tmp_path / "outside" / item.name)
    (root / "skills/hostile").rmdir()
    (tmp_path / "outside/references/ok.md").write_text("TOP SECRET\n", encoding="utf-8")
    (root / "skills/hostile").symlink_to(tmp_path / "outside")
    out, notes = build(tmp_path, registry)
    assert "a symlink leads out of the repository" in notes
    assert not [p for p in out.rglob("*") if p.is_file() and b"TOP SECRET" in p.read_bytes()]


@pytest.mark.timeout(60)
def test_search_keywords_take_linear_time_on_a_hostile_heading():
    from skillyard.site.search_index import body_keywords

    assert body_keywords("# alpha" + " #" * 500_000 + " omega\n## beta ##\n", known="") == "alpha omega beta"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="#ab c\t\n-+.", max_size=60))
def test_search_keywords_match_the_plain_heading_regex(body):
    from skillyard.site.search_index import _WORD, STOPWORDS, body_keywords

    slow = re.compile(r"^#{1,3}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)  # the obvious, quadratic spelling
    words: list[str] = []
    for heading in slow.findall(body):
        words += [w for w in _WORD.findall(heading.lower()) if w not in STOPWORDS and w not in words]
    assert body_keywords(body, known="", limit=10_000) == " ".join(words)
