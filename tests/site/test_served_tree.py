"""One served tree for a static registry (issue 27, item 7): `skillyard site build --static-host --out DIR` writes a
real folder that `skill source add DIR-URL/registry.json` (or `/sparse/index.json`) installs from, byte for byte,
beside the pages and the well-known tree `npx skills` reads (tests/interop/test_served_tree_npm.py); nothing else is
in it, `cp -a` copies it whole, and two builds are byte-identical.

Everything runs through the console scripts (`skillyard`, `skill`) against `python -m http.server` on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.package.test_own_registry import free_port
from tests.site.wellknown import runnable_files, served_archives

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@skillyard.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@skillyard.invalid"}

REPORT_MD = """\
---
name: report-writer
description: Writes a short status report from notes the user gives, in the tone the team chose. Use when asked for a weekly report or a status update.
license: MIT
---

# Report writer

Write the report in a {{inputs.tone}} tone; run `python scripts/count.py NOTES` to count the items first.
See references/guide.md for the layout.
"""
REPORT_YAML = """\
schema_version: "1.0"
version: "1.2.0"
tags: [report, writing]
inputs:
  - name: tone
    type: string
    description: The report's tone
    default: friendly
"""
REPORT_FILES = {"SKILL.md": REPORT_MD.encode(), "skill.yaml": REPORT_YAML.encode(),
                "scripts/count.py": b"import sys\nprint(len(open(sys.argv[1]).read().split()))\n",
                "references/guide.md": "# Layout\n\n1. Done\n2. Next \u2014 with a note\n".encode()}
WIDGET_MD = """\
---
name: html-widget
description: Builds a small HTML status widget from a template file. Use when the user asks for a status widget page.
license: MIT
---

# HTML widget

Copy assets/widget.html and fill in the numbers.
"""
WIDGET_YAML = 'schema_version: "1.0"\nversion: "0.1.0"\ntags: [html, status]\n'


def env_for(base: Path) -> dict:
    """A user's shell: the venv's scripts first, HOME and XDG folders under `base`, no built-in source."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({f"XDG_{kind}_HOME": str(base / "xdg" / kind.lower()) for kind in ("CACHE", "CONFIG", "DATA")})
    env.update(HOME=str(base / "home"), SKILLCLI_HOME=str(base / "skillhome"), SKILL_DEFAULT_SOURCE="none",
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **GIT_ENV)
    return env


def run(argv: list, cwd: Path, env: dict, ok: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if ok:
        assert done.returncode == 0, f"{argv}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done


def write_skill(folder: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)


def make_registry(base: Path, env: dict) -> Path:
    """`skillyard init-registry --host static` plus a skill with inputs, a script and a reference, and one with an
    HTML file (which the site does not serve from its origin), committed and built."""
    run(["skillyard", "init-registry", "team", "--host", "static", "--description", "Team skills"], base, env)
    root = base / "team"
    write_skill(root / "skills" / "report-writer", REPORT_FILES)
    write_skill(root / "skills" / "html-widget", {"SKILL.md": WIDGET_MD.encode(), "skill.yaml": WIDGET_YAML.encode(),
                                                   "assets/widget.html": b"<p>status</p>\n",
                                                   "scripts/widget.js": b"document.title = 'status';\n"})
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "skills"]):
        run(argv, root, env)
    run(["skillyard", "build"], root, env)
    return root


