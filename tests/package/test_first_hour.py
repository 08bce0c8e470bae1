"""Issue 27's acceptance: a newcomer's first hour, end to end, as a user would live it, with nothing but the console
scripts of a fresh venv that holds the wheel built from our sdist (tests/package/conftest.py; this module lives
here to share that session's wheel with the install-route tests instead of building it twice), an own HOME and
XDG folders in tmp, and servers on 127.0.0.1 (nothing else is contacted: the built-in source is retired by the
first `skill source add --default`, as site/pages/own-registry.md tells users to do).

1. a registry holding the README's headline skill (invoice-processor, whose description has 发票) is served with
   `python -m http.server` from the tree `skillyard build --serve-dir` writes;
2. `skill source add URL --default` -> `skill search 发票` finds it -> the README's exact `skill install
   invoice-processor --target claude-code --input confirm_threshold=5000` succeeds with no MCP hub, with one
   warning -> a `--project` install writes skills.lock.json -> `skill list`, `skill outdated`;
3. the registry publishes 1.1.0 -> `skill outdated` shows it -> `skill update --all` updates both scopes (the
   input given at install kept) -> `skill uninstall` -> `skill install` in a new folder restores skills.lock.json
   as the install did (deps unchecked, one warning);
4. `skillyard init-registry` starts a registry, a skill is added and committed, `skillyard site build
   --static-host` writes its one served folder, which is served, and `skill` installs from its sparse index byte
   for byte. `npx skills` installing from that same kind of folder needs npm, so that step runs in the interop
   session (`nox -s interop`): tests/interop/test_served_tree_npm.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.package.conftest import REPO, isolated_env
from tests.site.test_served_tree import Server

pytestmark = pytest.mark.slow

README_INSTALL = ["install", "invoice-processor", "--target", "claude-code", "--input", "confirm_threshold=5000"]
GIT = {"GIT_AUTHOR_NAME": "Newcomer", "GIT_AUTHOR_EMAIL": "new@skillyard.invalid", "GIT_COMMITTER_NAME": "Newcomer",
       "GIT_COMMITTER_EMAIL": "new@skillyard.invalid"}
NOTES_MD = """\
---
name: meeting-notes
description: Turns rough meeting notes into a summary with decisions, owners and dates. Use when the user pastes meeting notes or asks for minutes.
license: MIT
---

# Meeting notes

