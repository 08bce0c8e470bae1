import json
import os
import re
import subprocess
import sys

import jsonschema
import pytest
from provider_schemas import ANTHROPIC_TOOL, GEMINI_SCHEMA, OPENAI_CHAT_TOOL, OPENAI_RESPONSES_TOOL

from conftest import copy_skill, make_skill
from skillyard.client import targets
from skillyard.errors import SkillyardError
from skillyard.runtime import discovery

DIR_TARGETS = [name for name, t in targets.TARGETS.items() if t.kind == "dir"]
API_TARGETS = [name for name, t in targets.TARGETS.items() if t.kind == "api"]


def _install(hello, scope, project, home):
    root = project if scope == "project" else home
    return copy_skill(hello, root / ".agents" / "skills" / "hello-tool")


def _where_runtime_reads(target, scope, project, home):
    t = targets.TARGETS[target]
    return (project if scope == "project" else home) / t.folder(scope)


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("target", DIR_TARGETS)
def test_each_directory_target_finds_a_runnable_skill(target, scope, hello, project, home):
    canonical = _install(hello, scope, project, home)
    entry = targets.place(canonical, "hello-tool", target, scope=scope, project_root=project, home=home)
    expected = _where_runtime_reads(target, scope, project, home) / "hello-tool"
    assert entry["path"] == str(expected)
    if expected == canonical:
        assert entry["mode"] == "canonical"
    else:
        assert entry["mode"] == "link" and os.path.islink(expected)
        assert not os.path.isabs(os.readlink(expected))  # relative: survives moving the whole tree
    # The runtime's folder lists the skill, and its script runs from there.
    found = discovery.scan([discovery.Root(str(expected.parent), "user", 200)])
    assert found.get("hello-tool").location == str(expected / "SKILL.md")
    run = subprocess.run([sys.executable, "scripts/hello.py", "--help"], cwd=expected, capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 0 and "Say hello" in run.stdout
    run = subprocess.run([sys.executable, "scripts/hello.py", "Ada"], cwd=expected, capture_output=True,
                         text=True, timeout=30)
    assert run.stdout.startswith("hello Ada (")
    targets.remove(entry)
    assert canonical.joinpath("SKILL.md").is_file()  # the canonical copy is never removed
    assert entry["mode"] == "canonical" or not os.path.lexists(expected)


def test_copy_mode_and_remove_only_what_was_placed(hello, project, home):
    canonical = _install(hello, "user", project, home)
    entry = targets.place(canonical, "hello-tool", "claude-code", scope="user", project_root=project, home=home,
                          copy=True)
    path = home / ".claude" / "skills" / "hello-tool"
    assert entry["mode"] == "copy" and path.is_dir() and not path.is_symlink()
    assert (path / "scripts" / "hello.py").read_bytes() == (canonical / "scripts" / "hello.py").read_bytes()
    # Re-placing replaces our own copy; switching to a link also works.
    again = targets.place(canonical, "hello-tool", "claude-code", scope="user", project_root=project, home=home)
    assert again["mode"] == "link" and path.is_symlink()
    targets.remove(entry)  # stale copy entry: the path is now a link, not our copy, so it stays
    assert path.is_symlink()
    targets.remove(again)
    assert not os.path.lexists(path)
    assert (canonical / "SKILL.md").is_file()


def test_refuses_to_overwrite_a_folder_it_did_not_make(hello, project, home):
    canonical = _install(hello, "user", project, home)
    theirs = make_skill(home / ".claude" / "skills", "hello-tool", "Someone else's.")
    with pytest.raises(SkillyardError) as caught:
        targets.place(canonical, "hello-tool", "claude-code", scope="user", project_root=project, home=home)
    assert "was not placed by" in caught.value.message
    assert "Someone else's." in (theirs / "SKILL.md").read_text()


def test_link_removal_never_deletes_the_target(hello, project, home):
    canonical = _install(hello, "user", project, home)
    entry = targets.place(canonical, "hello-tool", "windsurf", scope="user", project_root=project, home=home)
    targets.remove(entry)
    assert sorted(p.name for p in canonical.iterdir()) == ["SKILL.md", "references", "scripts"]


def test_symlink_failure_falls_back_to_copy(hello, project, home, monkeypatch):
    canonical = _install(hello, "user", project, home)

    def no_links(*args, **kwargs):
        raise OSError("symbolic links are not available")

    monkeypatch.setattr(os, "symlink", no_links)
    entry = targets.place(canonical, "hello-tool", "goose", scope="user", project_root=project, home=home)
    assert entry["mode"] == "copy"
    assert (home / ".config" / "goose" / "skills" / "hello-tool" / "scripts" / "hello.py").is_file()


@pytest.mark.parametrize("target", API_TARGETS)
def test_api_targets_generate_valid_provider_tools(target, hello, project, home):
    canonical = _install(hello, "project", project, home)
    entry = targets.place(canonical, "hello-tool", target, scope="project", project_root=project, home=home)
    assert entry["mode"] == "generated"
    out = project / ".agents" / "emit" / target / "hello-tool"
    assert sorted(os.path.basename(f) for f in entry["files"]) == sorted(targets.TARGETS[target].files)
    tools = json.loads((out / "tools.json").read_text())
    if target == "openai":
        names = [t["function"]["name"] for t in tools]
        for tool in tools:
            jsonschema.validate(tool, OPENAI_CHAT_TOOL)
            jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])
        for tool in json.loads((out / "tools.responses.json").read_text()):
            jsonschema.validate(tool, OPENAI_RESPONSES_TOOL)
    elif target == "anthropic-api":
        names = [t["name"] for t in tools]
        for tool in tools:
            jsonschema.validate(tool, ANTHROPIC_TOOL)
            jsonschema.Draft202012Validator.check_schema(tool["input_schema"])
    else:
        # execute-code is Gemini's built-in code_execution tool, not a function the program implements
        declarations, code = tools
        assert code == {"code_execution": {}}
        jsonschema.validate(declarations, GEMINI_SCHEMA)
        names = [t["name"] for t in declarations["function_declarations"]]
        names.insert(1, "code_interpreter")  # served by the built-in tool above
    # capabilities [read-file, execute-code] plus the skill-file reader
    assert names == ["read_file", "code_interpreter", "read_skill_file"]
    system = (out / "system.md").read_text()
    assert system.startswith("# Skill: hello-tool\n") and "scripts/hello.py" in system and "Run `python" in system
    targets.remove(entry)
    assert not out.exists() and canonical.is_dir()


