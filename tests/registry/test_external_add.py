"""`skillyard external add` against a GitHub stand-in on 127.0.0.1 serving real git repositories (REST commits
endpoint, codeload tarballs, raw files), and the pointer entries it writes going through validate and build."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
import time

import pytest
from tests.support.fixtures import git_server, skill_home  # noqa: F401 (fixtures)
from tests.support.gitserver import git
from tests.support.registry import skill_md

from skillyard.cli.main import skillyard_main
from skillyard.format.pointer import parse_pointer
from skillyard.format.timeversion import from_iso

UPSTREAM_SKILL = skill_md("alpha", "Does alpha things. Use when the user asks for alpha.", version="2.1.0",
                          license="Apache-2.0", tags=["demo"])


@pytest.fixture
def upstream(git_server, monkeypatch):  # noqa: F811
    """up/skills: skills/alpha (SKILL.md, an executable script, a reference), licensed MIT at the repository."""
    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    git_server.create_repo("up", "skills", {
        "skills/alpha/SKILL.md": UPSTREAM_SKILL,
        "skills/alpha/scripts/run.sh": "#!/bin/sh\necho alpha\n",
        "skills/alpha/references/notes.md": "# Notes\n",
        "README.md": "upstream\n",
    })
    git_server.commit("up", "skills", {"skills/alpha/scripts/run.sh": "#!/bin/sh\necho alpha\n"},
                      executable=("skills/alpha/scripts/run.sh",), message="exec")
    git_server.set_license("up", "skills", "MIT")
    return git_server


def run(*argv: str, capsys) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = skillyard_main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def pointer_of(repo, name: str) -> dict:
    text = (repo.root / "skills" / name / "source.yaml").read_text(encoding="utf-8")
    pointer, problems = parse_pointer(text, folder_name=name)
    assert pointer is not None, problems
    return pointer.data


def test_add_at_a_branch_records_the_commit_files_and_metadata(repo, upstream, capsys):
    code, out, err = run("external", "add", "github:up/skills/skills/alpha@main", "--root", str(repo.root), "--json",
                         capsys=capsys)
    assert code == 0, err
    result = json.loads(out)
    data = pointer_of(repo, "alpha")
    sha = upstream.sha("up", "skills", "main")
    stamp = int(git(upstream.repo_path("up", "skills"), "show", "-s", "--format=%ct", sha))
    assert data["upstream"] == {"host": "github", "repository": "up/skills", "path": "skills/alpha",
                                "commit": sha, "tracks": "main",  # the pin's committer date, from the API, in UTC
                                "committed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))}
    assert result["commit"] == data["upstream"]["commit"]
    assert data["license"] == "Apache-2.0"  # the skill's own licence wins over the repository's
    assert data["skill"]["version"] == "2.1.0" and data["skill"]["tags"] == ["demo"]
    files = {f["path"]: f for f in data["files"]}
    assert sorted(files) == ["SKILL.md", "references/notes.md", "scripts/run.sh"]
    assert files["scripts/run.sh"].get("executable") is True and "executable" not in files["SKILL.md"]
    assert files["SKILL.md"]["size"] == len(UPSTREAM_SKILL.encode())
    assert [r.path for r in upstream.log if "/repos/" in r.path] == [
        "/repos/up/skills/commits/main", "/repos/up/skills"]


def test_add_at_a_tag_tracks_the_tag_or_the_pattern_given(repo, upstream, capsys):
    sha = upstream.sha("up", "skills")
    from tests.support.gitserver import git

    git(upstream.repo_path("up", "skills"), "tag", "v1.0.0")
    code, _, err = run("external", "add", "github:up/skills/skills/alpha@v1.0.0", "--track", "v*", "--root",
                       str(repo.root), capsys=capsys)
    assert code == 0, err
    assert pointer_of(repo, "alpha")["upstream"]["commit"] == sha
    assert pointer_of(repo, "alpha")["upstream"]["tracks"] == "v*"


def test_add_at_a_sha_tracks_the_default_branch(repo, upstream, capsys):
    first = upstream.sha("up", "skills", "HEAD~1")
    code, _, err = run("external", "add", f"github:up/skills/skills/alpha@{first}", "--name", "alpha-old",
                       "--root", str(repo.root), capsys=capsys)
    assert code == 0, err
    data = pointer_of(repo, "alpha-old")
    assert data["upstream"]["commit"] == first and data["upstream"]["tracks"] == "main"
    assert data["name"] == "alpha-old" and data["skill"]["name"] == "alpha"
    assert "executable" not in {f["path"]: f for f in data["files"]}["scripts/run.sh"]  # not yet at that commit


@pytest.mark.parametrize("ref", ["no-such-branch", "0" * 40])
def test_an_unknown_ref_writes_nothing(repo, upstream, capsys, ref):
    code, _, err = run("external", "add", f"github:up/skills/skills/alpha@{ref}", "--root", str(repo.root),
                       capsys=capsys)
    assert code != 0
    assert "not found" in err and "nothing was written" in err
    assert not (repo.root / "skills").exists()


def test_an_unknown_folder_writes_nothing(repo, upstream, capsys):
    code, _, err = run("external", "add", "github:up/skills/skills/nope", "--root", str(repo.root), capsys=capsys)
    assert code != 0 and "skills/nope" in err and "nothing was written" in err
    assert not (repo.root / "skills").exists()


def _tarball(members: list[tuple[str, bytes | None, str | None]], top: str) -> bytes:
    """A gzip tarball under `top/`: (name, bytes, None) files, (name, None, target) symlinks; names kept raw."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data, target in members:
            info = tarfile.TarInfo(name if name.startswith(("/", "..")) else f"{top}/{name}")
            if target is not None:
                info.type, info.linkname = tarfile.SYMTYPE, target
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def _bomb(top: str) -> bytes:
    """A tarball whose one member expands to 70 MB of zeros: about 70 KB on the wire."""
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for name, size in (("skills/alpha/SKILL.md", None), ("skills/alpha/assets/zeros.bin", 70 * 1024 * 1024)):
            info = tarfile.TarInfo(f"{top}/{name}")
            data = UPSTREAM_SKILL.encode() if size is None else None
            info.size = len(data) if data is not None else size
            tar.addfile(info, io.BytesIO(data) if data is not None else _Zeros(size))
    return raw.getvalue()


