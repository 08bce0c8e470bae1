"""The `skills` CLI from npm (vercel-labs/skills) lists and installs from our built site served on 127.0.0.1, and
what it installs is byte for byte what we serve: each skill's `.tar.gz` the well-known index (discovery schema
0.2.0) lists."""

from __future__ import annotations

import json
import urllib.request

import pytest
from tests.interop.clients import npm_install, run
from tests.site.wellknown import served_archives


@pytest.fixture(scope="module")
def skills_cli(node22):
    cli = npm_install("skills") / "node_modules" / "skills" / "dist" / "cli.mjs"
    if not cli.is_file():
        pytest.skip(f"skills: {cli} is missing after npm install")
    return lambda *args, cwd, home: run([node22, cli, *args], cwd=cwd, timeout=300,
                                        env={"HOME": str(home), "PATH": f"{node22.parent}:/usr/bin:/bin"})


def _index(site_url: str) -> dict:
    with urllib.request.urlopen(f"{site_url}/.well-known/agent-skills/index.json", timeout=30) as response:
        return json.load(response)


def test_lists_every_served_skill(skills_cli, site_url, tmp_path):
    names = [s["name"] for s in _index(site_url)["skills"]]
    assert names
    done = skills_cli("add", site_url, "--list", cwd=tmp_path, home=tmp_path / "home")
    assert done.returncode == 0, done.stdout + done.stderr
    missing = [n for n in names if n not in done.stdout]
    assert not missing, f"not listed: {missing}\n{done.stdout}"


def test_installs_every_skill_byte_for_byte(skills_cli, site_url, built_repo, tmp_path):
    index = _index(site_url)
    project = tmp_path / "project"
    project.mkdir()
    done = skills_cli("add", site_url, "--skill", "*", "--agent", "codex", "--copy", "-y", cwd=project,
                      home=tmp_path / "home")
    assert done.returncode == 0, done.stdout + done.stderr
    archives = served_archives(built_repo / "_site/.well-known/agent-skills")
    assert sorted(archives) == sorted(entry["name"] for entry in index["skills"])
    for name, files in archives.items():
        installed = project / ".agents/skills" / name
        got = {str(p.relative_to(installed)): p.read_bytes() for p in installed.rglob("*") if p.is_file()}
        assert got == files, name
