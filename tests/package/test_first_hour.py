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
4. they write a skill: `skill init` -> `skill validate` (lenient, then strict) -> `skill publish --dry-run`;
5. `skillyard init-registry` starts a registry, their skill is added, and the `next:` steps it prints run for real
   (git init, add, commit, validate, build, site build); `skillyard external add` lists a skill.yaml-only
   repository from the GitHub stand-in (tests/support/gitserver.py); the site is rebuilt, statically served, and
   `skill` installs both skills from its sparse index, the own one byte for byte;
6. with the static server and the stand-in stopped, the same install in a new project and a restore of the
   project's lockfile still work, from the verified copies already on the machine, and say so.

Every step's exit code is asserted, and every command an output suggests (`skill …`/`skillyard …` in backticks,
the commands of a `next:` line) is checked to exist: its `--help`, in the same venv, exits 0.
`npx skills` installing from the served folder needs npm, so that step runs in the interop session (`nox -s
interop`): tests/interop/test_served_tree_npm.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.client_install.test_manifest_packages import MANIFEST
from tests.package.conftest import REPO, isolated_env
from tests.site.test_served_tree import Server
from tests.support.gitserver import GitServer

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
NOTES_DESCRIPTION = ("Turns rough meeting notes into a summary with decisions, owners and dates. Use when the user "
                     "pastes meeting notes or asks for minutes.")