class Server:
    """`python -m http.server` serving one folder on a free 127.0.0.1 port (`python`: whose; default this one)."""

    def __init__(self, folder: Path, python: str = sys.executable) -> None:
        port = free_port()
        self.proc = subprocess.Popen([python, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                      "--directory", str(folder)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        for _ in range(400):
            try:
                urllib.request.urlopen(self.url + "/registry.json", timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    break
                subprocess.run(["sleep", "0.05"])
        self.stop()
        pytest.fail(f"http.server on {folder} did not start")

    def get(self, rel: str) -> bytes:
        with urllib.request.urlopen(f"{self.url}/{rel}", timeout=30) as response:
            return response.read()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path, with its bytes (folders followed, links refused)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        assert not path.is_symlink(), path
        if path.is_file():
            out[path.relative_to(folder).as_posix()] = path.read_bytes()
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("served-tree")
    env = env_for(base)
    root = make_registry(base, env)
    done = run(["skillyard", "site", "build", "--static-host", "--out", "_public"], root, env)
    return root, env, done


def install_from(url: str, base: Path, name: str) -> dict:
    env = env_for(base)
    base.mkdir(parents=True, exist_ok=True)
    run(["skill", "source", "add", url, "--name", "team"], base, env)
    result = json.loads(run(["skill", "install", name, "--json"], base, env).stdout)
    (entry,) = result["skills"]
    assert entry["status"] == "installed", result
    return entry


@pytest.mark.parametrize("entry_point", ["registry.json", "sparse/index.json"])
def test_skill_installs_from_the_served_site_byte_for_byte(built, tmp_path, entry_point):
    root, _env, _done = built
    server = Server(root / "_public")
    try:
        entry = install_from(f"{server.url}/{entry_point}", tmp_path, "report-writer")
        folder = Path(entry["path"])
        assert sorted(f["path"] for f in entry["files"]) == sorted(REPORT_FILES)
        for rel, data in REPORT_FILES.items():
            assert server.get(f"skills/report-writer/{rel}") == data  # the registry's bytes, where registry.json says
            if rel != "SKILL.md":  # SKILL.md is written with the input's default filled in, as always
                assert (folder / rel).read_bytes() == data, rel
        assert "friendly tone" in (folder / "SKILL.md").read_text(encoding="utf-8")
        page = server.get("skills/report-writer/").decode()  # the skill's page still sits at its address
        assert "Report writer" in page or "report-writer" in page
    finally:
        server.stop()


def test_the_folder_is_real_and_holds_only_the_site(built):
    root, _env, done = built
    out = root / "_public"
    assert out.is_dir() and not out.is_symlink()
    files = tree(out)
    registry = json.loads(files["registry.json"])
    assert files["registry.json"] == (root / "registry.json").read_bytes()  # served as built
    listed = {f"{s['path']}/{f['path']}" for s in registry["skills"] for f in s["files"]}
    for rel in files:
        parts = rel.split("/")
        assert not {".git", ".site-build", ".skillyard-cache", "cache"} & set(parts), rel
        if parts[0] == "skills" and len(parts) > 2 and parts[-1] != "index.html":
            assert rel in listed, rel  # a skill folder holds its page and the files registry.json lists
    assert "skills/html-widget/assets/widget.html" not in files  # never served from the site's origin ...
    assert "html-widget" in done.stderr and "widget.html" in done.stderr  # ... and the build says so
    assert "html-widget.tar.gz" in done.stderr  # ... but `npx skills` gets it as an archive, which no browser runs
    well_known = out / ".well-known/agent-skills"
    assert runnable_files(well_known) == []
    widget = served_archives(well_known)["html-widget"]
    assert widget == {
        f["path"]: (root / "skills/html-widget" / f["path"]).read_bytes()
        for s in registry["skills"] if s["name"] == "html-widget" for f in s["files"]}
    for rel in {rel for rel in listed if not rel.startswith("skills/html-widget/")}:
        assert files[rel] == (root / rel).read_bytes(), rel


def test_a_cp_a_copy_serves_the_same(built, tmp_path):
    root, _env, _done = built
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root / "_public"), str(copy)], check=True)
    assert tree(copy) == tree(root / "_public")
    shutil.rmtree(root / ".site-build")  # the copy needs nothing of the build's
    server = Server(copy)
    try:
        entry = install_from(f"{server.url}/registry.json", tmp_path / "user", "report-writer")
        assert (Path(entry["path"]) / "scripts/count.py").read_bytes() == REPORT_FILES["scripts/count.py"]
    finally:
        server.stop()


