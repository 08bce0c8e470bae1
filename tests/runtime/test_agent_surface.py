"""Issue 13 items 15-18: what the agent gets (tool shape, titles, listings), remembered permissions, source
filters, built-in roots on the command line, and lenient discovery."""

from __future__ import annotations

import json
import os
import stat

import pytest

from conftest import make_skill
from skillyard.cli.main import skill_main
from skillyard.runtime import SkillRuntime, discovery
from skillyard.runtime.approvals import Approvals, ApprovalsError
from skillyard.runtime.discovery import Root
from skillyard.runtime.service import ALWAYS, ApprovalRequired


def run(capsys, *argv):
    code = skill_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "root"
    skill = make_skill(folder, "demo", body="See references/guide.md.\n")
    (skill / "references").mkdir()
    (skill / "references" / "guide.md").write_text("guide\n", encoding="utf-8")
    make_skill(folder, "code-secrets")
    return folder


# --------------------------------------------------------------------------------------------- item 16


def test_tool_call_uses_design_001_arguments_and_returns_title_and_base_dir(root):
    rt = SkillRuntime([Root(str(root), "user", 200)], cache_dir=False)
    out = rt.handle_tool_call("read_skill_file", {"skill_name": "demo", "file_path": "references/guide.md"})
    assert out == f"# Skill demo: references/guide.md\nBase directory: {root / 'demo'}\n" \
                  "(paths in this skill are relative to it)\n\nguide\n"
    listing = rt.handle_tool_call("read_skill_file", {"skill_name": "demo", "file_path": "."})
    assert listing.startswith("# Files of skill demo\n") and listing.endswith("SKILL.md\nreferences/guide.md\n")
    sub = rt.handle_tool_call("read_skill_file", {"skill_name": "demo", "file_path": "references/"})
    assert sub.startswith("# Files of skill demo in references/\n") and sub.endswith("\nreferences/guide.md\n")
    assert rt.handle_tool_call("read_skill_file", {"skill": "demo", "path": "SKILL.md"}).startswith("# Skill demo")
    (tool,) = rt.tools("anthropic")
    assert tool["input_schema"]["required"] == ["skill_name", "file_path"] and '"."' in tool["description"]


def test_cli_read_lists_files_and_prints_the_tool_output(root, capsys):
    code, out, _ = run(capsys, "read", "demo", ".", "--root", str(root))
    assert code == 0 and out == "SKILL.md\nreferences/guide.md\n"
    code, out, _ = run(capsys, "read", "demo", "SKILL.md", "--root", str(root), "--tool-output")
    assert code == 0 and out.startswith(f"# Skill demo: SKILL.md\nBase directory: {root / 'demo'}\n")


# --------------------------------------------------------------------------------------------- item 17


def test_always_allow_is_remembered_per_agent_and_skill_and_revocable(root, tmp_path):
    store = Approvals(tmp_path / "state" / "approvals.json")
    rules = [("code-secrets", "ask")]
    asked = []

    def approve(name):
        asked.append(name)
        return ALWAYS

    rt = SkillRuntime([Root(str(root), "user", 200)], rules=rules, cache_dir=False, agent="reviewer",
                      approvals=store, approve=approve)
    assert json.loads(rt.prompt("json"))["skills"][0]["permission"] == "ask"
    assert "Does a thing" in rt.read_skill_file("code-secrets", "SKILL.md")
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    document = json.loads(store.path.read_text(encoding="utf-8"))
    assert document["agents"]["reviewer"]["code-secrets"]["location"] == str(root / "code-secrets" / "SKILL.md")
    later = SkillRuntime([Root(str(root), "user", 200)], rules=rules, cache_dir=False, agent="reviewer",
                         approvals=store)  # no approve callback: the remembered answer is enough
    assert "Does a thing" in later.read_skill_file("code-secrets", "SKILL.md")
    assert "- code-secrets [user]:" in later.prompt("text")  # no [ask] mark any more
    other_agent = SkillRuntime([Root(str(root), "user", 200)], rules=rules, cache_dir=False, agent="writer",
                               approvals=store)
    with pytest.raises(ApprovalRequired):
        other_agent.read_skill_file("code-secrets", "SKILL.md")
    denied = SkillRuntime([Root(str(root), "user", 200)], rules=[("code-secrets", "deny")], cache_dir=False,
                          agent="reviewer", approvals=store)
    assert [s.name for s in denied.skills()] == ["demo"]  # deny still wins
    assert store.revoke("reviewer", "code-secrets") == [("reviewer", "code-secrets")]
    with pytest.raises(ApprovalRequired):
        later.read_skill_file("code-secrets", "SKILL.md")
    assert asked == ["code-secrets"]