def test_every_capability_tool_validates_for_every_provider():
    from skillyard.runtime import tooldefs

    specs = [*tooldefs.CAPABILITY_SPECS.values(), tooldefs.read_skill_file_spec(["a", "b"])]
    for spec in specs:
        jsonschema.validate(tooldefs.openai_tool(spec), OPENAI_CHAT_TOOL)
        jsonschema.validate(tooldefs.openai_responses_tool(spec), OPENAI_RESPONSES_TOOL)
        jsonschema.validate(tooldefs.anthropic_tool(spec), ANTHROPIC_TOOL)
    jsonschema.validate({"function_declarations": [tooldefs.gemini_declaration(s) for s in specs]}, GEMINI_SCHEMA)


def test_responses_strict_flag_is_true_only_for_schemas_strict_mode_accepts():
    from skillyard.runtime import tooldefs

    read_tool = tooldefs.openai_responses_tool(tooldefs.read_skill_file_spec())
    assert read_tool["strict"] is True
    http_tool = tooldefs.openai_responses_tool(tooldefs.CAPABILITY_SPECS["http-request"])
    assert http_tool["strict"] is False  # `method`, `headers` and `body` are optional
    for spec in tooldefs.CAPABILITY_SPECS.values():
        tool = tooldefs.openai_responses_tool(spec)
        if tool["strict"]:
            params = tool["parameters"]
            assert set(params["required"]) == set(params["properties"]) and params["additionalProperties"] is False


def test_emit_directory_target_copies_the_skill(hello, tmp_path):
    out = tmp_path / "out"
    written = targets.emit(hello, "claude-code", out)
    assert sorted(p.relative_to(out).as_posix() for p in written) == [
        "hello-tool/SKILL.md", "hello-tool/references/notes.md", "hello-tool/scripts/hello.py"]
    with pytest.raises(SkillyardError):
        targets.emit(hello, "claude-code", out)  # never overwrites


def test_unsupported_capability_is_an_error_naming_it(tmp_path):
    skill = make_skill(tmp_path, "gpu-skill", extra="capabilities: [read-file, gpu-compute]\n")
    assert targets.unsupported_capabilities("claude-code", ["read-file", "gpu-compute"]) == ["gpu-compute"]
    with pytest.raises(SkillyardError) as caught:
        targets.emit(skill, "openai", tmp_path / "out")
    assert "gpu-compute" in caught.value.message


def test_unknown_target_lists_the_choices():
    with pytest.raises(SkillyardError) as caught:
        targets.get("vim")
    assert "claude-code" in caught.value.fix


def test_a_runtime_that_reads_the_shared_folder_gets_no_second_copy(tmp_path):
    """Every runtime whose documented scan paths include the shared `.agents/skills` of a scope uses the canonical
    copy there (a link beside it would list each skill twice, as Gemini CLI did); each row names its source."""
    for target in targets.TARGETS.values():
        if target.kind != "dir":
            continue
        assert target.reads and target.source, target.name
        if ".agents/skills" in target.reads or any(r.startswith(".agents/skills ") for r in target.reads):
            assert target.project == targets.CANONICAL, target.name
        if "~/.agents/skills" in target.reads:
            assert target.user == targets.CANONICAL, target.name
    home, project = tmp_path / "home", tmp_path / "project"
    canonical = targets.canonical_path("hello", scope="user", project_root=project, home=home)
    canonical.mkdir(parents=True)
    entry = targets.place(canonical, "hello", "gemini", scope="user", project_root=project, home=home)
    assert entry["mode"] == "canonical"
    assert not (home / ".gemini").exists()


