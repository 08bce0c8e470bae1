import os

from conftest import make_skill
from skillyard import runtime
from skillyard.runtime import discovery
from skillyard.runtime.discovery import Root, default_roots


def _three_roots(tmp_path):
    project = tmp_path / "project" / ".agents" / "skills"
    env = tmp_path / "env-skills"
    user = tmp_path / "home" / ".agents" / "skills"
    make_skill(project, "shared", "Project version.", mtime=1_000)
    make_skill(env, "shared", "Env version.", mtime=3_000)
    make_skill(user, "shared", "User version.", mtime=2_000)
    make_skill(user, "user-only", "Only in the user root.")
    make_skill(env, "env-only", "Only in the env root.")
    broken = user / "broken-one"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: broken-one\n---\nno description\n", encoding="utf-8")
    roots = [Root(str(project), "project", 400), Root(str(env), "env", 300), Root(str(user), "user", 200)]
    return roots, project, env, user


def test_three_roots_clash_and_broken_skill(tmp_path):
    roots, project, env, user = _three_roots(tmp_path)
    result = discovery.scan(roots)
    by_name = result.by_name()
    assert sorted(by_name) == ["env-only", "shared", "user-only"]
    # The project root wins even though its SKILL.md is the oldest: priority beats time.
    assert by_name["shared"].description == "Project version."
    assert by_name["shared"].source == "project"
    overrides = result.report["overrides"]
    assert [(o["loser_source"], o["reason"]) for o in overrides] == [
        ("env", "project root outranks env root"), ("user", "project root outranks user root")]
    assert all(o["winner"] == str(project / "shared" / "SKILL.md") for o in overrides)
    assert result.report["broken"] == [{"path": str(user / "broken-one" / "SKILL.md"),
                                        "reason": "frontmatter has no `description` (lenient mode lists it with a "
                                                  "warning)"}]
    counts = result.report["counts"]
    assert counts == {"roots": 3, "found": 5, "skills": 3, "overrides": 2, "broken": 1, "ignored": 0}
    assert result.report["scanned_at"].endswith("Z")


def test_index_hash_is_stable_and_tracks_content(tmp_path):
    roots, project, *_ = _three_roots(tmp_path)
    first = discovery.scan(roots).report["index_hash"]
    assert discovery.scan(roots).report["index_hash"] == first
    assert first.startswith("sha256-") and len(first) == 7 + 64
    make_skill(project, "shared", "Project version, edited.")
    assert discovery.scan(roots).report["index_hash"] != first


def test_newer_skill_md_wins_inside_one_root(tmp_path):
    root = tmp_path / "root"
    make_skill(root / "group-a", "dup", "Old.", folder="dup", mtime=1_000)
    make_skill(root / "group-b", "dup", "New.", folder="dup", mtime=5_000)
    result = discovery.scan([Root(str(root), "user", 200)])
    assert result.get("dup").description == "New."
    (override,) = result.report["overrides"]
    assert override["reason"] == "newer SKILL.md in the same root"
    assert override["loser"].endswith(os.path.join("group-a", "dup", "SKILL.md"))


def test_equal_mtime_falls_back_to_path_order(tmp_path):
    root = tmp_path / "root"
    make_skill(root / "b", "dup", "From b.", folder="dup", mtime=1_000)
    make_skill(root / "a", "dup", "From a.", folder="dup", mtime=1_000)
    assert discovery.scan([Root(str(root), "user", 200)]).get("dup").description == "From a."


def test_hidden_and_tool_folders_ignored_with_reasons(tmp_path):
    root = tmp_path / "root"
    make_skill(root, "visible")
    make_skill(root / ".hidden", "secret")
    make_skill(root / "node_modules", "vendored")
    result = discovery.scan([Root(str(root), "user", 200)])
    assert [s.name for s in result.skills] == ["visible"]
    reasons = {os.path.basename(i["path"]): i["reason"] for i in result.report["ignored"]}
    assert reasons == {".hidden": "hidden folder", "node_modules": "tool or build folder"}