def test_two_builds_are_byte_identical_and_the_layouts_switch_both_ways(tmp_path):
    env = env_for(tmp_path)
    root = make_registry(tmp_path, env)
    run(["skillyard", "site", "build", "--static-host", "--out", "one"], root, env)
    run(["skillyard", "site", "build", "--static-host", "--no-cache", "--out", "two"], root, env)
    assert tree(root / "one") == tree(root / "two")
    # with or without --static-host, --out is a real folder (a static registry's served files are the same)
    run(["skillyard", "site", "build", "--out", "_site"], root, env)
    assert not (root / "_site").is_symlink() and tree(root / "_site") == tree(root / "one")
    run(["skillyard", "site", "build", "--static-host", "--out", "_site"], root, env)
    assert not (root / "_site").is_symlink() and tree(root / "_site") == tree(root / "one")
    assert oct((root / "one").stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def test_a_commit_pinned_registry_serves_its_files_only_with_static_host(tmp_path):
    """A GitHub host's registry.json fetches files from the code host, so the site adds none beside the pages; with
    `--static-host` the served registry.json points at the folder, which then serves them (issue 32 item 6)."""
    env = env_for(tmp_path)
    run(["skillyard", "init-registry", "gh", "--repository", "acme/gh"], tmp_path, env)
    root = tmp_path / "gh"
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "x"]):
        run(argv, root, env)
    run(["skillyard", "build"], root, env)
    run(["skillyard", "site", "build", "--out", "pub"], root, env)
    assert not (root / "pub/skills/changelog-entry/SKILL.md").exists()
    assert (root / "pub/.well-known/agent-skills/changelog-entry/SKILL.md").is_file()
    assert (root / "pub/registry.json").read_bytes() == (root / "registry.json").read_bytes()
    run(["skillyard", "site", "build", "--static-host", "--out", "real"], root, env)
    assert (root / "real/skills/changelog-entry/SKILL.md").read_bytes() == \
        (root / "skills/changelog-entry/SKILL.md").read_bytes()
    assert json.loads((root / "real/registry.json").read_bytes())["repository"]["raw_url_template"] == "{path}"
    sparse = (root / "real/sparse/index.json").read_text(encoding="utf-8")
    assert "raw.githubusercontent.com" not in sparse and "{path}" in sparse  # the sparse index says the same


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.mark.parametrize(("template", "prefix"), [
    ("{path}", ""), ("files/{path}", "files/"), ("a/b/{path}", "a/b/"),
    ("https://cdn.example.com/{path}", None), ("https://raw.githubusercontent.com/o/r/{commit}/{path}", None),
    ("../{path}", None), ("/files/{path}", None), ("files{path}", None), ("{path}?x=1", None), ("a//{path}", None),
    ("./{path}", None), ("c:/{path}", None), ("%2e%2e/{path}", None), ("", None), ("files/", None),
])
def test_raw_prefix_only_for_files_inside_the_site(template, prefix):
    from skillyard.site.machine import raw_prefix

    assert raw_prefix({"repository": {"raw_url_template": template}}) == prefix


@given(st.tuples(st.text(alphabet="ab./:%?#\\{}", max_size=12) | st.text(max_size=12),
                 st.sampled_from(["{path}", "{commit}/{path}", "", "{path}"]), st.sampled_from(["", "", "x", "/"]))
       .map("".join))
def test_raw_prefix_never_leaves_the_site(template):
    from skillyard.site.machine import raw_prefix

    prefix = raw_prefix({"repository": {"raw_url_template": template}})
    if prefix is not None:
        assert template == prefix + "{path}"
        assert prefix == "" or (prefix.endswith("/") and all(
            part not in ("", ".", "..") for part in prefix[:-1].split("/")))
        assert not set(prefix) & set("\\:?#%{}") and not prefix.startswith("/")


def test_the_pages_recipe_serves_a_commit_pinned_registry_locally(tmp_path):
    """own-registry.md's recipe for a GitHub-hosted registry with no GitHub: one tree per pinned commit in the raw
    host's layout, served on 127.0.0.1, and SKILL_GITHUB_RAW_URL pointing the client at it. The page's shell lines
    run as written (OWNER/NAME filled in), but for the server, started here."""
    page = (Path(__file__).resolve().parents[2] / "site/pages/own-registry.md").read_text(encoding="utf-8")
    block = next(b for b in (part.split("```")[0] for part in page.split("```sh\n")[1:])
                 if "SKILL_GITHUB_RAW_URL" in b)
    lines = block.replace("OWNER/NAME", "acme/gh").splitlines()
    export = next(line for line in lines if line.startswith("export SKILL_GITHUB_RAW_URL="))
    client = next(line for line in lines if line.startswith("skill source add"))
    setup = "\n".join(lines[:lines.index(next(line for line in lines if "http.server" in line))])
    env = env_for(tmp_path)
    run(["skillyard", "init-registry", "gh", "--repository", "acme/gh"], tmp_path, env)
    root = tmp_path / "gh"
    write_skill(root / "skills" / "report-writer", REPORT_FILES)
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "x"]):
        run(argv, root, env)
    run(["bash", "-euc", setup], root, env)
    server = Server(root / "_raw")
    try:
        port = server.url.rsplit(":", 1)[1]
        script = f"{export}\n{client}".replace("8001", port)
        done = run(["bash", "-euc", script], root, env)
        assert "installed changelog-entry" in done.stdout
        installed = Path(env["HOME"]) / ".agents/skills/changelog-entry/skill.yaml"
        assert installed.read_bytes() == (root / "skills/changelog-entry/skill.yaml").read_bytes()
    finally:
        server.stop()


def _site_build(root: Path, env: dict, *extra: str) -> dict:
    return json.loads(run(["skillyard", "site", "build", "--static-host", "--json", *extra], root, env).stdout)