def test_an_approval_does_not_carry_over_to_a_same_named_skill_elsewhere(root, tmp_path):
    store = Approvals(tmp_path / "approvals.json")
    store.remember("reviewer", "code-secrets", str(root / "code-secrets" / "SKILL.md"))
    planted = tmp_path / "planted"
    make_skill(planted, "code-secrets", "Planted copy.")
    rt = SkillRuntime([Root(str(planted), "project", 400), Root(str(root), "user", 200)],
                      rules=[("code-secrets", "ask")], cache_dir=False, agent="reviewer", approvals=store)
    with pytest.raises(ApprovalRequired):
        rt.read_skill_file("code-secrets", "SKILL.md")


@pytest.mark.parametrize("content", ["{not json", "[" * 100_000, '{"format": 1, "agents": {"a": {"s": 3}}}',
                                     '{"format": 9, "agents": {}}', "x" * (2 * 1024 * 1024)])
def test_a_damaged_approvals_file_is_an_error_never_an_allow(root, tmp_path, content):
    path = tmp_path / "approvals.json"
    path.write_text(content, encoding="utf-8")
    rt = SkillRuntime([Root(str(root), "user", 200)], rules=[("code-secrets", "ask")], cache_dir=False,
                      agent="reviewer", approvals=Approvals(path))
    with pytest.raises(ApprovalsError, match="approvals.json"):
        rt.read_skill_file("code-secrets", "SKILL.md")


def test_cli_always_then_list_and_revoke(root, tmp_path, capsys, monkeypatch):
    rules = tmp_path / "rules.toml"
    rules.write_text('[agents.reviewer.skills]\n"code-*" = "ask"\n', encoding="utf-8")
    monkeypatch.setenv("SKILL_PERMISSIONS", str(rules))
    monkeypatch.chdir(tmp_path)
    args = ("read", "code-secrets", "SKILL.md", "--root", str(root), "--agent", "reviewer")
    code, _, err = run(capsys, *args)
    assert code == 1 and "approval" in err
    code, out, _ = run(capsys, *args, "--always")
    assert code == 0 and "Does a thing" in out
    code, out, _ = run(capsys, *args)
    assert code == 0 and "Does a thing" in out
    code, out, _ = run(capsys, "permissions", "list", "--json")
    rows = json.loads(out)["approvals"]
    assert [(r["agent"], r["skill"]) for r in rows] == [("reviewer", "code-secrets")]
    assert json.loads(out)["file"] == str(tmp_path / "home" / ".skillcli" / "approvals.json")
    code, out, _ = run(capsys, "permissions", "revoke", "code-secrets", "--agent", "reviewer")
    assert code == 0 and "revoked: reviewer: code-secrets" in out
    code, _, err = run(capsys, *args)
    assert code == 1 and "approval" in err
    code, _, err = run(capsys, "permissions", "revoke")
    assert code == 1 and "--all" in err


def test_source_filter_and_builtin_roots_on_the_command_line(tmp_path, capsys, monkeypatch):
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    make_skill(project / "skills", "from-project")
    builtin = tmp_path / "builtin"
    make_skill(builtin, "from-builtin")
    make_skill(builtin, "from-project", "Built-in copy, outranked.")
    monkeypatch.chdir(project)
    code, out, _ = run(capsys, "prompt", "--builtin", str(builtin), "--format", "json")
    skills = {s["name"]: s["source"] for s in json.loads(out)["skills"]}
    assert skills == {"from-builtin": "builtin", "from-project": "project"}
    code, out, _ = run(capsys, "prompt", "--builtin", str(builtin), "--source", "builtin", "--format", "text")
    assert code == 0 and out.splitlines()[1].startswith("- from-builtin [builtin]:") and "from-project" not in out
    code, _, err = run(capsys, "read", "from-project", "SKILL.md", "--builtin", str(builtin), "--source", "builtin")
    assert code == 1 and "no available skill" in err
    code, _, err = run(capsys, "prompt", "--builtin", str(tmp_path / "missing"))
    assert code == 1 and "--builtin" in err
    rt = SkillRuntime([Root(str(builtin), "builtin", 100)], cache_dir=False, sources=["project"])
    assert rt.skills() == []