class _Zeros(io.RawIOBase):
    def __init__(self, size: int):
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


HOSTILE = {
    "traversal": ([("skills/alpha/SKILL.md", UPSTREAM_SKILL.encode(), None), ("../escape.txt", b"x", None)],
                  "climbs out"),
    "git-plant": ([("skills/alpha/SKILL.md", UPSTREAM_SKILL.encode(), None),
                   ("skills/alpha/.git/config", b"[core]\n\tfsmonitor = evil\n", None)], ".git"),
    "link-out": ([("skills/alpha/SKILL.md", UPSTREAM_SKILL.encode(), None),
                  ("skills/alpha/secret.md", None, "../../README.md")], "outside the skill folder"),
    "absolute": ([("skills/alpha/SKILL.md", UPSTREAM_SKILL.encode(), None), ("/etc/evil", b"x", None)],
                 "absolute path"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_tarball_is_refused_and_nothing_written(repo, upstream, capsys, case):
    members, expected = HOSTILE[case]
    sha = upstream.sha("up", "skills")
    upstream.serve_tarball("up", "skills", sha, _tarball(members, f"skills-{sha}"))
    code, _, err = run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)
    assert code != 0, err
    assert expected in err and "nothing was written" in err
    assert not (repo.root / "skills").exists()


def test_a_tarball_bomb_is_refused_and_nothing_written(repo, upstream, capsys):
    sha = upstream.sha("up", "skills")
    bomb = _bomb(f"skills-{sha}")
    assert len(bomb) < 1024 * 1024
    upstream.serve_tarball("up", "skills", sha, bomb)
    code, _, err = run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)
    assert code != 0 and "past 64 MB" in err and "nothing was written" in err
    assert not (repo.root / "skills").exists()


def test_a_real_link_out_of_the_folder_is_refused(repo, upstream, capsys):
    path = upstream.repo_path("up", "skills")
    (path / "skills/alpha/leak.md").symlink_to("../../README.md")
    upstream.commit("up", "skills", {}, message="link")
    code, _, err = run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)
    assert code != 0 and "leak.md" in err and "outside the skill folder" in err
    assert not (repo.root / "skills").exists()


def test_an_over_limit_file_is_refused(repo, upstream, capsys):
    upstream.commit("up", "skills", {"skills/alpha/assets/big.txt": "x" * (4 * 1024 * 1024 + 1)}, message="big")
    code, _, err = run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)
    assert code != 0 and "assets/big.txt" in err and "limit" in err and "nothing was written" in err
    assert not (repo.root / "skills").exists()


