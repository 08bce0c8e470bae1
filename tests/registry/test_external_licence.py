"""`skillyard external add` on repositories shaped like the real ones (issue 32, item 7): the licence found where
authors put it, NOASSERTION (listed, never served by the site, installable from upstream) when none is found, and
size limits that fit the ecosystem, against the GitHub stand-in on 127.0.0.1."""

from __future__ import annotations

import json
import textwrap

import pytest
from tests.client_install.conftest import configure, user_home  # noqa: F401 (fixtures)
from tests.registry.test_external_add import run
from tests.support.fixtures import git_server, skill_cli, skill_home  # noqa: F401 (fixtures)
from tests.support.registry import registry_url, skill_md

from skillyard.format.licence_text import SHORT
from skillyard.format.pointer import parse_pointer

# The MIT licence as authors lay it out: a title, a copyright line, wrapped text, the warranty in capitals.
MIT_TEXT = textwrap.dedent("""\
    MIT License

    Copyright (c) 2026 Example Authors

    Permission is hereby granted, free of charge, to any person obtaining a copy
    of this software and associated documentation files (the "Software"), to deal
    in the Software without restriction, including without limitation the rights
    to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
    copies of the Software, and to permit persons to whom the Software is
    furnished to do so, subject to the following conditions:

    The above copyright notice and this permission notice shall be included in all
    copies or substantial portions of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
    IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
    FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
    AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
    LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
    OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
    SOFTWARE.
    """)
MIB = 1024 * 1024


def pointer_of(root, name: str) -> dict:
    text = (root / "skills" / name / "source.yaml").read_text(encoding="utf-8")
    pointer, problems = parse_pointer(text, folder_name=name)
    assert pointer is not None, problems
    return pointer.data