# --------------------------------------------------------------------------------------------- item 18


def test_lenient_mode_lists_empty_descriptions_and_slugs_names_strict_does_not(tmp_path, capsys):
    root = tmp_path / "root"
    make_skill(root, "quiet", description='""')
    make_skill(root, "PDF Tools_v2", folder="pdf-tools-v2")
    make_skill(root, "Ünïcode Näme", folder="unicode-name")
    make_skill(root, "文档", folder="docs")
    strict = discovery.scan([Root(str(root), "user", 200)])
    assert strict.skills == [] and strict.report["mode"] == "strict"
    assert {os.path.basename(os.path.dirname(b["path"])) for b in strict.report["broken"]} == {
        "quiet", "pdf-tools-v2", "unicode-name", "docs"}
    lenient = discovery.scan([Root(str(root), "user", 200)], lenient=True)
    assert [(s.name, s.description) for s in lenient.skills] == [
        ("pdf-tools-v2", "Does a thing. Use when a thing is needed."), ("quiet", ""),
        ("unicode-name", "Does a thing. Use when a thing is needed.")]
    warnings = {os.path.basename(os.path.dirname(w["path"])): w["warning"] for w in lenient.report["warnings"]}
    assert warnings["quiet"] == "`description` is empty"
    assert "'pdf-tools-v2'" in warnings["pdf-tools-v2"]
    assert [os.path.basename(os.path.dirname(b["path"])) for b in lenient.report["broken"]] == ["docs"]
    code, out, _ = run(capsys, "prompt", "--root", str(root), "--lenient", "--format", "text", "--no-cache")
    assert code == 0 and "- quiet [explicit]: " in out
    code, out, _ = run(capsys, "prompt", "--root", str(root), "--format", "text")
    assert code == 0 and out == "\n"  # strict stays strict, and the lenient result was not cached for it


@pytest.mark.parametrize("content", ["a = " + "[" * 50_000 + "]" * 50_000, "# pad\n" * 200_000])
def test_hostile_rules_files_are_clear_errors(tmp_path, content):
    from skillyard.runtime import permissions

    rules = tmp_path / "permissions.toml"
    rules.write_text(content, encoding="utf-8")
    with pytest.raises(permissions.RulesError, match="permissions.toml"):
        permissions.load_rules("a", [rules])


def test_an_agent_runtime_applies_its_permission_files_by_default(root, tmp_path):
    """`SkillRuntime(agent=...)` without `rules` reads the agent's permission files (user and project), so a host
    that forgets to pass them never lists a skill the files deny."""
    home = tmp_path / "home"
    (home / ".agents").mkdir(parents=True)
    (home / ".agents" / "permissions.toml").write_text('[agents.reviewer.skills]\n"code-*" = "deny"\n',
                                                      encoding="utf-8")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".agents").mkdir()
    (project / ".agents" / "permissions.toml").write_text('[agents.reviewer.skills]\n"demo" = "ask"\n',
                                                         encoding="utf-8")
    inner = project / "src" / "pkg"
    inner.mkdir(parents=True)
    roots = [Root(str(root), "user", 200)]
    rt = SkillRuntime(roots, cache_dir=False, agent="reviewer", cwd=inner, home=home)
    assert rt.permissions() == {"demo": "ask"}
    assert [s.name for s in rt.skills()] == ["demo"]
    with pytest.raises(ApprovalRequired):
        rt.read_skill_file("demo", "SKILL.md")
    other = SkillRuntime(roots, cache_dir=False, agent="writer", cwd=inner, home=home)
    assert [s.name for s in other.skills()] == ["code-secrets", "demo"]
    explicit = SkillRuntime(roots, cache_dir=False, agent="reviewer", cwd=inner, home=home, rules=[])
    assert [s.name for s in explicit.skills()] == ["code-secrets", "demo"]  # the host's own (empty) rules


def test_an_agent_runtime_refuses_a_damaged_permission_file(root, tmp_path):
    from skillyard.runtime import permissions

    home = tmp_path / "home"
    (home / ".agents").mkdir(parents=True)
    (home / ".agents" / "permissions.toml").write_text('[agents.reviewer.skills]\n"*" = "hide"\n', encoding="utf-8")
    with pytest.raises(permissions.RulesError, match="permissions.toml"):
        SkillRuntime([Root(str(root), "user", 200)], cache_dir=False, agent="reviewer", cwd=tmp_path, home=home)