def test_upstream_held_to_the_open_standard_not_the_house_style(repo, upstream, capsys):
    """A standard SKILL.md with no version and an unusual key (which strict mode refuses) is listed; the
    registry's `external_mode = "strict"` refuses it."""
    upstream.commit("up", "skills", {"skills/gamma/SKILL.md": "---\nname: gamma\ndescription: Does gamma. Use it "
                                     "for gamma.\nx-custom: 1\n---\n# Gamma\n"}, message="gamma")
    code, _, err = run("external", "add", "github:up/skills/skills/gamma", "--root", str(repo.root), capsys=capsys)
    assert code == 0, err
    assert "version" not in pointer_of(repo, "gamma")["skill"]  # versionless: dated by its pin (upstream.committed_at)
    repo.commit("gamma pointer")
    assert run("build", "--root", str(repo.root), capsys=capsys)[0] == 0
    built = next(s for s in json.loads((repo.root / "registry.json").read_text())["skills"] if s["name"] == "gamma")
    assert built["version"] == from_iso(pointer_of(repo, "gamma")["upstream"]["committed_at"])  # the pin's date
    repo.write("pyproject.toml", repo.root.joinpath("pyproject.toml").read_text() + 'external_mode = "strict"\n')
    (repo.root / "skills/gamma/source.yaml").unlink()
    (repo.root / "skills/gamma").rmdir()
    code, _, err = run("external", "add", "github:up/skills/skills/gamma", "--root", str(repo.root), capsys=capsys)
    assert code != 0 and "strict mode" in err and not (repo.root / "skills/gamma").exists()


def test_validate_and_build_list_a_pointer_entry(repo, upstream, capsys):
    repo.add_skill("local-one")
    assert run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)[0] == 0
    repo.commit("add pointer")
    code, _, err = run("validate", "--root", str(repo.root), capsys=capsys)
    assert code == 0, err
    code, _, err = run("build", "--root", str(repo.root), capsys=capsys)
    assert code == 0, err
    registry = json.loads((repo.root / "registry.json").read_text())
    entry = next(s for s in registry["skills"] if s["name"] == "alpha")
    sha = upstream.sha("up", "skills")
    assert entry["commit"] == sha and entry["path"] == "skills/alpha"
    assert entry["source_url"] == "https://github.com/up/skills"
    assert entry["source"]["raw_url_template"] == "https://raw.githubusercontent.com/up/skills/{commit}/{path}"
    assert entry["source"]["pointer"] == "skills/alpha/source.yaml"
    assert entry["updated_at"]  # the registry commit that added the pointer
    index = json.loads((repo.root / "index.json").read_text())
    assert index["skills"]["alpha"]["commit"] == sha
    plugin = next(p for p in json.loads((repo.root / ".claude-plugin/marketplace.json").read_text())["plugins"]
                  if p["name"] == "alpha")
    # only the skill's folder, at the pin, is the plugin (Claude Code's git-subdir source)
    assert plugin["source"] == {"source": "git-subdir", "url": "https://github.com/up/skills.git",
                                "path": "skills/alpha", "sha": sha}
    assert plugin["skills"] == ["./"]


def test_a_folder_with_content_and_a_pointer_is_an_error(repo, upstream, capsys):
    assert run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)[0] == 0
    (repo.root / "skills/alpha/SKILL.md").write_text(skill_md("alpha", "Local copy. Use it for alpha."))
    code, out, _ = run("validate", "--root", str(repo.root), "--json", capsys=capsys)
    assert code == 1
    report = json.loads(out)
    rules = {f["rule"] for s in report["skills"] for f in s["findings"]}
    assert "pointer-mixed" in rules


def test_build_needs_no_network_and_gives_the_same_bytes(repo, upstream, capsys):
    assert run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)[0] == 0
    repo.commit("pointer")
    outputs = ("registry.json", "index.json", ".claude-plugin/marketplace.json", "AGENTS.md")
    assert run("build", "--root", str(repo.root), "--no-cache", capsys=capsys)[0] == 0
    online = {rel: (repo.root / rel).read_bytes() for rel in outputs}
    requests = len(upstream.log)
    upstream.stop()  # the network is gone
    for rel in outputs:
        (repo.root / rel).unlink()
    code, _, err = run("build", "--root", str(repo.root), "--no-cache", capsys=capsys)
    assert code == 0, err
    assert {rel: (repo.root / rel).read_bytes() for rel in outputs} == online
    assert run("validate", "--root", str(repo.root), capsys=capsys)[0] == 0
    assert len(upstream.log) == requests


