"""The `skills` CLI from npm installs from the same folder `skill` does (issue 27, item 7): a static registry's
`skillyard site build --static-host` output, served by `python -m http.server` on 127.0.0.1. What it installs is
what the well-known index lists, byte for byte what `skill install` writes with no inputs given (SKILL.md with the
inputs' defaults filled in, every other file the registry's own bytes). A skill with an HTML and a JS file, which the
site's origin never serves one by one, installs too: the discovery index (schema 0.2.0) serves every skill as a
`.tar.gz`, which no browser runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.interop.clients import npm_install
from tests.interop.clients import run as run_client
from tests.site.test_served_tree import REPORT_FILES, Server, env_for, install_from, make_registry, run
from tests.site.wellknown import runnable_files


@pytest.fixture(scope="module")
def skills_cli(node22):
    cli = npm_install("skills") / "node_modules" / "skills" / "dist" / "cli.mjs"
    if not cli.is_file():
        pytest.skip(f"skills: {cli} is missing after npm install")
    return lambda *args, cwd, home: run_client([node22, cli, *args], cwd=cwd, timeout=300,
                                               env={"HOME": str(home), "PATH": f"{node22.parent}:/usr/bin:/bin"})


def test_npx_skills_and_skill_install_from_one_folder(skills_cli, tmp_path):
    env = env_for(tmp_path)
    root = make_registry(tmp_path, env)
    run(["skillyard", "site", "build", "--static-host", "--out", "_public"], root, env)
    server = Server(root / "_public")
    try:
        index = json.loads(server.get(".well-known/agent-skills/index.json"))
        assert sorted(s["name"] for s in index["skills"]) == ["changelog-entry", "html-widget", "report-writer"]
        assert runnable_files(root / "_public/.well-known/agent-skills") == []
        project = tmp_path / "project"
        project.mkdir()
        done = skills_cli("add", server.url, "--skill", "*", "--agent", "codex", "--copy", "-y", cwd=project,
                          home=tmp_path / "npm-home")
        assert done.returncode == 0, done.stdout + done.stderr
        by_npx = project / ".agents/skills/report-writer"
        by_skill = Path(install_from(f"{server.url}/registry.json", tmp_path / "user", "report-writer")["path"])
        for rel, data in REPORT_FILES.items():
            assert (by_npx / rel).read_bytes() == (by_skill / rel).read_bytes(), rel
            if rel != "SKILL.md":
                assert (by_npx / rel).read_bytes() == data, rel
        assert "friendly tone" in (by_npx / "SKILL.md").read_text(encoding="utf-8")
        assert (project / ".agents/skills/changelog-entry/SKILL.md").read_bytes() == \
            (root / "skills/changelog-entry/SKILL.md").read_bytes()
        widget = project / ".agents/skills/html-widget"
        for rel in ("SKILL.md", "skill.yaml", "assets/widget.html", "scripts/widget.js"):
            assert (widget / rel).read_bytes() == (root / "skills/html-widget" / rel).read_bytes(), rel
    finally:
        server.stop()