def test_symlink_loop_terminates_and_linked_skill_found(tmp_path):
    root = tmp_path / "root"
    group = root / "group"
    make_skill(group, "inner")
    os.symlink("..", group / "loop")  # group/loop -> root: a cycle
    outside = make_skill(tmp_path / "elsewhere", "linked-in")
    os.symlink(outside, root / "linked-in")
    result = discovery.scan([Root(str(root), "user", 200)])
    assert sorted(s.name for s in result.skills) == ["inner", "linked-in"]
    assert any("cycle" in i["reason"] for i in result.report["ignored"])


def test_broken_encoding_and_bad_yaml_are_reported_not_fatal(tmp_path):
    root = tmp_path / "root"
    make_skill(root, "good")
    (root / "latin").mkdir()
    (root / "latin" / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    (root / "bad-yaml").mkdir()
    (root / "bad-yaml" / "SKILL.md").write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
    result = discovery.scan([Root(str(root), "user", 200)])
    assert [s.name for s in result.skills] == ["good"]
    assert {os.path.basename(os.path.dirname(b["path"])) for b in result.report["broken"]} == {"latin", "bad-yaml"}


def test_project_roots_walk_up_and_stop_at_git(tmp_path, monkeypatch):
    project = tmp_path / "home" / "work" / "proj"
    (project / ".git").mkdir(parents=True)
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    make_skill(project / ".claude" / "skills", "from-claude")
    make_skill(project / "skills", "from-skills")
    make_skill(project / "src" / "skill", "from-singular")
    make_skill(tmp_path / "home" / "work" / "skills", "above-git")  # outside the repository: not project
    monkeypatch.setenv("SKILL_PATH", os.pathsep.join([str(tmp_path / "extra")]))
    make_skill(tmp_path / "extra", "from-env")
    roots = default_roots(deep, home=tmp_path / "home", builtin=[tmp_path / "builtin"])
    assert [(r.source, os.path.relpath(r.path, tmp_path)) for r in roots] == [
        ("project", os.path.join("home", "work", "proj", "src", "skill")),
        ("project", os.path.join("home", "work", "proj", ".claude", "skills")),
        ("project", os.path.join("home", "work", "proj", "skills")),
        ("env", "extra"),
        ("user", os.path.join("home", ".agents", "skills")),
        ("user", os.path.join("home", ".agent", "skills")),
        ("user", os.path.join("home", ".claude", "skills")),
        ("builtin", "builtin"),
    ]
    names = [s.name for s in discovery.scan(roots).skills]
    assert names == ["from-claude", "from-env", "from-singular", "from-skills"]


def test_cache_reuses_until_something_changes(tmp_path):
    root = tmp_path / "root"
    make_skill(root, "one")
    roots = [Root(str(root), "user", 200)]
    cache_dir = tmp_path / "cache"
    first = runtime.discover(roots, cache_dir=cache_dir)
    assert first.report["cached"] is False
    runtime.invalidate(False)  # memory only: the disk copy must serve the next call
    second = runtime.discover(roots, cache_dir=cache_dir)
    assert second.report["cached"] is True
    assert [s.name for s in second.skills] == ["one"]
    make_skill(root, "two")  # adding a folder changes the root's mtime
    third = runtime.discover(roots, cache_dir=cache_dir)
    assert third.report["cached"] is False and [s.name for s in third.skills] == ["one", "two"]
    skill_md = root / "one" / "SKILL.md"
    skill_md.write_text("---\nname: one\ndescription: Edited.\n---\n", encoding="utf-8")
    os.utime(skill_md, ns=(1, 1))
    assert runtime.discover(roots, cache_dir=cache_dir).get("one").description == "Edited."
    runtime.invalidate(cache_dir)
    assert not list(cache_dir.glob("*.json"))
    assert runtime.discover(roots, cache_dir=cache_dir).report["cached"] is False


def test_damaged_cache_file_is_a_miss(tmp_path):
    root = tmp_path / "root"
    make_skill(root, "one")
    roots = [Root(str(root), "user", 200)]
    cache_dir = tmp_path / "cache"
    runtime.discover(roots, cache_dir=cache_dir)
    for file in cache_dir.glob("*.json"):
        file.write_text("{not json", encoding="utf-8")
    runtime.invalidate(False)
    assert [s.name for s in runtime.discover(roots, cache_dir=cache_dir).skills] == ["one"]


def test_disable_model_invocation_hides_from_prompt(tmp_path):
    root = tmp_path / "root"
    make_skill(root, "manual", extra="disable-model-invocation: true\n")
    make_skill(root, "auto")
    rt = runtime.SkillRuntime([Root(str(root), "user", 200)], cache_dir=False)
    assert [s.name for s in rt.skills()] == ["auto"]


def test_runtime_fields_in_skill_yaml_are_honoured(tmp_path):
    """Strict mode tells authors to put `disable-model-invocation` and `user-invocable` in skill.yaml: discovery
    reads them there exactly as in the frontmatter."""
    root = tmp_path / "root"
    manual = make_skill(root, "manual")
    (manual / "skill.yaml").write_text('schema_version: "1.0"\ndisable-model-invocation: true\n'
                                       "user-invocable: false\nallowed-tools: Read Grep\n", encoding="utf-8")
    make_skill(root, "auto")
    rt = runtime.SkillRuntime([Root(str(root), "user", 200)], cache_dir=False)
    assert [s.name for s in rt.skills()] == ["auto"]
    found = rt.discovery().get("manual")
    assert found.model_invocable is False
    assert found.controls == {"disable_model_invocation": True, "user_invocable": False,
                              "allowed_tools": ["Read", "Grep"]}
    assert found.diagnostics == []


def test_frontmatter_runtime_field_wins_over_skill_yaml_with_a_warning(tmp_path):
    root = tmp_path / "root"
    both = make_skill(root, "both", extra="disable-model-invocation: false\n")
    (both / "skill.yaml").write_text('schema_version: "1.0"\ndisable-model-invocation: true\n', encoding="utf-8")
    result = discovery.scan([Root(str(root), "user", 200)])
    skill = result.get("both")
    assert skill.model_invocable is True
    assert skill.diagnostics == ["`disable-model-invocation` is False in SKILL.md but True in skill.yaml; "
                                 "SKILL.md's value is used"]
    assert [w["warning"] for w in result.report["warnings"]] == skill.diagnostics


def test_skill_yaml_runtime_field_change_invalidates_the_cache(tmp_path):
    root = tmp_path / "root"
    folder = make_skill(root, "later")
    roots = [Root(str(root), "user", 200)]
    cache_dir = tmp_path / "cache"
    assert runtime.discover(roots, cache_dir=cache_dir).get("later").model_invocable is True
    (folder / "skill.yaml").write_text('schema_version: "1.0"\ndisable-model-invocation: true\n', encoding="utf-8")
    runtime.invalidate(False)
    assert runtime.discover(roots, cache_dir=cache_dir).get("later").model_invocable is False


def test_design_002_agent_skills_roots_are_scanned_after_agents_skills(tmp_path):
    """`<repo>/.agent/skills` and `~/.agent/skills` (design 002 §2.1) are roots of their scope, right after
    `.agents/skills`: a name in both is won by `.agents/skills` and reported as an override."""
    home = tmp_path / "home"
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    make_skill(repo / ".agent" / "skills", "design-only", "From the project's .agent/skills.")
    make_skill(repo / ".agent" / "skills", "both", "From .agent/skills.")
    make_skill(repo / ".agents" / "skills", "both", "From .agents/skills.")
    make_skill(home / ".agent" / "skills", "user-design", "From ~/.agent/skills.")
    roots = default_roots(repo, home=home)
    project = [r.path for r in roots if r.source == "project"]
    assert project == [str(repo / ".agents" / "skills"), str(repo / ".agent" / "skills")]
    assert str(home / ".agent" / "skills") in [r.path for r in roots if r.source == "user"]
    result = discovery.scan(roots)
    by_name = result.by_name()
    assert by_name["design-only"].source == "project" and by_name["user-design"].source == "user"
    assert by_name["both"].description == "From .agents/skills."
    (override,) = result.report["overrides"]
    assert override["loser"] == str(repo / ".agent" / "skills" / "both" / "SKILL.md")
    assert override["reason"] == "earlier root in the search order"