def test_the_site_shows_a_pointer_skill_without_its_body(repo, upstream, capsys, tmp_path):
    assert run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)[0] == 0
    repo.commit("pointer")
    assert run("build", "--root", str(repo.root), capsys=capsys)[0] == 0
    upstream.stop()  # a site build needs no network for a pointer entry
    out = tmp_path / "site"
    code, _, err = run("site", "build", "--root", str(repo.root), "--out", str(out), capsys=capsys)
    assert code == 0, err
    assert "alpha" not in err  # not served under .well-known by design: no note about it
    page = (out / "skills" / "alpha" / "index.html").read_text(encoding="utf-8")
    assert "lives in its own repository: install it with the client" in page
    sha = json.loads((repo.root / "registry.json").read_text())["skills"][0]["commit"]
    assert "lives in its own repository" in page and 'href="https://github.com/up/skills"' in page
    assert f"https://github.com/up/skills/tree/{sha}/skills/alpha" in page
    assert f"https://raw.githubusercontent.com/up/skills/{sha}/skills/alpha/SKILL.md" in page
    assert "Does alpha things" in page  # the description, from the recorded facts
    well_known = json.loads((out / ".well-known/agent-skills/index.json").read_text())
    assert [s["name"] for s in well_known["skills"]] == []
    assert not (out / ".well-known/agent-skills/alpha").exists()


def test_a_broken_pointer_stops_the_build_naming_file_field_and_line(repo, upstream, capsys):
    """With the local cache on (the default off CI), the build reports a pointer it cannot read and writes no
    registry.json; the cache keeps the result and a second build says the same."""
    assert run("external", "add", "github:up/skills/skills/alpha", "--root", str(repo.root), capsys=capsys)[0] == 0
    path = repo.root / "skills/alpha/source.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("host: github", "host: gitlab"), encoding="utf-8")
    repo.commit("break it")
    line = text.splitlines().index("upstream:") + 1
    for _ in range(2):
        code, out, err = run("build", "--root", str(repo.root), capsys=capsys)
        assert code == 1 and "nothing was written" in err
        said = out + err
        assert "source.yaml" in said and "`upstream.host`" in said and "skillyard external add" in said
        assert not (repo.root / "registry.json").exists()
    code, out, _ = run("validate", "--root", str(repo.root), "--json", capsys=capsys)
    finding = next(f for s in json.loads(out)["skills"] for f in s["findings"] if f["rule"] == "pointer-invalid")
    assert finding["file"] == "source.yaml" and finding["field"] == "upstream.host" and finding["line"] == line
    path.write_text(text.replace("name: alpha\n", "", 1), encoding="utf-8")
    code, out, _ = run("validate", "--root", str(repo.root), "--json", capsys=capsys)
    finding = next(f for s in json.loads(out)["skills"] for f in s["findings"] if f["rule"] == "pointer-invalid")
    assert finding["field"] == "name"


def test_add_warns_only_about_what_is_still_missing(repo, upstream, capsys):
    """issue 35 item 8: the registry requires version, license and tags; a versionless, licenceless, untagged
    upstream skill added with --license warns only about tags (versioned by its pin's date; licensed by the flag),
    and says where a maintainer adds them."""
    upstream.commit("up", "skills", {"skills/bare/SKILL.md": skill_md("bare", "Does bare things. Use when asked.")})
    code, out, err = run("external", "add", "github:up/skills/skills/bare@main", "--root", str(repo.root),
                         "--license", "MIT", "--json", capsys=capsys)
    assert code == 0, err
    warned = [w for w in json.loads(out)["warnings"] if w["rule"] == "policy-required-field"]
    assert [w["field"] for w in warned] == ["tags"]
    assert "registry: {tags:" in warned[0]["fix"]
    code, out, err = run("external", "add", "github:up/skills/skills/bare@main", "--root", str(repo.root),
                         "--name", "bare-two", capsys=capsys)
    assert code == 0, err
    assert "requires `license`" not in out + err  # the repository's MIT licence was found
    assert "requires `version`" not in out + err