1. Read the notes once, then list every decision with its owner and date.
2. Run `python scripts/owners.py NOTES.md` to find names with no task.
"""
NOTES_FILES = {"SKILL.md": NOTES_MD.encode(), "skill.yaml": b'schema_version: "1.0"\nversion: "0.1.0"\ntags: [notes]\n',
               "scripts/owners.py": b"import re, sys\nprint(sorted(set(re.findall(r'@(\\w+)', open(sys.argv[1]).read()))))\n"}


@dataclass
class User:
    """One person's shell: the venv's scripts on PATH, HOME and XDG folders of their own."""

    bindir: Path
    env: dict

    def run(self, *argv: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
        tool = self.bindir / argv[0]
        argv = (str(tool) if tool.exists() else argv[0], *argv[1:])
        done = subprocess.run(argv, cwd=cwd, env=self.env, capture_output=True, text=True, timeout=300)
        if ok:
            assert done.returncode == 0, f"{argv}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        return done

    def json(self, *argv: str, cwd: Path, code: int = 0) -> dict:
        done = self.run(*argv, "--json", cwd=cwd, ok=False)
        assert done.returncode == code, f"{argv}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        return json.loads(done.stdout)


def tree_bytes(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name not in skip}


def deps_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: MCP tool(s)")]


def test_a_newcomers_first_hour(installed, tmp_path):
    env = isolated_env(tmp_path, installed.bindir)
    env.pop("SKILL_DEFAULT_SOURCE")  # a newcomer has the built-in source; `source add --default` retires it
    env.update(GIT)
    user = User(installed.bindir, env)
    home = Path(env["HOME"])
    where = user.run("python", "-c", "import skillyard; print(skillyard.__file__)", cwd=tmp_path).stdout
    assert not Path(where.strip()).resolve().is_relative_to(REPO)  # the wheel's copy, not the checkout

    # 1. the registry they will read: the README's headline skill, served as a static host serves it
    public = tmp_path / "public"
    user.run("skillyard", "init-registry", str(public), "--name", "public-skills", "--host", "static",
             "--description", "Skills for everyone", cwd=tmp_path)
    shutil.copytree(REPO / "skills" / "invoice-processor", public / "skills" / "invoice-processor")
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "skills"]):
        user.run(*argv, cwd=public)
    user.run("skillyard", "validate", cwd=public)
    user.run("skillyard", "build", "--serve-dir", "_registry", cwd=public)
    server = Server(public / "_registry", python=str(installed.bindir / "python"))
    try:
        _use_a_registry(user, tmp_path, home, public, server.url)
    finally:
        server.stop()
    _start_a_registry(user, tmp_path)


def _use_a_registry(user: User, tmp_path: Path, home: Path, public: Path, url: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    added = user.run("skill", "source", "add", f"{url}/registry.json", "--default", cwd=project)
    assert "added source 'public-skills'" in added.stdout  # named after the registry's own name
    sources = user.json("skill", "source", "list", cwd=project)
    assert [s["name"] for s in sources["sources"]] == ["public-skills"], sources  # the built-in one retired

    found = user.run("skill", "search", "发票", cwd=project)
    assert "invoice-processor" in found.stdout and not found.stderr.strip()

    done = user.run("skill", *README_INSTALL, cwd=project)  # no MCP hub configured: installs, warns once
    assert "installed invoice-processor 1.0.0" in done.stdout
    (warning,) = deps_warnings(done.stderr)
    assert "ocr.recognize" in warning and "kb.upload" in warning and "installed anyway" in warning
    user_copy = home / ".agents/skills/invoice-processor"
    assert "`5000`" in (user_copy / "SKILL.md").read_text(encoding="utf-8")  # the input given, filled in
    assert (home / ".claude/skills/invoice-processor").resolve() == user_copy.resolve()
    source = public / "skills" / "invoice-processor"
    for rel in ("scripts/invoice_fields.py", "references/fields.md", "skill.yaml"):
        assert (user_copy / rel).read_bytes() == (source / rel).read_bytes(), rel

    done = user.run("skill", "install", "invoice-processor", "--project", "--target", "claude-code", cwd=project)
    assert len(deps_warnings(done.stderr)) == 1
    lock = json.loads((project / "skills.lock.json").read_text(encoding="utf-8"))
    entry = lock["skills"]["invoice-processor"]
    assert entry["version"] == "1.0.0" and entry["deps"]["status"] == "unchecked"

    listed = user.run("skill", "list", cwd=project).stdout.splitlines()
    assert listed[0].startswith("scope:") and listed[1].split()[:3] == ["NAME", "VERSION", "SCOPE"]
    rows = [line.split()[:3] for line in listed[2:]]
    assert sorted(rows) == [["invoice-processor", "1.0.0", "project"], ["invoice-processor", "1.0.0", "user"]]
    assert "up to date" in user.run("skill", "outdated", cwd=project).stdout

    # 2. the registry publishes a newer version
    yaml_path = source / "skill.yaml"
    yaml_path.write_text(yaml_path.read_text(encoding="utf-8").replace('version: "1.0.0"', 'version: "1.1.0"'),
                         encoding="utf-8")
    with (source / "SKILL.md").open("a", encoding="utf-8") as file:
        file.write("\n## New in 1.1.0\n\nDuplicate checks also compare the buyer's tax number.\n")
    user.run("git", "commit", "-qam", "invoice-processor 1.1.0", cwd=public)
    user.run("skillyard", "build", "--serve-dir", "_registry", cwd=public)

    outdated = user.json("skill", "outdated", cwd=project, code=1)  # 1: updates exist, as `npm outdated`
    states = sorted((row["scope"], row["installed"], row["latest"]) for row in outdated["skills"])
    assert states == [("project", "1.0.0", "1.1.0"), ("user", "1.0.0", "1.1.0")], outdated
    done = user.run("skill", "update", "--all", cwd=project)
    assert done.stdout.count("1.0.0 → 1.1.0") == 2
    assert "buyer's tax number" in (user_copy / "SKILL.md").read_text(encoding="utf-8")
    assert "`5000`" in (user_copy / "SKILL.md").read_text(encoding="utf-8")  # the install's input kept
    assert "up to date" in user.run("skill", "outdated", cwd=project).stdout
    lock_bytes = (project / "skills.lock.json").read_bytes()
    assert json.loads(lock_bytes)["skills"]["invoice-processor"]["version"] == "1.1.0"

    # 3. uninstall both, then a teammate's fresh clone restores the project from its lockfile
    refused = user.run("skill", "uninstall", "invoice-processor", cwd=project, ok=False)
    assert refused.returncode != 0 and "--user" in refused.stderr  # in both scopes: it asks which
    assert user_copy.is_dir()
    user.run("skill", "uninstall", "invoice-processor", "--user", cwd=project)
    user.run("skill", "uninstall", "invoice-processor", "--project", cwd=project)
    assert not user_copy.exists() and not os.path.lexists(home / ".claude/skills/invoice-processor")
    assert not (project / ".agents/skills/invoice-processor").exists()
    assert "invoice-processor" not in user.run("skill", "list", cwd=project).stdout

    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "skills.lock.json").write_bytes(lock_bytes)
    done = user.run("skill", "install", cwd=clone)  # no arguments: restore what the lock lists
    assert "installed invoice-processor 1.1.0" in done.stdout and len(deps_warnings(done.stderr)) == 1
    restored = clone / ".agents/skills/invoice-processor"
    assert tree_bytes(restored, skip=("skill.lock.json",)).keys() >= {"SKILL.md", "skill.yaml",
                                                                       "scripts/invoice_fields.py"}
    assert (restored / "scripts/invoice_fields.py").read_bytes() == (source / "scripts/invoice_fields.py").read_bytes()
    assert (clone / ".claude/skills/invoice-processor").resolve() == restored.resolve()


def _start_a_registry(user: User, tmp_path: Path) -> None:
    report = user.json("skillyard", "init-registry", "team-skills", "--host", "static", "--description",
                       "Our team's skills", cwd=tmp_path)
    assert report["ok"]
    root = tmp_path / "team-skills"
    for rel, data in NOTES_FILES.items():
        (root / "skills/meeting-notes" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "skills/meeting-notes" / rel).write_bytes(data)
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-qm", "A registry"]):
        user.run(*argv, cwd=root)
    user.run("skillyard", "validate", cwd=root)
    user.run("skillyard", "build", cwd=root)
    built = user.run("skillyard", "site", "build", "--static-host", "--out", "_site", cwd=root)
    assert "_site" in built.stdout and not (root / "_site").is_symlink()
    server = Server(root / "_site", python=str(user.bindir / "python"))
    try:
        project = tmp_path / "team-project"
        project.mkdir()
        user.run("skill", "source", "add", f"{server.url}/sparse/index.json", "--name", "team", cwd=project)
        result = user.json("skill", "install", "meeting-notes", "--project", cwd=project)
        (entry,) = result["skills"]
        assert entry["status"] == "installed"
        assert tree_bytes(Path(entry["path"]), skip=("skill.lock.json",)) == NOTES_FILES
        assert server.get(".well-known/agent-skills/index.json")  # what `npx skills add URL` reads (interop test)
    finally:
        server.stop()
