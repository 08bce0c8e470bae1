"""The `skill` client's local state under attack: kills at every step, hostile names, and secrets.

Safe outcomes asserted: after a kill at ANY rename/write and the next command's recovery, the installed folder,
its skill.lock.json, the project's skills.lock.json and the runtime links all describe the same version (the old
one or the new one) with no leftovers; hostile names are refused with a message and a non-zero exit, never a
traceback, and nothing is written; a token never reaches config.yaml or any output.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.fixtures import *  # noqa: F403 - the skill_home and skill_cli fixtures
from tests.support.fixtures import CliResult
from tests.support.registry import skill_md

ROOT = Path(__file__).resolve().parents[2]
NAME = "demo"


# ---------------------------------------------------------------------------------------------- helpers


def make_skill(folder: Path, version: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_md(NAME, "A demo skill for crash tests.", version=version,
                                              license="MIT"), encoding="utf-8")
    (folder / "references").mkdir(exist_ok=True)
    (folder / "references" / "notes.md").write_text(f"# Notes {version}\n{extra}", encoding="utf-8")
    if version != "1.0.0":
        (folder / "references" / "new.md").write_text("# New\n", encoding="utf-8")
    return folder


def do_install(project: Path, source: Path, *, force: bool = False, copy: bool = False):
    from skillyard.client import install as inst

    opts = inst.Options(scope="project", project_root=project, home=project.parent / "home",
                        targets=["claude-code", "agents"], force=force, copy=copy)
    return inst.install(inst.from_local(source), opts, None)


def do_uninstall(project: Path):
    from skillyard.cli.skill_cmds.uninstall import uninstall

    return uninstall(NAME, scope="project", project_root=project, home=project.parent / "home")


def recover(project: Path) -> None:
    """What every mutating command does first: finish journaled work, then sweep leftovers."""
    from skillyard.client import install as inst
    from skillyard.client import store

    with store.store_lock(project):
        inst.recover(project)
        store.sweep(project)


def state(project: Path) -> str | None:
    """The one version every piece of local state agrees on (None: not installed); fails on any disagreement."""
    from skillyard.client import lockfile, store

    folder = store.canonical_dir(project, NAME)
    skills = store.skills_dir(project)
    leftovers = [e.name for e in skills.iterdir() if e.name.startswith((".staging-", ".retired-", ".journal-"))] \
        if skills.is_dir() else []
    assert leftovers == [], leftovers
    assert not list(project.glob(".skills.lock.json.*.tmp"))
    project_lock = lockfile.read_project_lock(project)
    listed = project_lock["skills"].get(NAME) if project_lock else None
    link = project / ".claude" / "skills" / NAME
    if not os.path.lexists(folder):
        assert listed is None, "skills.lock.json lists a skill whose folder is gone"
        assert not os.path.lexists(link), "a runtime link was left behind"
        return None
    lock = lockfile.read_skill_lock(folder)
    assert store.edited_files(folder, lock["files"]) == [], "the folder does not hold what its lock lists"
    assert not list(folder.glob(".skill.lock.json.*"))
    assert listed is not None and listed["version"] == lock["version"], (listed, lock["version"])
    assert listed["files"] == lock["files"]
    placed = {t["target"]: t for t in lock["targets"]}["claude-code"]
    if placed["mode"] == "copy":  # a full copy, marked as ours, holding exactly the same files
        assert not os.path.islink(link) and (link / ".skillyard-placed").is_file()
        assert store.edited_files(link, lock["files"]) == [".skillyard-placed"]
    else:
        assert os.path.islink(link) and Path(os.path.realpath(link)) == Path(os.path.realpath(folder)), \
            "the runtime link dangles or points elsewhere"
    assert not [e for e in link.parent.iterdir() if e.name.startswith(".")], "placement leftovers"
    assert {t["target"] for t in lock["targets"]} == {"claude-code", "agents"}
    return lock["version"]


class Killed(BaseException):
    """The simulated kill: not an Exception, so no `except Exception` cleanup runs, like SIGKILL."""


STEPS = [(os, "rename"), (os, "replace"), (os, "symlink"), (os, "unlink"), (shutil, "rmtree")]


def arm(monkeypatch, at: int) -> list:
    """Count every rename, replace, link, unlink and tree removal; "die" at the `at`-th one and stay dead (every
    later step raises too, so no cleanup handler can undo what a real kill would have left)."""
    fired: list = []

    for module, attr in STEPS:
        real = getattr(module, attr)

        def step(*args, _real=real, _attr=attr, **kwargs):
            fired.append(_attr)
            if len(fired) >= at:
                raise Killed(f"killed at step {at} ({_attr})")
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, attr, step)
    return fired


def kill_everywhere(tmp_path, monkeypatch, setup, operation, before: str | None, after: str | None) -> set:
    """Run `operation` killed at step 1, 2, ... until it completes; after each kill, recover and check state."""
    seen: set = set()
    for at in range(1, 200):
        project = tmp_path / f"p{at}"
        project.mkdir()
        setup(project)
        assert state(project) == before
        with monkeypatch.context() as patch:
            arm(patch, at)
            try:
                operation(project)
                completed = True
            except Killed:
                completed = False
        recover(project)
        version = state(project)
        assert version in (before, after), f"kill at step {at}: state {version!r}"
        seen.add(version)
        if completed:
            assert version == after
            return seen
    raise AssertionError("the operation never completed")


@pytest.fixture
def sources(tmp_path):
    return make_skill(tmp_path / "src" / "v1" / NAME, "1.0.0"), make_skill(tmp_path / "src" / "v2" / NAME, "2.0.0")


# ---------------------------------------------------------------------------------------------- 9: crash safety


def test_a_kill_at_any_step_of_an_install_leaves_nothing_or_everything(tmp_path, monkeypatch, skill_home, sources):
    v1, _ = sources
    seen = kill_everywhere(tmp_path, monkeypatch, lambda p: None, lambda p: do_install(p, v1), None, "1.0.0")
    assert seen == {None, "1.0.0"}  # both outcomes were reached: the kill points span the whole install


def test_a_kill_at_any_step_of_an_update_keeps_both_lockfiles_on_one_version(tmp_path, monkeypatch, skill_home,
                                                                           sources):
    v1, v2 = sources
    seen = kill_everywhere(tmp_path, monkeypatch, lambda p: do_install(p, v1), lambda p: do_install(p, v2),
                           "1.0.0", "2.0.0")
    assert seen == {"1.0.0", "2.0.0"}


def test_a_kill_at_any_step_of_an_update_with_copies_keeps_the_copy_in_step(tmp_path, monkeypatch, skill_home,
                                                                           sources):
    v1, v2 = sources
    seen = kill_everywhere(tmp_path, monkeypatch, lambda p: do_install(p, v1, copy=True),
                           lambda p: do_install(p, v2, copy=True), "1.0.0", "2.0.0")
    assert seen == {"1.0.0", "2.0.0"}


def test_skill_update_after_a_kill_finishes_the_killed_change_first(tmp_path, monkeypatch, skill_home, sources,
                                                                     skill_cli):
    v1, v2 = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    with monkeypatch.context() as patch, pytest.raises(Killed):
        arm(patch, 3)  # journal written, old folder moved aside: the skill's folder is missing right now
        do_install(project, v2)
    assert not (project / ".agents" / "skills" / NAME).exists()
    listed = skill_cli("list", "--project-dir", str(project), "--json")
    assert json.loads(listed.out)["pending"] == [NAME]
    result = skill_cli("update", NAME, "--project-dir", str(project), "--json")
    assert result.code == 0, result.err
    assert state(project) == "2.0.0"


def test_a_kill_at_any_step_of_a_forced_reinstall_keeps_the_skill(tmp_path, monkeypatch, skill_home, sources):
    v1, _ = sources
    seen = kill_everywhere(tmp_path, monkeypatch, lambda p: do_install(p, v1),
                           lambda p: do_install(p, v1, force=True), "1.0.0", "1.0.0")
    assert seen == {"1.0.0"}


def test_a_kill_at_any_step_of_an_uninstall_never_leaves_a_lock_entry_without_its_folder(tmp_path, monkeypatch,
                                                                                       skill_home, sources):
    v1, _ = sources
    seen = kill_everywhere(tmp_path, monkeypatch, lambda p: do_install(p, v1), do_uninstall, "1.0.0", None)
    assert None in seen


def test_recovery_keeps_the_users_notes_across_a_killed_update(tmp_path, monkeypatch, skill_home, sources):
    from skillyard.client import store

    v1, v2 = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    notes = store.canonical_dir(project, NAME) / "evolution.json"
    notes.write_text('{"notes": []}\n', encoding="utf-8")
    with monkeypatch.context() as patch:
        fired = arm(patch, 10_000)
        do_install(project, v2)
        total = len(fired)
    project2 = tmp_path / "p2"
    project2.mkdir()
    do_install(project2, v1)
    (store.canonical_dir(project2, NAME) / "evolution.json").write_text('{"notes": []}\n', encoding="utf-8")
    with monkeypatch.context() as patch, pytest.raises(Killed):
        arm(patch, total // 2)  # mid-swap
        do_install(project2, v2)
    recover(project2)
    assert (store.canonical_dir(project2, NAME) / "evolution.json").read_text() == '{"notes": []}\n'


def test_a_swap_killed_without_a_journal_is_rolled_back_not_swept(tmp_path, skill_home, sources):
    """The reported bug, as an older client left it: the old folder in `.retired-*`, a partial `.staging-*`, no
    folder, and skills.lock.json still listing the skill. The next command puts the old version back."""
    from skillyard.client import store

    v1, _ = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    folder = store.canonical_dir(project, NAME)
    os.rename(folder, folder.parent / f".retired-{NAME}-4242-0badc0de")
    (folder.parent / f".staging-{NAME}-k2j3h4g5").mkdir()
    (folder.parent / f".staging-{NAME}-k2j3h4g5" / "SKILL.md").write_text("half")
    recover(project)
    assert state(project) == "1.0.0"


def test_a_damaged_retired_folder_is_not_put_back(tmp_path, skill_home, sources):
    from skillyard.client import store

    v1, _ = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    folder = store.canonical_dir(project, NAME)
    retired = folder.parent / f".retired-{NAME}-4242-0badc0de"
    os.rename(folder, retired)
    (retired / "references" / "notes.md").unlink()  # a removal was under way
    (project / "skills.lock.json").unlink()
    shutil.rmtree(project / ".claude")
    recover(project)
    assert state(project) is None


def test_a_folder_with_a_hostile_name_is_not_listed_or_printed(tmp_path, skill_home, sources, skill_cli):
    from skillyard.client import store

    v1, _ = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    evil = store.skills_dir(project) / "evil\x1b[2Jname"
    shutil.copytree(store.canonical_dir(project, NAME), evil)
    listed = skill_cli("list", "--project-dir", str(project))
    assert listed.code == 0 and "\x1b" not in listed.out + listed.err and NAME in listed.out
    assert store.installed_names(project) == [NAME]


def test_a_tampered_skill_lock_cannot_make_uninstall_delete_other_files(tmp_path, skill_home, sources, skill_cli):
    """skill.lock.json may be committed to a project: its `targets` are only trusted where the target table agrees."""
    from skillyard.client import lockfile, store

    v1, _ = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    victim = tmp_path / "victim"
    (victim / "copied").mkdir(parents=True)
    (victim / "copied" / ".skillyard-placed").write_text("{}")
    (victim / "copied" / "data.txt").write_text("mine")
    (victim / "tools.json").write_text("mine")
    os.symlink(victim, tmp_path / "my-link")
    folder = store.canonical_dir(project, NAME)
    lock = lockfile.read_skill_lock(folder)
    lock["targets"] += [
        {"target": "claude-code", "scope": "project", "path": str(victim / "copied"), "mode": "copy"},
        {"target": "cursor", "scope": "project", "path": str(tmp_path / "my-link"), "mode": "link"},
        {"target": "openai", "scope": "project", "path": str(victim), "mode": "generated"},
    ]
    lockfile.write_skill_lock(folder, lock)
    result = skill_cli("uninstall", NAME, "--project-dir", str(project))
    assert result.code == 0, result.err
    assert (victim / "copied" / "data.txt").read_text() == "mine"
    assert (victim / "tools.json").read_text() == "mine"
    assert os.path.islink(tmp_path / "my-link")
    assert state(project) is None


@pytest.mark.parametrize("content", ["[" * 100_000, "{not json", "\udcff"], ids=["deep", "broken", "bad-utf8"])
def test_a_hostile_project_lockfile_gives_a_clear_error(tmp_path, skill_home, skill_cli, content):
    project = tmp_path / "p"
    project.mkdir()
    (project / "skills.lock.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    result = skill_cli("install", "--project-dir", str(project))
    assert result.code != 0 and "Traceback" not in result.out + result.err
    assert "skills.lock.json" in result.err and "fix:" in result.err
    assert sorted(p.name for p in project.iterdir()) == ["skills.lock.json"]


def test_an_oversized_project_lockfile_is_not_read(tmp_path, skill_home, skill_cli):
    project = tmp_path / "p"
    project.mkdir()
    with open(project / "skills.lock.json", "wb") as handle:
        handle.truncate(17 * 1024 * 1024)  # sparse: no real disk use
    result = skill_cli("install", "--project-dir", str(project))
    assert result.code != 0 and "at most" in result.err


@pytest.mark.parametrize("intent", [
    {"action": "install", "name": NAME, "scope": "project", "targets": [], "lock": "x"},
    {"action": "install", "name": NAME, "scope": "elsewhere", "targets": [], "lock": {}},
    {"action": "install", "name": NAME, "scope": "project", "targets": [7], "lock": {"skill": NAME}},
    {"action": "uninstall", "name": NAME, "scope": "project", "targets": [{"mode": "link"}]},
    {"action": "install", "name": "../x", "scope": "project", "targets": [], "lock": {}},
    [1, 2], "text",
], ids=["lock-not-object", "bad-scope", "bad-target", "target-without-path", "bad-name", "list", "string"])
def test_a_malformed_journal_gives_a_clear_error_and_changes_nothing(tmp_path, skill_home, sources, skill_cli,
                                                                     intent):
    from skillyard.client import store

    v1, _ = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    journal = store.skills_dir(project) / f".journal-{NAME}.json"
    journal.write_text(json.dumps(intent))
    before = sorted(str(p) for p in project.rglob("*"))
    result = skill_cli("uninstall", NAME, "--project-dir", str(project))
    assert result.code != 0 and "Traceback" not in result.out + result.err
    assert journal.name in result.err
    assert sorted(str(p) for p in project.rglob("*")) == before
    assert state_ok_without_journal(project, journal) == "1.0.0"


def test_a_tampered_journal_cannot_point_recovery_at_other_folders(tmp_path, skill_home, sources):
    from skillyard.client import store
    from skillyard.errors import SkillyardError

    v1, _ = sources
    project = tmp_path / "p"
    project.mkdir()
    do_install(project, v1)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    journal = store.skills_dir(project) / f".journal-{NAME}.json"
    journal.write_text(json.dumps({"action": "install", "name": NAME, "scope": "project", "targets": [],
                                   "lock": {}, "staging": "../../victim", "retired": f".retired-{NAME}-x"}))
    with pytest.raises(SkillyardError, match="not a readable change journal") as info:
        recover(project)
    assert journal.name in info.value.fix
    assert (victim / "keep.txt").read_text() == "mine"
    assert state_ok_without_journal(project, journal) == "1.0.0"


def state_ok_without_journal(project: Path, journal: Path) -> str | None:
    journal.unlink()
    return state(project)


CHILD = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, {root!r})
    real = os.rename
    count = [0]
    def paused(src, dst, *a, **k):
        count[0] += 1
        if count[0] == {at}:  # after the old folder was moved aside, before the new one is in: kill me here
            open({marker!r}, "w").close()
            time.sleep(60)
        return real(src, dst, *a, **k)
    os.rename = paused
    from skillyard.cli.main import skill_main
    sys.exit(skill_main(sys.argv[1:]))
""")