# A suggested command: `skill …`/`skillyard …` in backticks, or a command of a "next:" line (joined with && or ;).
SUGGESTED = re.compile(r"`((?:skill|skillyard) [^`\n]*)`")
NEXT_LINE = re.compile(r"^\s*next:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
WORD = re.compile(r"[a-z][a-z0-9-]*\Z")  # a command word; an argument, option or placeholder ends them


@dataclass
class User:
    """One person's shell: the venv's scripts on PATH, HOME and XDG folders of their own."""

    bindir: Path
    env: dict
    said: list[str] = field(default_factory=list)  # every output, for the suggested commands

    def run(self, *argv: str, cwd: Path, ok: bool = True) -> subprocess.CompletedProcess:
        tool = self.bindir / argv[0]
        argv = (str(tool) if tool.exists() else argv[0], *argv[1:])
        done = subprocess.run(argv, cwd=cwd, env=self.env, capture_output=True, text=True, timeout=300)
        self.said.append(done.stdout + "\n" + done.stderr)
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
    skill = _write_a_skill(user, tmp_path)
    _start_a_registry(user, tmp_path, skill)
    _every_suggested_command_exists(user, tmp_path)


def suggestions(text: str) -> list[str]:
    """The `skill`/`skillyard` commands an output suggests: in backticks, or the commands of a `next:` line."""
    found = [m.group(1) for m in SUGGESTED.finditer(text)]
    for line in NEXT_LINE.finditer(text):
        for part in re.split(r"&&|;|, then ", line.group(1)):
            part = part.strip().strip("`").strip()
            if part.startswith(("skill ", "skillyard ")):
                found.append(part)
    return found


def command_words(command: str) -> tuple[str, ...]:
    """(program, command words…): the words up to the first argument, option or placeholder, at most three."""
    prog, *rest = command.split()
    words = []
    for token in rest[:3]:
        if not WORD.match(token):
            break
        words.append(token)
    return (prog, *words)


def test_suggestion_parsing():
    text = ("next: cd 'a b' && git init -q && skillyard validate && skillyard site build --out _site\n"
            "Next: edit SKILL.md, then run `skillyard validate --strict notes`.\n  fix: `skill config set "
            "install.strict false`, or `skill <name>`")
    assert [command_words(c) for c in suggestions(text)] == [
        ("skillyard", "validate"), ("skill", "config", "set"), ("skill",), ("skillyard", "validate"),
        ("skillyard", "site", "build")]


def _every_suggested_command_exists(user: User, cwd: Path) -> None:
    commands = {command_words(c) for text in user.said for c in suggestions(text)}
    commands = {c for c in commands if len(c) > 1}  # a bare placeholder (`skill <name>`) names no command
    # what the journey's own outputs are known to suggest: the parse must find them (or it checks nothing)
    assert {("skillyard", "validate"), ("skillyard", "build"), ("skillyard", "site", "build"), ("skill", "validate"),
            ("skill", "publish"), ("skill", "install", "meeting-notes")} <= commands, commands
    missing = []
    for command in sorted(commands):
        done = user.run(*command, "--help", cwd=cwd, ok=False)
        if done.returncode != 0 or "usage:" not in done.stdout:
            missing.append(" ".join(command))
    assert not missing, f"suggested commands that do not exist: {missing}"


def _use_a_registry(user: User, tmp_path: Path, home: Path, public: Path, url: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    added = user.run("skill", "source", "add", f"{url}/registry.json", "--default", cwd=project)
    assert "added source 'public-skills'" in added.stdout  # named after the registry's own name
    sources = user.json("skill", "source", "list", cwd=project)
    assert [s["name"] for s in sources["sources"]] == ["public-skills"], sources  # the built-in one retired

    found = user.run("skill", "search", "发票", cwd=project)
    assert "invoice-processor" in found.stdout and not found.stderr.strip()
    info = user.run("skill", "info", "invoice-processor", cwd=project).stdout
    assert "invoice-processor" in info and "1.0.0" in info and "ocr.recognize" in info, info

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


def _write_a_skill(user: User, tmp_path: Path) -> Path:
    """`skill init` with a real description, checked as the registry's CI will check it, and the PR it would open."""
    work = tmp_path / "work"
    work.mkdir()
    made = user.run("skill", "init", "meeting-notes", "--description", NOTES_DESCRIPTION, cwd=work)
    assert "Created meeting-notes" in made.stdout
    folder = work / "meeting-notes"
    (folder / "scripts").mkdir()
    (folder / "scripts/owners.py").write_bytes(NOTES_FILES["scripts/owners.py"])
    checked = user.run("skill", "validate", "meeting-notes", cwd=work)
    assert "valid" in checked.stdout
    user.run("skill", "validate", "--strict", "meeting-notes", cwd=work)
    plan = user.run("skill", "publish", "meeting-notes", "--dry-run", cwd=work)
    assert "skill install meeting-notes" in plan.stdout  # the PR body it would send
    return folder


def _start_a_registry(user: User, tmp_path: Path, skill: Path) -> None:
    made = user.run("skillyard", "init-registry", "team-skills", "--host", "static", "--description",
                    "Our team's skills", cwd=tmp_path)
    (next_line,) = [line for line in made.stdout.splitlines() if line.startswith("next: ")]
    root = tmp_path / "team-skills"
    shutil.copytree(skill, root / "skills/meeting-notes")
    user.run("bash", "-c", next_line.removeprefix("next: "), cwd=tmp_path)  # the printed steps, for real
    assert (root / "_site/index.html").is_file() and not (root / "_site").is_symlink()
    listed = json.loads((root / "registry.json").read_text(encoding="utf-8"))["skills"]
    assert "meeting-notes" in {entry["name"] for entry in listed}  # beside the example skill init-registry wrote

    github = GitServer(tmp_path / "github").start()  # the GitHub stand-in: REST API, codeload, raw
    try:
        _list_an_external_skill(user, github, root)
        _install_from_the_static_site(user, tmp_path, root, skill)
    finally:
        github.stop()
    _install_with_the_servers_stopped(user, tmp_path, skill)


def _list_an_external_skill(user: User, github: GitServer, root: Path) -> None:
    """design 000's skill.yaml-only invoice-processor, kept in its own repository, listed by pointer."""
    github.create_repo("sga", "invoice-processor", {"skill.yaml": MANIFEST})
    user.env.update(SKILL_GITHUB_API_URL=github.url, SKILL_GITHUB_CODELOAD_URL=github.url,
                    SKILL_GITHUB_RAW_URL=github.url)
    added = user.json("skillyard", "external", "add", "github:sga/invoice-processor", cwd=root)
    assert added["name"] == "invoice-processor" and added["license"] == "MIT", added
    for argv in (["git", "add", "-A"], ["git", "commit", "-qm", "invoice-processor by pointer"],
                 ["skillyard", "validate"], ["skillyard", "build"], ["skillyard", "site", "build", "--out", "_site"]):
        user.run(*argv, cwd=root)


def _install_from_the_static_site(user: User, tmp_path: Path, root: Path, skill: Path) -> None:
    server = Server(root / "_site", python=str(user.bindir / "python"))
    try:
        project = tmp_path / "team-project"
        project.mkdir()
        user.run("skill", "source", "add", f"{server.url}/sparse/index.json", "--name", "team", cwd=project)
        result = user.json("skill", "install", "meeting-notes", "--project", cwd=project)
        (entry,) = result["skills"]
        assert entry["status"] == "installed"
        assert tree_bytes(Path(entry["path"]), skip=("skill.lock.json",)) == tree_bytes(skill)
        # --source: the README's invoice-processor of the first registry (now stopped) has the same name
        done = user.run("skill", "install", "invoice-processor", "--source", "team", "--project", "--skip-deps-check",
                        cwd=project)
        assert "installed invoice-processor 1.2.0" in done.stdout
        generated = (project / ".agents/skills/invoice-processor/SKILL.md").read_text(encoding="utf-8")
        assert generated.startswith("---\nname: invoice-processor\n")  # skill.yaml-only: SKILL.md generated
        assert server.get(".well-known/agent-skills/index.json")  # what `npx skills add URL` reads (interop test)
        for name in ("meeting-notes", "invoice-processor"):  # and for themselves, in their home
            user.run("skill", "install", name, "--source", "team", "--skip-deps-check", cwd=project)
    finally:
        server.stop()


def _install_with_the_servers_stopped(user: User, tmp_path: Path, skill: Path) -> None:
    """Nothing listens any more: the cached index and the verified copies in their home still install a new
    project's skill and restore a clone's lockfile (client/local_copy.py reads the project's and the home's)."""
    again = tmp_path / "offline-project"
    again.mkdir()
    done = user.run("skill", "install", "meeting-notes", "--project", cwd=again)
    assert "installed meeting-notes" in done.stdout  # the index from the cache, every file from the home's copy
    assert tree_bytes(again / ".agents/skills/meeting-notes", skip=("skill.lock.json",)) == tree_bytes(skill)
    clone = tmp_path / "offline-clone"
    clone.mkdir()
    shutil.copy2(tmp_path / "team-project/skills.lock.json", clone / "skills.lock.json")
    restored = user.run("skill", "install", cwd=clone)
    assert "installed meeting-notes" in restored.stdout and "installed invoice-processor" in restored.stdout
    for name, home_copy in (("meeting-notes", skill), ("invoice-processor", None)):
        restored_copy = clone / ".agents/skills" / name
        assert (restored_copy / "SKILL.md").is_file()
        if home_copy is not None:
            assert tree_bytes(restored_copy, skip=("skill.lock.json",)) == tree_bytes(home_copy)