def _skill_with(tmp_path, capabilities, mcp_deps=""):
    folder = make_skill(tmp_path / "src", "calc", "Computes things. Use when numbers need crunching.",
                        extra=f"capabilities: [{capabilities}]\n{mcp_deps}")
    return folder


def test_gemini_execute_code_is_the_builtin_code_execution_tool(tmp_path):
    folder = _skill_with(tmp_path, "execute-code, http-request")
    targets.emit(folder, "gemini-api", tmp_path / "g")
    tools = json.loads((tmp_path / "g" / "tools.json").read_text())
    assert tools[1] == {"code_execution": {}}
    names = [d["name"] for d in tools[0]["function_declarations"]]
    assert names == ["http_request", "read_skill_file"]  # no custom code_interpreter function for Gemini
    assert "`code_execution`" in (tmp_path / "g" / "system.md").read_text()
    assert targets.TARGETS["gemini-api"].capabilities["execute-code"].startswith("code_execution")
    # without execute-code there is no code_execution tool: the model is not given code execution it wasn't asked for
    plain = _skill_with(tmp_path / "p", "read-file")
    targets.emit(plain, "gemini-api", tmp_path / "p" / "g")
    assert [list(t) for t in json.loads((tmp_path / "p" / "g" / "tools.json").read_text())] == [
        ["function_declarations"]]
    # OpenAI and Anthropic have no built-in equivalent in these APIs: a function the program implements
    targets.emit(folder, "openai", tmp_path / "o")
    assert "code_interpreter" in [t["function"]["name"] for t in json.loads((tmp_path / "o" / "tools.json").read_text())]


DEPS = ("mcp_deps:\n  - tool: ocr.recognize\n    required: true\n    description: Reads text\n"
        "  - tool: kb.search\n    required: false\n")


@pytest.mark.parametrize("target", API_TARGETS)
def test_api_targets_report_mcp_deps_as_tools_the_app_provides(target, tmp_path):
    folder = _skill_with(tmp_path, "read-file", DEPS)
    written = targets.emit(folder, target, tmp_path / "out")
    assert "mcp_deps.json" in [p.name for p in written]
    report = json.loads((tmp_path / "out" / "mcp_deps.json").read_text())
    assert report["provided_by"] == "application" and report["target"] == target
    assert report["tools"] == [
        {"tool": "ocr.recognize", "function_name": "ocr__recognize", "required": True, "description": "Reads text"},
        {"tool": "kb.search", "function_name": "kb__search", "required": False, "description": ""}]
    system = (tmp_path / "out" / "system.md").read_text()
    assert "`ocr__recognize` (MCP `ocr.recognize`, required): Reads text" in system
    assert "`kb__search` (MCP `kb.search`, optional)" in system
    # every name is one all three providers accept as a function name
    for tool in report["tools"]:
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", tool["function_name"])
    assert targets.TARGETS[target].to_dict()["mcp_deps"].startswith("app-provided")


def test_skills_without_mcp_deps_get_no_mcp_deps_file(hello, tmp_path):
    written = targets.emit(hello, "openai", tmp_path / "o")
    assert "mcp_deps.json" not in [p.name for p in written]


def test_mcp_function_names_are_valid_and_clashes_are_refused():
    assert targets.mcp_function_name("9x.do thing") == "_9x__do_thing"
    assert len(targets.mcp_function_name("s." + "a" * 100)) == 64
    with pytest.raises(SkillyardError, match="both become function"):
        targets.mcp_tools([{"tool": "a.b"}, {"tool": "a__b"}])


@pytest.mark.parametrize("target", API_TARGETS)
def test_removing_a_generated_placement_also_removes_mcp_deps_json(target, tmp_path, project, home):
    canonical = copy_skill(_skill_with(tmp_path, "read-file", DEPS), project / ".agents" / "skills" / "calc")
    entry = targets.place(canonical, "calc", target, scope="project", project_root=project, home=home)
    out = project / ".agents" / "emit" / target / "calc"
    assert (out / "mcp_deps.json").is_file()
    # placing the next version, whose deps are gone, removes the stale mcp_deps.json
    (canonical / "SKILL.md").write_text((canonical / "SKILL.md").read_text().split("mcp_deps:")[0] + "---\n\nGo.\n")
    entry = targets.place(canonical, "calc", target, scope="project", project_root=project, home=home)
    assert not (out / "mcp_deps.json").exists() and (out / "system.md").is_file()
    # as an uninstall does it: the lock's entry, with only the target table's own file names
    targets.remove({**entry, "files": [str(out / f) for f in targets.TARGETS[target].files]})
    assert not out.exists() and canonical.is_dir()


def test_a_planted_generated_list_never_reaches_outside_the_folder(tmp_path, project, home, hello):
    canonical = _install(hello, "project", project, home)
    entry = targets.place(canonical, "hello-tool", "openai", scope="project", project_root=project, home=home)
    out = project / ".agents" / "emit" / "openai" / "hello-tool"
    outside = project / "keep.txt"
    outside.write_text("mine")
    (out / targets.GENERATED_MARKER).write_text(json.dumps({"files": ["../../../../keep.txt", "/etc/hostname"]}))
    targets.remove(entry)
    assert outside.read_text() == "mine" and not out.exists()
