"""Issue 12 acceptance and item 4: from the BUILT WHEEL in a fresh venv outside the checkout, `skillyard
init-registry` -> add a skill -> validate, build, site build -> serve with `python -m http.server` -> `skill source
add http://127.0.0.1:PORT/registry.json` -> `skill install` -> the installed bytes are the source bytes.

A static host serves the registry's built tree as-is (site/pages/registry-json.md: registry.json with the skills
folder beside it, skill paths relative to it), which is the registry folder itself after `skillyard build`; so
that folder is what is served. Also: the sdist carries everything the wheel needs."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from tests.package.conftest import REPO, run_ok

pytestmark = pytest.mark.slow

SKILL_MD = """\
---
name: release-checklist
description: Walks through a release step by step - version bump, changelog, tag, build, publish and announce - and checks each step before the next. Use when the user is about to cut a release of a library or app.
license: Apache-2.0
---

# Release checklist

1. Confirm the version number with the user and bump it where the project keeps it.
2. Make sure CHANGELOG.md has an entry for it (run `python scripts/check_changelog.py VERSION`).
3. Tag, build and publish; then announce the release where the project usually does.
"""
SKILL_YAML = 'schema_version: "1.0"\nversion: "0.2.0"\ntags: [release, checklist]\n'
SCRIPT = b'import sys\nprint("## [" + sys.argv[1] + "]" in open("CHANGELOG.md").read())\n'


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def serve():
    """`python -m http.server` on a free 127.0.0.1 port serving a folder; yields a starter returning the base URL."""
    procs = []

    def start(folder: Path) -> str:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                 "--directory", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(proc)
        base = f"http://127.0.0.1:{port}"
        for _ in range(200):
            try:
                urllib.request.urlopen(base + "/registry.json", timeout=1).close()
                return base
            except OSError:
                time.sleep(0.05)
        pytest.fail("http.server did not start")

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def test_own_registry_end_to_end_from_the_built_wheel(installed, tmp_path, serve):
    env = {**installed.env, "HOME": str(tmp_path / "home"), "SKILLCLI_HOME": str(tmp_path / "skillhome"),
           **{f"XDG_{kind}_HOME": str(tmp_path / "xdg" / kind.lower()) for kind in ("CACHE", "CONFIG", "DATA")}}
    skillyard, skill = installed.tool("skillyard"), installed.tool("skill")
    where = run_ok([installed.tool("python"), "-c", "import skillyard; print(skillyard.__file__)"], tmp_path, env)
    assert not Path(where.stdout.strip()).resolve().is_relative_to(REPO)  # the wheel's copy, not the checkout

    report = json.loads(run_ok([skillyard, "init-registry", "team-skills", "--host", "static",
                                "--description", "Our team's skills", "--json"], tmp_path, env).stdout)
    root = tmp_path / "team-skills"
    assert report["ok"] and "skills/changelog-entry/SKILL.md" in report["written"]
    assert any(rel.startswith(".github/workflows/") for rel in report["written"])

    added = root / "skills" / "release-checklist"
    (added / "scripts").mkdir(parents=True)
    (added / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (added / "skill.yaml").write_text(SKILL_YAML, encoding="utf-8")
    (added / "scripts" / "check_changelog.py").write_bytes(SCRIPT)

    run_ok(["git", "init", "-q", "-b", "main"], root, env)
    out = run_ok([skillyard, "validate"], root, env).stdout
    assert "2 skill(s): 2 valid" in out and "0 error(s), 0 warning(s)" in out
    run_ok([skillyard, "build"], root, env)
    run_ok([skillyard, "site", "build", "--out", "_site"], root, env)
    registry = json.loads((root / "registry.json").read_text(encoding="utf-8"))
    assert registry["repository"]["raw_url_template"] == "{path}"
    assert sorted(s["name"] for s in registry["skills"]) == ["changelog-entry", "release-checklist"]
    assert (root / "_site" / "skills" / "release-checklist" / "index.html").is_file()

    url = serve(root) + "/registry.json"
    run_ok([skill, "source", "add", url, "--name", "team"], tmp_path, env)
    for name in ("release-checklist", "changelog-entry"):
        result = json.loads(run_ok([skill, "install", name, "--json"], tmp_path, env).stdout)
        (entry,) = result["skills"]
        assert entry["status"] == "installed" and entry["source"]["url"] == url
        folder = Path(entry["path"])
        assert folder.is_relative_to(tmp_path / "home")
        source = root / "skills" / name
        expected = sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file())
        assert sorted(f["path"] for f in entry["files"]) == expected
        for rel in expected:
            assert (folder / rel).read_bytes() == (source / rel).read_bytes(), rel


def test_sdist_carries_everything_the_wheel_needs(dists):
    with tarfile.open(dists.sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    with zipfile.ZipFile(dists.wheel) as archive:
        wheel = set(archive.namelist())
    package = REPO / "tools" / "skillyard"
    data = [Path(folder, name) for folder, dirs, files in os.walk(package, followlinks=True) for name in files
            if "__pycache__" not in folder and not name.endswith(".pyc")]
    assert any(p.name == "registry.schema.json" for p in data)  # schemas/ is reached through its symlink
    for path in data:
        rel = path.relative_to(package.parent).as_posix()
        assert f"tools/{rel}" in names, f"sdist lacks tools/{rel}"
        assert rel in wheel, f"wheel lacks {rel}"
    for wanted in ("skillyard/registry/init_template/workflows/validate.yml",
                   "skillyard/registry/init_template/dot-github/pull_request_template.md",
                   "skillyard/registry/init_template/skills/changelog-entry/skill.yaml",
                   "skillyard/site/defaults/mkdocs.yml", "skillyard/site/theme/overrides/search.html",
                   "skillyard/schemas/skill-yaml.schema.json"):
        assert wanted in wheel, wanted