def font(size: int, seed: int) -> bytes:
    """A binary file (a NUL byte early, as a font has) of `size` bytes."""
    block = bytes([0, 1, 0, 0, seed % 256]) + bytes((i * 31 + seed) % 251 for i in range(4091))
    return (block * (size // len(block) + 1))[:size]


@pytest.fixture
def upstreams(git_server, monkeypatch):  # noqa: F811
    """Repositories shaped like the real ones. GitHub's API reports no licence for any of them.
    - anth/skills: canvas (frontmatter "Complete terms in LICENSE.txt", its own LICENSE.txt, ~5.5 MB of fonts),
      and docs (frontmatter "Proprietary. LICENSE.txt has complete terms", a proprietary LICENSE.txt);
    - bare/skills: plain (no licence anywhere; the README names one, which is not a place the lookup reads);
    - rooted/skills: a root LICENSE with the MIT text, the skill states nothing."""
    monkeypatch.setenv("SKILL_GITHUB_API_URL", git_server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    fonts = {f"skills/canvas/canvas-fonts/Face{i}-Regular.ttf": font(690_000, i) for i in range(8)}
    git_server.create_repo("anth", "skills", {
        "skills/canvas/SKILL.md": skill_md("canvas", "Makes posters. Use when asked for a poster.",
                                           license="Complete terms in LICENSE.txt"),
        "skills/canvas/LICENSE.txt": MIT_TEXT,
        **fonts,
        "skills/docs/SKILL.md": skill_md("docs", "Edits documents. Use for documents.",
                                         license="Proprietary. LICENSE.txt has complete terms"),
        "skills/docs/LICENSE.txt": "(c) 2025 Example, Inc. All rights reserved.\n\nUse is governed by your "
                                   "agreement with Example. You may not distribute these materials.\n",
        "README.md": "# Skills\n\nMost skills here are Apache 2.0.\n",
    })
    git_server.create_repo("bare", "skills", {
        "skills/plain/SKILL.md": skill_md("plain", "Does plain things. Use for plain work."),
        "README.md": "Licensed under the MIT licence.\n",
    })
    git_server.create_repo("rooted", "skills", {
        "skills/rooted/SKILL.md": skill_md("rooted", "Does rooted things. Use for rooted work."),
        "LICENSE": MIT_TEXT,
    })
    return git_server


@pytest.fixture
def reg(git_server):  # noqa: F811
    """acme/reg: an empty registry served by the stand-in."""
    git_server.create_repo("acme", "reg", {"skillyard.toml": 'name = "acme"\nrepository = "acme/reg"\n'})
    return git_server.repo_path("acme", "reg")


def test_a_skill_folder_licence_named_by_the_frontmatter_is_followed(upstreams, reg, capsys):
    code, out, err = run("external", "add", "github:anth/skills/skills/canvas", "--root", str(reg), capsys=capsys)
    assert code == 0, err
    data = pointer_of(reg, "canvas")
    assert data["license"] == "MIT"
    assert data["license_source"] == "LICENSE.txt in the skill folder (named by the frontmatter `license`)"
    assert data["skill"]["license"] == "Complete terms in LICENSE.txt"  # the upstream value, kept as written
    assert "licence MIT from LICENSE.txt in the skill folder" in out
    # 5.5 MB with its fonts: over the old 5 MiB limit, within the new default
    total = sum(f["size"] for f in data["files"])
    assert 5_500_000 < total < 10 * MIB and len(data["files"]) == 10


def test_json_output_says_where_the_licence_came_from(upstreams, reg, capsys):
    code, out, err = run("external", "add", "github:rooted/skills/skills/rooted", "--root", str(reg), "--json",
                         capsys=capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["license"] == "MIT" and result["license_source"] == "LICENSE at the repository root"
    assert result["warnings"] == []


def test_the_api_licence_comes_before_a_root_file_and_after_the_skill(upstreams, reg, capsys):
    upstreams.set_license("rooted", "skills", "Apache-2.0")
    assert run("external", "add", "github:rooted/skills/skills/rooted", "--root", str(reg), capsys=capsys)[0] == 0
    data = pointer_of(reg, "rooted")
    assert (data["license"], data["license_source"]) == ("Apache-2.0", "the repository's licence (GitHub API)")
    upstreams.set_license("anth", "skills", "Apache-2.0")  # the skill's own file still wins
    assert run("external", "add", "github:anth/skills/skills/canvas", "--root", str(reg), capsys=capsys)[0] == 0
    assert pointer_of(reg, "canvas")["license"] == "MIT"


def test_no_licence_anywhere_is_listed_as_noassertion_with_a_warning(upstreams, reg, capsys):
    code, out, err = run("external", "add", "github:bare/skills/skills/plain", "--root", str(reg), capsys=capsys)
    assert code == 0, err
    data = pointer_of(reg, "plain")
    assert data["license"] == "NOASSERTION" and data["license_source"] == "nowhere"
    assert "licence NOASSERTION" in out
    assert "warning: .: no licence found" in out and "never serves or renders" in out and "--license" in out


def test_a_proprietary_licence_file_is_noassertion_not_the_repository_licence(upstreams, reg, capsys):
    upstreams.set_license("anth", "skills", "Apache-2.0")
    code, out, err = run("external", "add", "github:anth/skills/skills/docs", "--root", str(reg), "--json",
                         capsys=capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["license"] == "NOASSERTION" and result["license_source"] == "LICENSE.txt in the skill folder"
    warning = result["warnings"][0]
    assert warning["rule"] == "licence-noassertion" and "LICENSE.txt" in warning["message"]


def test_a_registry_may_require_a_licence(upstreams, reg, capsys):
    (reg / "skillyard.toml").write_text('name = "acme"\nrepository = "acme/reg"\nexternal_require_license = true\n')
    code, _, err = run("external", "add", "github:bare/skills/skills/plain", "--root", str(reg), capsys=capsys)
    assert code != 0 and "external_require_license" in err and "nothing was written" in err
    assert "--license" in err and not (reg / "skills" / "plain").exists()
    code, _, err = run("external", "add", "github:bare/skills/skills/plain", "--license", "MIT", "--root", str(reg),
                       capsys=capsys)
    assert code == 0, err
    assert (pointer_of(reg, "plain")["license"], pointer_of(reg, "plain")["license_source"]) == ("MIT", "registry")


def test_a_file_over_the_limit_names_file_size_limit_and_setting(upstreams, reg, capsys):
    upstreams.commit("anth", "skills", {"skills/canvas/canvas-fonts/Huge.ttf": font(4 * MIB + 1, 99)},
                     message="huge")
    code, _, err = run("external", "add", "github:anth/skills/skills/canvas", "--root", str(reg), capsys=capsys)
    assert code != 0 and "nothing was written" in err
    assert "canvas-fonts/Huge.ttf" in err and f"{4 * MIB + 1:,}" in err and f"{4 * MIB:,}" in err
    assert "`max_file_bytes`" in err and "skillyard.toml" in err
    (reg / "skillyard.toml").write_text('name = "acme"\nrepository = "acme/reg"\nmax_file_bytes = 5242880\n')
    assert run("external", "add", "github:anth/skills/skills/canvas", "--root", str(reg), capsys=capsys)[0] == 0


def test_a_skill_over_the_total_names_the_largest_files_and_the_setting(upstreams, reg, capsys):
    (reg / "skillyard.toml").write_text('name = "acme"\nrepository = "acme/reg"\nmax_total_bytes = 5242880\n')
    code, _, err = run("external", "add", "github:anth/skills/skills/canvas", "--root", str(reg), capsys=capsys)
    assert code != 0
    assert "`max_total_bytes` is 5,242,880" in err and "canvas-fonts/Face" in err and "690,000 bytes" in err


def test_noassertion_is_not_served_by_the_site_and_installs_from_upstream(upstreams, reg, capsys, configure,  # noqa: F811
                                                                         skill_cli, user_home, tmp_path):  # noqa: F811
    for target in ("github:bare/skills/skills/plain", "github:rooted/skills/skills/rooted"):
        assert run("external", "add", target, "--root", str(reg), capsys=capsys)[0] == 0
    upstreams.commit("acme", "reg", {}, message="pointers")
    assert run("build", "--root", str(reg), capsys=capsys)[0] == 0
    upstreams.commit("acme", "reg", {}, message="build")
    entries = {s["name"]: s for s in json.loads((reg / "registry.json").read_text())["skills"]}
    assert entries["plain"]["license"] == "NOASSERTION" and entries["rooted"]["license"] == "MIT"

    out = tmp_path / "site"
    upstreams.clear_log()
    code, _, err = run("site", "build", "--root", str(reg), "--out", str(out), "--work-dir", str(tmp_path / "w"),
                       "--fetch-upstream", capsys=capsys)
    assert code == 0, err
    fetched = [r.path for r in upstreams.log if "/tar.gz/" in r.path]
    assert any(p.startswith("/rooted/skills/") for p in fetched)
    assert not any(p.startswith("/bare/skills/") for p in fetched)  # never even downloaded
    served = {s["name"] for s in json.loads((out / ".well-known/agent-skills/index.json").read_text())["skills"]}
    assert "rooted" in served and "plain" not in served
    assert not (out / ".well-known/agent-skills/plain").exists()
    page = (out / "skills" / "plain" / "index.html").read_text(encoding="utf-8")
    assert "NOASSERTION" in page and "Use this skill when asked" not in page  # the body is never rendered

    configure.source("acme", registry_url(upstreams, "acme", "reg"))
    result = skill_cli("install", "plain")
    assert result.code == 0, result.err
    sha = upstreams.sha("bare", "skills")
    installed = user_home / ".agents" / "skills" / "plain" / "SKILL.md"
    assert installed.read_text(encoding="utf-8") == skill_md("plain", "Does plain things. Use for plain work.")
    assert f"/bare/skills/{sha}/skills/plain/SKILL.md" in [r.path for r in upstreams.log]


def test_bump_keeps_the_pointers_licence_only_when_upstream_states_none(upstreams, reg, capsys):
    """`external bump` looks the licence up as add does; a licence a maintainer gave (upstream states none) is
    kept, and one upstream now states replaces it."""
    assert run("external", "add", "github:bare/skills/skills/plain", "--license", "MIT", "--root", str(reg),
               capsys=capsys)[0] == 0
    upstreams.commit("acme", "reg", {}, message="pointer")
    upstreams.commit("bare", "skills", {"skills/plain/notes.md": "# Notes\n"}, message="notes")
    code, out, err = run("external", "bump", "--root", str(reg), "--json", capsys=capsys)
    assert code == 0, err
    assert [r["status"] for r in json.loads(out)["results"]] == ["bumped"]
    data = pointer_of(reg, "plain")
    assert (data["license"], data["license_source"]) == ("MIT", "registry")  # upstream still names none
    upstreams.commit("acme", "reg", {}, message="bumped")
    isc = "Copyright (c) 2026 Jane Doe\n\n" + SHORT["ISC"].replace("*", "the author") + "\n"
    upstreams.commit("bare", "skills", {"skills/plain/LICENSE": isc}, message="licence file")
    assert run("external", "bump", "--root", str(reg), capsys=capsys)[0] == 0
    data = pointer_of(reg, "plain")
    assert (data["license"], data["license_source"]) == ("ISC", "LICENSE in the skill folder")


def test_a_bump_that_only_records_where_the_licence_came_from_can_still_automerge():
    """Pointers written before `license_source` existed gain it on their first bump: that alone is not a change
    a maintainer must review (the licence itself still is)."""
    from skillyard.bot.bump_rules import _pointer_reasons

    base = {"schema_version": 1, "name": "x", "license": "MIT", "skill": {"name": "x", "description": "d"},
            "upstream": {"host": "github", "repository": "a/b", "path": "x", "commit": "1" * 40, "tracks": "main"},
            "files": [], "verification": {"verified": True}, "registry": {"auto_bump": True}}
    head = {**base, "upstream": {**base["upstream"], "commit": "2" * 40}, "verification": {"verified": False},
            "license_source": "the repository's licence (GitHub API)"}
    assert _pointer_reasons(base, head) == []
    assert any("licence changed" in r for r in _pointer_reasons(base, {**head, "license": "NOASSERTION"}))


def test_a_require_license_setting_that_is_not_a_boolean_is_named(upstreams, reg, capsys):
    (reg / "skillyard.toml").write_text('name = "acme"\nrepository = "acme/reg"\nexternal_require_license = "yes"\n')
    code, _, err = run("external", "add", "github:bare/skills/skills/plain", "--root", str(reg), capsys=capsys)
    assert code != 0 and "skillyard.toml" in err and "`external_require_license`" in err and "true or false" in err
