"""Issue 13 item 1: a multi-skill install is all-or-nothing - a failure or a kill at any step leaves every skill,
the skills.lock.json and each skill.lock.json as they were, or installs them all - and the fix hint for a missing
input names the config key that works (`inputs.NAME.KEY`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.hostile.test_client_state import Killed, arm
from tests.hostile.test_client_state import recover as recover_scope
from tests.support.registry import skill_md

from .conftest import tree


def make(root: Path, name: str, *, inputs: list | None = None, body: str = "Do it.\n",
         mcp_deps: list | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md(name, f"The {name} skill.", body, license="MIT"), encoding="utf-8")
    manifest = {"schema_version": "1.0", "version": "1.0.0", **({"inputs": inputs} if inputs else {}),
                **({"mcp_deps": mcp_deps} if mcp_deps else {})}
    (folder / "skill.yaml").write_text(json.dumps(manifest), encoding="utf-8")  # JSON is YAML
    (folder / "notes.md").write_text(f"# {name}\n", encoding="utf-8")
    return folder


def nothing_in(project: Path) -> None:
    assert not (project / "skills.lock.json").exists()
    skills = project / ".agents" / "skills"
    assert not skills.exists() or [e.name for e in skills.iterdir() if e.name != ".skill-cli.lock"] == []
    assert not (project / ".claude").exists()


TEAM = [{"name": "team", "type": "string", "required": True, "description": "Team name"}]


def test_a_failing_second_skill_installs_nothing_and_says_so(tmp_path, skill_cli, monkeypatch):
    first = make(tmp_path / "src", "alpha")
    second = make(tmp_path / "src", "beta", inputs=TEAM, body="Team {{inputs.team}}.\n")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    result = skill_cli("install", str(first), str(second), "--project")
    assert result.code != 0 and "Traceback" not in result.err
    assert "beta" in result.err and "`team`" in result.err and "nothing was installed" in result.err
    nothing_in(project)


def test_a_missing_mcp_dependency_of_the_second_skill_installs_nothing(tmp_path, skill_cli, user_home, configure):
    configure("mcp_hub.endpoint", "http://127.0.0.1:9/mcp")  # nothing listens there: the hub cannot be reached
    first = make(tmp_path / "src", "alpha")
    second = make(tmp_path / "src", "beta", mcp_deps=[{"tool": "ocr.recognize", "required": True}])
    result = skill_cli("install", str(first), str(second))
    assert result.code != 0 and "Traceback" not in result.err
    assert "beta" in result.err and "ocr.recognize" in result.err and "nothing was installed" in result.err
    assert "--skip-deps-check" in result.err
    nothing_in(user_home)


def test_user_scope_is_all_or_nothing_too(tmp_path, skill_cli, user_home):
    first = make(tmp_path / "src", "alpha")
    second = make(tmp_path / "src", "beta", inputs=TEAM, body="Team {{inputs.team}}.\n")
    result = skill_cli("install", str(first), str(second))
    assert result.code != 0 and "beta" in result.err and "nothing was installed" in result.err
    nothing_in(user_home)


def test_the_input_hint_names_a_key_that_works(tmp_path, skill_cli, monkeypatch, configure):
    """Follow the fix the message gives, word for word, and the same install succeeds."""
    first = make(tmp_path / "src", "alpha")
    second = make(tmp_path / "src", "beta", inputs=TEAM, body="Team {{inputs.team}}.\n")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    result = skill_cli("install", str(first), str(second), "--project")
    assert "inputs.beta.team" in result.err and "skills.beta.inputs" not in result.err
    configure("inputs.beta.team", "ops")
    result = skill_cli("install", str(first), str(second), "--project")
    assert result.code == 0, result.err
    assert "Team ops." in (project / ".agents" / "skills" / "beta" / "SKILL.md").read_text()
    assert set(json.loads((project / "skills.lock.json").read_text())["skills"]) == {"alpha", "beta"}


def test_a_disk_conflict_of_the_second_skill_installs_nothing(tmp_path, skill_cli, monkeypatch):
    """The foreign folder is found under the store lock, after both skills were fetched: still nothing written."""
    first = make(tmp_path / "src", "alpha")
    second = make(tmp_path / "src", "beta")
    project = tmp_path / "project"
    (project / ".claude" / "skills" / "beta").mkdir(parents=True)
    (project / ".claude" / "skills" / "beta" / "mine.md").write_text("the user's own\n")
    monkeypatch.chdir(project)
    result = skill_cli("install", str(first), str(second), "--project", "--target", "claude-code")
    assert result.code != 0 and "Traceback" not in result.err
    assert "beta" in result.err and "nothing was installed" in result.err
    assert not (project / "skills.lock.json").exists()
    assert not (project / ".agents" / "skills" / "alpha").exists()
    assert not (project / ".claude" / "skills" / "alpha").exists()
    assert tree(project / ".claude" / "skills" / "beta") == {"mine.md": b"the user's own\n"}


def test_a_refused_second_ref_installs_nothing(tmp_path, skill_cli, monkeypatch):
    first = make(tmp_path / "src", "alpha")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    result = skill_cli("install", str(first), str(tmp_path / "missing-folder"), "--project")
    assert result.code != 0 and "Traceback" not in result.err
    nothing_in(project)


# ---------------------------------------------------------------------------------------------- kills

NAMES = ("alpha", "beta", "gamma")


def state(project: Path) -> set[str]:
    """Which skills are installed, after checking that every piece of local state agrees on it."""
    from skillyard.client import lockfile, store

    skills = store.skills_dir(project)
    leftovers = [e.name for e in skills.iterdir() if e.name.startswith((".staging-", ".retired-", ".journal-"))] \
        if skills.is_dir() else []
    assert leftovers == [], leftovers
    listed = (lockfile.read_project_lock(project) or {"skills": {}})["skills"]
    present = set()
    for name in NAMES:
        folder = store.canonical_dir(project, name)
        link = project / ".claude" / "skills" / name
        if not os.path.lexists(folder):
            assert name not in listed and not os.path.lexists(link)
            continue
        lock = lockfile.read_skill_lock(folder)
        assert store.edited_files(folder, lock["files"]) == []
        assert name in listed and listed[name]["files"] == lock["files"]
        assert os.path.islink(link) and Path(os.path.realpath(link)) == Path(os.path.realpath(folder))
        present.add(name)
    return present


def test_a_kill_at_any_step_of_a_multi_skill_install_leaves_all_or_none(tmp_path, monkeypatch, skill_home):
    from skillyard.client import install as inst

    sources = [make(tmp_path / "src", name) for name in NAMES]
    seen = set()
    for at in range(1, 400):
        project = tmp_path / f"p{at}"
        project.mkdir()
        opts = inst.Options(scope="project", project_root=project, home=tmp_path / "home",
                            targets=["claude-code", "agents"])
        plans = [inst.plan(inst.from_local(src), opts, None) for src in sources]
        with monkeypatch.context() as patch:
            arm(patch, at)
            try:
                inst.install_all(plans)
                completed = True
            except Killed:
                completed = False
        recover_scope(project)
        present = state(project)
        assert present in (set(), set(NAMES)), f"kill at step {at}: {sorted(present)} installed"
        seen.add(frozenset(present))
        if completed:
            assert present == set(NAMES)
            break
    else:
        raise AssertionError("the install never completed")
    assert seen == {frozenset(), frozenset(NAMES)}  # kills landed both before and after the commit point


def test_a_failure_after_the_commit_point_says_what_is_in_place_and_is_finished_next_time(tmp_path, monkeypatch,
                                                                                          skill_home):
    """Past the commit record nothing is rolled back: the message must not claim "nothing was installed", and the
    next command finishes the rest."""
    import pytest

    from skillyard.client import install as inst
    from skillyard.errors import SkillyardError

    sources = [make(tmp_path / "src", name) for name in NAMES]
    project = tmp_path / "project"
    project.mkdir()
    opts = inst.Options(scope="project", project_root=project, home=tmp_path / "home",
                        targets=["claude-code", "agents"])
    plans = [inst.plan(inst.from_local(src), opts, None) for src in sources]
    from skillyard.client import placement

    real = placement.place_targets

    def flaky(name, canonical, opts):
        if name == "beta":
            raise PermissionError(13, "Permission denied", str(canonical))
        return real(name, canonical, opts)

    monkeypatch.setattr(placement, "place_targets", flaky)
    with pytest.raises(SkillyardError) as caught:
        inst.install_all(plans)
    message = caught.value.message
    assert "beta" in message and "Permission denied" in message and "alpha" in message
    assert "nothing was installed" not in message
    monkeypatch.setattr(placement, "place_targets", real)
    recover_scope(project)
    assert state(project) == set(NAMES)