def test_a_real_sigkill_mid_swap_is_finished_by_the_next_command(tmp_path, skill_home, sources, skill_cli):
    v1, v2 = sources
    project = tmp_path / "p"
    project.mkdir()
    assert skill_cli("install", str(v1), "--project-dir", str(project), "--target", "claude-code",
                     "--target", "agents").code == 0
    marker = tmp_path / "paused"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(root=str(ROOT), at=2, marker=str(marker)))
    child = subprocess.Popen([sys.executable, str(script), "install", str(v2), "--project-dir", str(project),
                              "--target", "claude-code", "--target", "agents"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=dict(os.environ))
    try:
        for _ in range(600):
            if marker.exists() or child.poll() is not None:
                break
            time.sleep(0.05)
        assert marker.exists(), child.stderr.read().decode() if child.poll() is not None else "child never paused"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    from skillyard.client import store

    skills = store.skills_dir(project)
    assert not (skills / NAME).exists()  # the kill really landed between the two renames
    assert any(e.name.startswith(".journal-") for e in skills.iterdir())
    # The next mutating command (here: installing another skill) recovers before it sweeps.
    other = tmp_path / "src" / "other"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text(skill_md("other", "Another skill.", version="1.0.0"), encoding="utf-8")
    result = skill_cli("install", str(other), "--project-dir", str(project), "--target", "claude-code")
    assert result.code == 0, result.err
    assert state(project) == "2.0.0"


# ---------------------------------------------------------------------------------------------- 10: hostile names


HOSTILE_NAMES = ["a\0b", "evil\nname", "..", "../escape", "/etc/passwd", "CON", "con", "nul.txt", ".git",
                 "x" * 300, "pdf\u200btools", "pdf\u202etools", "other/../../demo", "skills/demo", "Demo", "",
                 "-rf", "\x1b[2Jred", "a\rb"]


def _clean_refusal(result: CliResult) -> None:
    from skillyard.format.safety import CONTROL, INVISIBLE

    text = result.out + result.err
    assert result.code != 0, text
    assert "Traceback" not in text
    assert "error" in text.lower()
    assert not CONTROL.search(result.err) and "\r" not in result.err and not INVISIBLE.search(result.err), \
        "a hostile name reached the terminal unescaped"


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
@pytest.mark.parametrize("command", [
    ["uninstall", "{}"], ["uninstall", "{}", "--project"], ["update", "{}"], ["check-deps", "{}"],
    ["install", "./missing/{}"], ["source", "remove", "{}"], ["source", "priority", "{}", "5"],
    ["source", "add", "http://127.0.0.1:9/registry.json", "--name", "{}", "--no-fetch"],
    ["install", "demo", "--input", "{}=1"], ["init", "{}"], ["evolve", "list", "{}"], ["info", "{}"],
    ["read", "{}", "SKILL.md"], ["read", "demo", "{}"], ["emit", "{}", "--target", "openai", "--out", "out"],
    ["emit", "./missing", "--target", "{}", "--out", "out"], ["validate", "{}"], ["publish", "{}", "--dry-run"],
    ["install", "demo", "--target", "{}"], ["install", "demo", "--source", "{}"], ["search", "x", "--source", "{}"],
    ["evolve", "add", "{}", "--title", "t", "--content", "c"], ["prompt", "--agent", "{}", "--root", "./missing"],
    ["source", "refresh", "{}"], ["install", "demo", "--project-dir", "./missing/{}"],
])
def test_hostile_names_are_refused_cleanly_and_write_nothing(tmp_path, monkeypatch, skill_home, skill_cli, name,
                                                             command):
    monkeypatch.chdir(tmp_path)
    home = Path(os.environ["HOME"])
    before = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    argv = [part.replace("{}", name) for part in command]
    if argv[0] in ("uninstall", "update", "check-deps", "init") and name.startswith("-"):
        argv.insert(1, "--")
    result = skill_cli(*argv)
    _clean_refusal(result)
    after = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*"))
    written = [p for p in after if p not in before and p.split("/")[0] != "skillcli"
               and "/.agents/skills/.skill-cli.lock" not in "/" + p and not p.endswith(".agents")
               and not p.endswith(".agents/skills")]
    assert written == [], written
    assert not (home / "CON").exists() and not (tmp_path / "CON").exists()


@pytest.mark.parametrize("name", ["a\0b", "../escape", "CON", "x" * 300, "pdf\u200btools", "a/b"], ids=repr)
def test_skillyard_commands_refuse_hostile_paths_cleanly(tmp_path, monkeypatch, capsys, name):
    from skillyard.cli.main import skillyard_main

    monkeypatch.chdir(tmp_path)
    for argv in (["validate", name], ["migrate", name, "--dry-run"], ["build", "--out", name + "/r.json", "--check"]):
        capsys.readouterr()
        try:
            code = skillyard_main(argv)
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        assert code != 0, (argv, captured)
        assert "Traceback" not in captured.out + captured.err


def test_a_registry_cannot_choose_a_path_as_the_skills_folder(tmp_path, skill_home):
    from skillyard.client import install as inst
    from skillyard.client.store import StagedFile
    from skillyard.errors import SkillyardError

    project = tmp_path / "p"
    project.mkdir()
    for evil in ("../../outside", "/tmp/abs", "con", "a" * 65, "x\ny"):
        candidate = inst.Candidate(evil, "1.0.0", {"type": "local", "path": "/x", "integrity": "sha256-x"},
                                   [StagedFile("SKILL.md", b"---\nname: x\n---\n")])
        opts = inst.Options(scope="project", project_root=project, home=project, targets=["agents"])
        with pytest.raises(SkillyardError, match="not a valid skill name"):
            inst.install(candidate, opts, None)
    assert list(project.iterdir()) == []
    assert not (tmp_path / "outside").exists()


@pytest.mark.parametrize("rel", ["a\0b", "../x", "/abs", "CON", ".git/config", "a\u200bb", "x" * 300,
                                 "skill.lock.json", "dir/", "a\\b"], ids=repr)
def test_store_refuses_every_path_the_shared_rule_refuses(tmp_path, rel):
    from skillyard.client import store
    from skillyard.errors import SkillyardError

    with pytest.raises(SkillyardError, match="Refusing the file path"):
        store.install_tree(tmp_path / "s" / NAME, [store.StagedFile("SKILL.md", b"x"), store.StagedFile(rel, b"y")])
    assert not (tmp_path / "s" / NAME).exists()
    assert [e.name for e in (tmp_path / "s").iterdir()] == []


def test_store_refuses_paths_that_collide_on_a_case_insensitive_disk(tmp_path):
    from skillyard.client import store
    from skillyard.errors import SkillyardError

    for pair in (["README.md", "readme.md"], ["a", "a/b"]):
        with pytest.raises(SkillyardError, match="Refusing the file path"):
            store.install_tree(tmp_path / NAME, [store.StagedFile(p, b"x") for p in pair])
        assert not (tmp_path / NAME).exists()


@pytest.mark.parametrize("paths", [["SKILL.md", "README.md", "readme.md"], ["SKILL.md", "a", "a/b"],
                                   ["SKILL.md", "../x"], ["SKILL.md", ".git/hooks/post-checkout"]])
def test_a_registry_file_list_is_refused_before_any_download(paths):
    from skillyard.client import install as inst
    from skillyard.errors import SkillyardError

    asked: list = []
    entries = [{"path": p, "size": 1, "sha256": "0" * 64} for p in paths]
    with pytest.raises(SkillyardError, match="Refusing the file path"):
        inst.fetch_files(NAME, entries, lambda rel: asked.append(rel) or "http://127.0.0.1:9/x", None, token=None,
                         what=NAME)
    assert asked == []


# ---------------------------------------------------------------------------------------------- 11: secrets


def _walk(parser):
    import argparse

    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _walk(child)


@pytest.mark.parametrize("prog", ["skill", "skillyard"])
def test_no_parser_accepts_an_abbreviated_option(prog):
    from skillyard.cli import main

    package = f"skillyard.cli.{prog}_cmds"
    parsers = list(_walk(main.build_parser(prog, package, "")))
    assert len(parsers) >= 8  # the top parser, each command, and nested actions (source add, bot report, ...)
    assert all(p.allow_abbrev is False for p in parsers), [p.prog for p in parsers if p.allow_abbrev]


SECRET = "ghp_s3cretTOKENvalue1234567890"


@pytest.mark.parametrize("argv", [
    ["--token", SECRET], ["--token=" + SECRET], ["--tok", SECRET], ["--token-env", SECRET + "-x"],
    ["--token-env", "ghp s3cret"], ["--token-env", "1ABC"], ["--token-env", "$ACME_TOKEN"], ["--token-env", ""],
    ["--token-env", SECRET], ["--token-env", "AKIAABCDEFGHIJKLMNOP"], ["--token-env", "hf_abcdefghij"],
])
def test_a_token_is_never_stored_or_printed(tmp_path, skill_home, skill_cli, argv):
    result = skill_cli("source", "add", "http://127.0.0.1:9/registry.json", "--no-fetch", *argv)
    assert result.code != 0
    assert SECRET not in result.out + result.err
    assert "Traceback" not in result.out + result.err
    if argv[0] == "--token-env":
        assert "NAME of an environment variable" in result.err
    config = skill_home / "config.yaml"
    assert not config.exists() or SECRET not in config.read_text()
    listed = skill_cli("source", "list", "--json")
    assert listed.code == 0 and SECRET not in listed.out and json.loads(listed.out)["sources"] == []


def test_the_value_of_a_set_variable_is_refused_as_a_token_env(monkeypatch, skill_home, skill_cli):
    monkeypatch.setenv("ACME_TOKEN", "PLAINUPPERCASEVALUE")  # even a value that looks like a name
    result = skill_cli("source", "add", "http://127.0.0.1:9/registry.json", "--no-fetch", "--token-env",
                       "PLAINUPPERCASEVALUE")
    assert result.code != 0 and "looks like a token" in result.err
    assert "PLAINUPPERCASEVALUE" not in result.out + result.err
    assert not (skill_home / "config.yaml").exists()


def test_a_token_in_the_environment_never_reaches_config_or_listing(tmp_path, monkeypatch, skill_home, skill_cli):
    monkeypatch.setenv("ACME_TOKEN", SECRET)
    added = skill_cli("source", "add", "http://127.0.0.1:9/registry.json", "--no-fetch", "--token-env",
                      "ACME_TOKEN", "--json")
    assert added.code == 0, added.err
    for result in (added, skill_cli("source", "list", "--json"), skill_cli("source", "list")):
        assert SECRET not in result.out + result.err
    assert "ACME_TOKEN" in (skill_home / "config.yaml").read_text()
    assert SECRET not in (skill_home / "config.yaml").read_text()


def test_a_secret_an_older_client_wrote_into_config_is_never_printed(skill_home, skill_cli):
    skill_home.mkdir(parents=True, exist_ok=True)
    (skill_home / "config.yaml").write_text(
        "sources:\n"
        f"- name: acme\n  url: http://127.0.0.1:9/registry.json\n  token_env: {SECRET}\n"
        f"- name: other\n  url: http://bob:{SECRET}@127.0.0.1:9/other.json\n", encoding="utf-8")
    listed = skill_cli("source", "list", "--json")
    assert listed.code == 0 and SECRET not in listed.out + listed.err
    rows = {r["name"]: r for r in json.loads(listed.out)["sources"]}
    assert "token_env" not in rows["acme"] and "not a variable name" in rows["acme"]["token_env_problem"]
    text = skill_cli("source", "list")
    assert SECRET not in text.out + text.err and "skill source remove acme" in text.out
    for argv in (["source", "priority", "acme", "5", "--json"], ["source", "remove", "other"],
                 ["source", "remove", "acme", "--json"]):
        result = skill_cli(*argv)
        assert result.code == 0 and SECRET not in result.out + result.err, argv


@pytest.mark.parametrize("url", [f"http://user:{SECRET}@127.0.0.1:9/registry.json",
                                 f"http://{SECRET}@127.0.0.1:9/registry.json"])
def test_a_token_inside_the_source_url_is_refused(tmp_path, skill_home, skill_cli, url):
    result = skill_cli("source", "add", url, "--no-fetch")
    assert result.code != 0
    assert SECRET not in result.out + result.err
    assert "--token-env" in result.err
    config = skill_home / "config.yaml"
    assert not config.exists() or SECRET not in config.read_text()


# ---------------------------------------------------------------------------------------------- properties

NAMEISH = st.one_of(st.text(max_size=80), st.from_regex(r"[a-z0-9-]{1,70}", fullmatch=True),
                    st.sampled_from(["con", "nul", "aux", "com1", "lpt9", "demo", "a--b", "-a", "a-"]))


@settings(max_examples=300, deadline=None)
@given(NAMEISH)
def test_check_name_accepts_only_plain_portable_folder_names(name):
    from skillyard.client import store
    from skillyard.errors import SkillyardError
    from skillyard.format.paths import path_problem

    try:
        store.check_name(name)
    except SkillyardError as exc:
        assert exc.fix and "name" in exc.message
        return
    assert path_problem(name) is None and "/" not in name and name == name.strip() and 1 <= len(name) <= 64
    assert name.isascii() and name == name.lower() and not name.startswith("-") and "--" not in name


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=4))
def test_parse_assignments_returns_safe_pairs_or_a_clear_error(pairs):
    from skillyard.client.inputs import INPUT_NAME, parse_assignments
    from skillyard.errors import SkillyardError
    from skillyard.format.safety import CONTROL, INVISIBLE

    try:
        out = parse_assignments(pairs)
    except SkillyardError as exc:
        assert exc.message.startswith("--input") and exc.fix
        return
    for key, value in out.items():
        assert INPUT_NAME.match(key)
        assert not CONTROL.search(value) and not INVISIBLE.search(value) and "\r" not in value
        assert any(p.partition("=")[2] == value and p.partition("=")[0].strip() == key for p in pairs)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_token_env_is_a_variable_name_or_refused_without_echo(var):
    import re

    from skillyard.client.sources import validate_token_env
    from skillyard.errors import SkillyardError

    def said(value: str) -> str:
        try:
            validate_token_env(value)
        except SkillyardError as exc:
            return exc.message + "\n" + (exc.fix or "")
        return ""

    fixed_text = said("1" * max(1, len(var)))  # the message's own words, for a value of the same length
    try:
        assert validate_token_env(var) == var
    except SkillyardError as exc:
        assert "NAME of an environment variable" in exc.message
        # not echoed, unless the value is only a piece of the message's own text (such as "--to" of "--token-env")
        assert len(var) < 4 or var in fixed_text or var not in exc.message + "\n" + (exc.fix or "")
        return
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var)


def test_a_folder_with_thousands_of_problems_gets_a_short_message_and_nothing_installed(tmp_path, skill_home,
                                                                                         skill_cli):
    folder = tmp_path / "many-links"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_md("many-links", "Links everywhere. Use never."), encoding="utf-8")
    for index in range(300):
        (folder / f"link{index}.md").symlink_to("/etc/hostname")
    result = skill_cli("install", str(folder))
    assert result.code == 1 and "Traceback" not in result.err
    assert "and 295 more error(s)" in result.err and len(result.err) < 2000
    user_home = Path(os.environ["HOME"])
    assert not (user_home / ".agents" / "skills" / "many-links").exists()
    assert not list(user_home.rglob("skill.lock.json"))