def test_a_real_folder_rebuild_rewrites_only_what_changed_and_nothing_strays(tmp_path):
    """The real folder is exchanged with a spare copy kept in the work folder (skillyard.site.real_out): a rebuild
    of an unchanged registry writes nothing, and whatever someone changed or added in either copy is gone after
    the build that brings that copy back."""
    env = env_for(tmp_path)
    root = make_registry(tmp_path, env)
    first = _site_build(root, env, "--out", "_site")
    expected = tree(root / "_site")
    second = _site_build(root, env, "--out", "_site")  # fills the spare copy
    third = _site_build(root, env, "--out", "_site")
    assert first["files_written"] == second["files_written"] == len(expected)
    assert (third["files_written"], third["files_kept"]) == (0, len(expected))
    assert tree(root / "_site") == expected and not (root / "_site").is_symlink()
    for _ in range(2):  # one build for each copy
        (root / "_site/skills/report-writer/SKILL.md").write_bytes(b"changed by hand\n")
        (root / "_site/stray.txt").write_bytes(b"not the site's\n")
        (root / "_site/skills/report-writer/extra").mkdir()
        again = _site_build(root, env, "--out", "_site")
        assert tree(root / "_site") == expected and not (root / "_site/skills/report-writer/extra").exists()
        assert again["files_written"] <= 1
    assert tree(root / "_site") == expected


def test_a_work_folder_on_another_file_system_writes_the_folder_whole(tmp_path):
    shm = Path("/dev/shm")
    if not shm.is_dir() or os.stat(shm).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system (/dev/shm) to put the work folder on")
    env = env_for(tmp_path)
    root = make_registry(tmp_path, env)
    work = Path(subprocess.run(["mktemp", "-d", "-p", str(shm)], capture_output=True, text=True,
                               check=True).stdout.strip())
    try:
        for _ in range(3):
            done = _site_build(root, env, "--out", "_site", "--work-dir", str(work))
            assert not (root / "_site").is_symlink() and (root / "_site/skills/report-writer/SKILL.md").is_file()
        assert done["files_written"] == len(tree(root / "_site"))  # no exchange across file systems: all written
    finally:
        shutil.rmtree(work)


def test_a_static_registry_with_a_fetched_pointer_serves_its_own_files_beside_the_pages(tmp_path, monkeypatch):
    """A pointer entry's files come from its upstream (its own template): `--fetch-upstream` may serve them under
    the well-known path, while beside registry.json the site serves only the registry's own skills."""
    from tests.site.conftest import CONFIG, SKILLS, write_registry
    from tests.site.pointerkit import add_pointers, make_upstreams, pointer_entries
    from tests.support.gitserver import GitServer

    from skillyard.cli.main import skillyard_main

    server = GitServer(tmp_path / "server").start()
    try:
        monkeypatch.setenv("SKILL_GITHUB_CODELOAD_URL", server.url)
        monkeypatch.setenv("SKILLCLI_HOME", str(tmp_path / "skillcli"))
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        make_upstreams(server)
        root = tmp_path / "root"
        own = [s for s in SKILLS if s["name"] == "meeting-notes"]
        registry_path = write_registry(root, own)
        add_pointers(registry_path, pointer_entries(server))
        registry = json.loads(registry_path.read_text(encoding="utf-8"))
        registry["repository"] = {"url": "", "raw_url_template": "{path}"}
        registry_path.write_text(json.dumps(registry, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                                 encoding="utf-8")
        assert skillyard_main(["site", "build", "--root", str(root), "--out", str(tmp_path / "out"), "--config",
                               str(CONFIG), "--work-dir", str(tmp_path / "work"), "--static-host",
                               "--fetch-upstream"]) == 0
    finally:
        server.stop()
    files = tree(tmp_path / "out")
    served = json.loads(files[".well-known/agent-skills/index.json"])["skills"]
    pointers = {s["name"] for s in registry["skills"] if "source_url" in s}
    assert pointers & {s["name"] for s in served}  # a fetched pointer is served under the well-known path ...
    for skill in registry["skills"]:
        for entry in skill["files"]:
            beside = f"{skill['path']}/{entry['path']}" in files
            assert beside == (skill["name"] not in pointers), (skill["name"], entry["path"])  # ... never beside


def test_a_stray_closing_brace_is_not_a_site_prefix():
    """Found by the property test above: `}/{path}` once passed as the prefix `}/`."""
    from skillyard.site.machine import raw_prefix

    assert raw_prefix({"repository": {"raw_url_template": "}/{path}"}}) is None
    assert raw_prefix({"repository": {"raw_url_template": "files/{path}"}}) == "files/"
