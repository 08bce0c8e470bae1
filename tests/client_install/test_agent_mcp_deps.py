"""MCP dependencies with no hub (issue 27): checked against the MCP servers the target agent itself has configured
(Claude Code, Codex, Gemini CLI, VS Code), local servers asked for their tools through the official SDK (a real
stdio MCP server started from the test); nothing to check against installs with a warning and an "unchecked"
lock; `--require-deps` refuses instead; a restore from skills.lock.json handles deps as the install did."""

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from tests.support.registry import publish_built_registry, registry_url, skill_md

REPO = Path(__file__).resolve().parents[2]

STDIO_SERVER = textwrap.dedent('''
    import sys
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(sys.argv[1])
    for name in sys.argv[2].split(","):
        def handler(text: str = "") -> str:
            return text
        server.tool(name=name, description="test tool " + name)(handler)
    server.run()  # stdio
''')


@pytest.fixture
def stdio_server(tmp_path):
    """(command, args) of a real MCP server over stdio, named `ocr`, offering the tool `recognize`."""
    script = tmp_path / "ocr_server.py"
    script.write_text(STDIO_SERVER)
    return sys.executable, [str(script), "ocr", "recognize"]


def _skill(name, deps):
    return {"name": name, "description": f"{name} skill.", "version": "1.0.0",
            "files": {"SKILL.md": skill_md(name, f"{name} skill.", version="1.0.0", license="MIT", mcp_deps=deps)}}


@pytest.fixture
def deps_registry(git_server, configure):
    skills = [
        _skill("reads-scans", [{"tool": "ocr.recognize", "required": True}]),
        _skill("translates", [{"tool": "ocr.translate", "required": True}]),
    ]
    publish_built_registry(git_server, "acme", "deps", skills)
    configure.source("acme", registry_url(git_server, "acme", "deps"))


def _project(tmp_path, name="proj"):
    project = tmp_path / name
    project.mkdir()
    return project


def _lock(project, name):
    return json.loads((project / ".agents" / "skills" / name / "skill.lock.json").read_text())


def _claude_mcp(project, command, args):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"ocr": {"command": command, "args": args}}}))


# ------------------------------------------------------------------------------------- the README's headline


def test_readme_example_with_no_hub_installs_with_a_warning_and_an_unchecked_lock(git_server, configure, skill_cli,
                                                                                   tmp_path, monkeypatch):
    folder = REPO / "skills" / "invoice-processor"
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts}
    publish_built_registry(git_server, "acme", "skills", [{"name": "invoice-processor", "files": files}])
    configure.source("acme", registry_url(git_server, "acme", "skills"))
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    result = skill_cli("install", "invoice-processor", "--target", "claude-code", "--project")
    assert result.code == 0, result.err
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:") and "not checked" in line]
    assert len(warnings) == 1 and "ocr.recognize, kb.upload" in warnings[0] and "invoice-processor" in warnings[0]
    assert _lock(project, "invoice-processor")["deps"] == {"status": "unchecked", "checked": False}
    entry = json.loads((project / "skills.lock.json").read_text())["skills"]["invoice-processor"]
    assert entry["deps"] == {"status": "unchecked", "checked": False}
    assert (project / ".claude" / "skills" / "invoice-processor" / "SKILL.md").is_file()


# ---------------------------------------------------------------------------- Claude Code, a real stdio server


def test_claude_code_stdio_server_satisfies_a_required_tool(deps_registry, stdio_server, skill_cli, tmp_path,
                                                            monkeypatch):
    project = _project(tmp_path)
    _claude_mcp(project, *stdio_server)
    monkeypatch.chdir(project)
    result = skill_cli("install", "reads-scans", "--project", "--target", "claude-code", "--probe-servers", "--json")
    assert result.code == 0, result.err
    deps = json.loads(result.out)["skills"][0]["deps"]
    assert deps["checked"] and deps["against"] == "agents" and deps["deps"][0]["available"] is True
    assert "`ocr`" in deps["deps"][0]["why"] and ".mcp.json" in deps["deps"][0]["why"]
    assert _lock(project, "reads-scans")["deps"] == {"status": "checked", "checked": True, "against": "agents"}


def test_claude_code_stdio_server_without_the_tool_refuses_naming_it(deps_registry, stdio_server, skill_cli,
                                                                     tmp_path, monkeypatch):
    project = _project(tmp_path)
    _claude_mcp(project, *stdio_server)
    monkeypatch.chdir(project)
    result = skill_cli("install", "translates", "--project", "--target", "claude-code", "--probe-servers")
    assert result.code == 1
    assert "ocr.translate" in result.err and "nothing was installed" in result.err and "`ocr`" in result.err
    assert "--skip-deps-check" in result.err
    assert not (project / ".agents").exists() and not (project / "skills.lock.json").exists()


def test_a_project_server_is_not_started_without_being_asked(deps_registry, stdio_server, skill_cli, tmp_path,
                                                             monkeypatch, configure):
    """A project's .mcp.json comes with a clone: its command runs only with --probe-servers, never because of
    the config key (which covers the user's own files in the home folder)."""
    project = _project(tmp_path)
    marker = tmp_path / "started"
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"ocr": {
        "command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').close()"]}}}))
    monkeypatch.chdir(project)
    configure("mcp.probe_servers", True)
    result = skill_cli("install", "translates", "--project", "--target", "claude-code")
    assert result.code == 0, result.err
    assert not marker.exists()
    assert "--probe-servers" in result.err and "ocr.translate" in result.err
    assert _lock(project, "translates")["deps"]["status"] == "unchecked"


def test_the_config_key_probes_the_users_own_claude_settings(deps_registry, stdio_server, skill_cli, tmp_path,
                                                             monkeypatch, configure, user_home):
    project = _project(tmp_path)
    command, args = stdio_server
    (user_home / ".claude.json").write_text(json.dumps({
        "numStartups": 3, "projects": {str(project): {"mcpServers": {"ocr": {"command": command, "args": args}}}}}))
    monkeypatch.chdir(project)
    configure("mcp.probe_servers", True)
    ok = skill_cli("install", "reads-scans", "--project", "--target", "claude-code")
    assert ok.code == 0, ok.err
    assert _lock(project, "reads-scans")["deps"]["status"] == "checked"
    refused = skill_cli("install", "translates", "--project", "--target", "claude-code")
    assert refused.code == 1 and "ocr.translate" in refused.err and "~/.claude.json" in refused.err


# ------------------------------------------------------------------------------------ Codex, Gemini, VS Code


def _write_agent_config(agent, project, home, command, args):
    if agent == "codex":
        path = home / ".codex" / "config.toml"
        text = (f"model = \"x\"\n\n[mcp_servers.ocr]\ncommand = {json.dumps(command)}\n"
                f"args = {json.dumps(args)}\n\n[mcp_servers.off]\ncommand = \"nope\"\nenabled = false\n")
    elif agent == "gemini":
        path = project / ".gemini" / "settings.json"
        text = json.dumps({"theme": "x", "mcpServers": {"ocr": {"command": command, "args": args, "timeout": 30000}}})
    else:  # VS Code writes JSON with comments and trailing commas
        path = project / ".vscode" / "mcp.json"
        text = ("{\n  // servers for Copilot\n  \"inputs\": [],\n  \"servers\": {\"ocr\": {\"type\": \"stdio\", "
                f"\"command\": {json.dumps(command)}, /* the test server */ \"args\": {json.dumps(args)},}},}},\n}}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize(("target", "agent"), [("codex", "codex"), ("gemini", "gemini"), ("copilot", "vscode")])
def test_codex_gemini_and_vscode_settings_are_read(target, agent, deps_registry, stdio_server, skill_cli, tmp_path,
                                                   monkeypatch, user_home):
    project = _project(tmp_path)
    _write_agent_config(agent, project, user_home, *stdio_server)
    monkeypatch.chdir(project)
    ok = skill_cli("install", "reads-scans", "--project", "--target", target, "--probe-servers", "--json")
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["skills"][0]["deps"]["against"] == "agents"
    assert _lock(project, "reads-scans")["deps"]["status"] == "checked"
    refused = skill_cli("install", "translates", "--project", "--target", target, "--probe-servers")
    assert refused.code == 1 and "ocr.translate" in refused.err


@pytest.mark.parametrize(("agent", "path", "text"), [
    ("codex", ".codex/config.toml", '[mcp_servers.ocr]\ncommand = "x"\ndisabled_tools = ["translate"]\n'),
    ("gemini", ".gemini/settings.json", '{"mcpServers": {"ocr": {"command": "x", "excludeTools": ["translate"]}}}'),
])
def test_a_tool_the_agent_filters_out_refuses_without_starting_anything(agent, path, text, deps_registry, skill_cli,
                                                                        user_home, tmp_path):
    (user_home / path).parent.mkdir(parents=True)
    (user_home / path).write_text(text)
    result = skill_cli("install", "translates", "--target", agent)
    assert result.code == 1 and "ocr.translate" in result.err and "filters it out" in result.err


# ----------------------------------------------------------------------------------------- hostile settings


@pytest.mark.parametrize(("path", "content", "says"), [
    (".mcp.json", b'{"mcpServers": {', "not valid JSON"),
    (".mcp.json", b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
    (".mcp.json", b"\xff\xfe\x00garbage", "not valid JSON"),
    (".mcp.json", b'{"mcpServers": ["ocr"]}', "not a table of servers"),
    (".mcp.json", b'{"mcpServers": {"ocr": 5, "kb": {"command": ["no"]}, "x": null}}', None),
    (".mcp.json", b'{"mcpServers": {"a": {' + b'"command": "x", ' * 10 + b'"args": 1}}}', None),
    (".mcp.json", b" " * (8 * 1024 * 1024 + 1), "larger than 8 MiB"),
    (".codex/config.toml", b"[mcp_servers.ocr\ncommand = ", "not valid TOML"),
    (".codex/config.toml", b"x = " + b"[" * 100_000, "nested too deeply"),
])
def test_malformed_or_huge_settings_warn_and_never_crash(path, content, says, deps_registry, skill_cli, tmp_path,
                                                         monkeypatch):
    project = _project(tmp_path)
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_bytes(content)
    monkeypatch.chdir(project)
    result = skill_cli("install", "reads-scans", "--project", "--target", "claude-code", "--target", "codex")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    if says:
        assert says in result.err and path in result.err
    assert _lock(project, "reads-scans")["deps"]["status"] == "unchecked"


# ------------------------------------------------------------------------------------------- --require-deps


def test_require_deps_with_nothing_to_check_refuses(deps_registry, skill_cli, user_home):
    result = skill_cli("install", "reads-scans", "--require-deps")
    assert result.code == 1 and "ocr.recognize" in result.err and "nothing was installed" in result.err
    assert "skill config unset mcp.require_deps" in result.err or "--require-deps" in result.err
    assert not (user_home / ".agents" / "skills" / "reads-scans").exists()
    assert skill_cli("config", "set", "mcp.require_deps", "true").code == 0
    by_config = skill_cli("install", "reads-scans")
    assert by_config.code == 1 and "mcp.require_deps" in by_config.err
    assert "`skill config unset mcp.require_deps`" in by_config.err
    assert skill_cli("config", "unset", "mcp.require_deps").code == 0  # the fix, word for word
    assert skill_cli("install", "reads-scans").code == 0
    assert skill_cli("install", "reads-scans", "--skip-deps-check", "--force").code == 0
    assert skill_cli("install", "reads-scans", "--skip-deps-check", "--require-deps", "--force").code == 1


# --------------------------------------------------------------------------------- restore from the lockfile


def _restore_in_new_folder(tmp_path, project, skill_cli, monkeypatch, *extra):
    other = _project(tmp_path, "clone")
    shutil.copy(project / "skills.lock.json", other / "skills.lock.json")
    monkeypatch.chdir(other)
    return other, skill_cli("install", *extra)


def test_restore_of_an_unchecked_install_installs_with_a_warning(deps_registry, skill_cli, tmp_path, monkeypatch):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    assert skill_cli("install", "reads-scans", "--project", "--target", "claude-code").code == 0
    other, result = _restore_in_new_folder(tmp_path, project, skill_cli, monkeypatch)
    assert result.code == 0, result.err
    assert "not checked" in result.err
    assert _lock(other, "reads-scans")["deps"] == {"status": "unchecked", "checked": False}
    assert (other / "skills.lock.json").read_bytes() == (project / "skills.lock.json").read_bytes()


def test_restore_remembers_skip_deps_check(deps_registry, skill_cli, tmp_path, monkeypatch, configure):
    """The skipped check is remembered: with a hub configured that cannot be reached (which refuses an install
    that checks), the restore skips as the install did."""
    configure("mcp_hub.endpoint", "http://127.0.0.1:9/hub")
    configure("mcp_hub.timeout", 500)
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    assert skill_cli("install", "reads-scans", "--project").code == 1
    done = skill_cli("install", "reads-scans", "--project", "--skip-deps-check")
    assert done.code == 0, done.err
    assert _lock(project, "reads-scans")["deps"] == {"status": "skipped", "checked": False}
    other, result = _restore_in_new_folder(tmp_path, project, skill_cli, monkeypatch)
    assert result.code == 0, result.err
    assert _lock(other, "reads-scans")["deps"]["status"] == "skipped"


def test_restore_remembers_a_required_check(deps_registry, stdio_server, skill_cli, tmp_path, monkeypatch):
    project = _project(tmp_path)
    _claude_mcp(project, *stdio_server)
    monkeypatch.chdir(project)
    done = skill_cli("install", "reads-scans", "--project", "--target", "claude-code", "--require-deps",
                     "--probe-servers")
    assert done.code == 0, done.err
    assert _lock(project, "reads-scans")["deps"] == {"status": "checked", "checked": True, "required": True,
                                                     "against": "agents"}
    other, result = _restore_in_new_folder(tmp_path, project, skill_cli, monkeypatch)  # no .mcp.json there
    assert result.code == 1 and "ocr.recognize" in result.err and "nothing was installed" in result.err
    _claude_mcp(other, *stdio_server)
    again = skill_cli("install", "--probe-servers")
    assert again.code == 0, again.err


# ------------------------------------------------------------------------------------------ property: readers

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=20)
_server = st.fixed_dictionaries({}, optional={
    "command": _json | st.text(max_size=8), "args": _json, "env": _json, "url": _json, "enabled": _json,
    "disabled": _json, "includeTools": _json | st.lists(st.text(max_size=6), max_size=3),
    "excludeTools": _json, "enabled_tools": _json, "disabled_tools": _json})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=st.one_of(_json, st.fixed_dictionaries({"mcpServers": st.dictionaries(st.text(max_size=6),
                                                                                       _server | _json, max_size=4)})),
       tool=st.text(max_size=12))
def test_any_json_settings_read_without_raising(document, tool, tmp_path):
    """Whatever JSON a settings file holds, reading it and judging a tool against it never raises."""
    from skillyard.client import agent_mcp

    folder = tmp_path / "p"
    folder.mkdir(exist_ok=True)
    (folder / ".mcp.json").write_text(json.dumps(document))
    servers = agent_mcp.read_servers(["claude-code"], folder, tmp_path / "home")
    assert all(isinstance(s.name, str) and s.tools is None for s in servers.servers)
    state, why = agent_mcp.verdict(tool, servers.servers)
    assert state in (None, False) and isinstance(why, str)


def test_check_deps_with_no_hub_asks_the_agents_servers(deps_registry, stdio_server, skill_cli, tmp_path,
                                                        monkeypatch):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    assert skill_cli("install", "reads-scans", "translates", "--project", "--target", "claude-code").code == 0
    unchecked = skill_cli("check-deps", "--project")
    assert unchecked.code == 0, unchecked.err
    assert "reads-scans: not checked" in unchecked.out
    assert skill_cli("check-deps", "--project", "--require-deps").code == 1
    _claude_mcp(project, *stdio_server)
    checked = skill_cli("check-deps", "--project", "--probe-servers", "--json")
    assert checked.code == 1
    states = {r["skill"]: r["deps"][0]["available"] for r in json.loads(checked.out)["skills"]}
    assert states == {"reads-scans": True, "translates": False}
    text = skill_cli("check-deps", "translates", "--project", "--probe-servers")
    assert text.code == 1 and "ocr.translate" in text.err and "MISSING" in text.out


@pytest.mark.parametrize("behaviour", ["hangs", "prints junk", "exits"])
def test_a_local_server_that_misbehaves_is_a_warning_and_is_stopped(behaviour, deps_registry, skill_cli, tmp_path,
                                                                    monkeypatch, configure):
    import os

    project = _project(tmp_path)
    pid_file = tmp_path / "pid"
    body = {"hangs": "time.sleep(600)", "prints junk": "print('not json ' * 1000, flush=True); time.sleep(600)",
            "exits": "sys.exit(3)"}[behaviour]
    code = f"import os, sys, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); {body}"
    _claude_mcp(project, sys.executable, ["-c", code])
    monkeypatch.chdir(project)
    configure("mcp.probe_timeout", 1500)
    result = skill_cli("install", "reads-scans", "--project", "--target", "claude-code", "--probe-servers")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "could not be asked" in result.err and "`ocr`" in result.err
    assert _lock(project, "reads-scans")["deps"]["status"] == "unchecked"
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our zombie child
        os.kill(pid, 0)
        alive = True
    except (ProcessLookupError, ChildProcessError):
        alive = False
    assert not alive


def test_update_handles_deps_as_the_install_did(git_server, configure, skill_cli, user_home):
    publish_built_registry(git_server, "acme", "deps", [_skill("reads-scans", [{"tool": "ocr.recognize"}])])
    configure.source("acme", registry_url(git_server, "acme", "deps"))
    configure("mcp_hub.endpoint", "http://127.0.0.1:9/hub")  # cannot be reached: a check would refuse
    configure("mcp_hub.timeout", 500)
    assert skill_cli("install", "reads-scans", "--skip-deps-check").code == 0
    newer = _skill("reads-scans", [{"tool": "ocr.recognize"}])
    newer["version"] = "1.1.0"
    newer["files"]["SKILL.md"] = skill_md("reads-scans", "reads-scans skill.", "# Newer\n", version="1.1.0",
                                          license="MIT", mcp_deps=[{"tool": "ocr.recognize"}])
    publish_built_registry(git_server, "acme", "deps", [newer])
    result = skill_cli("update", "reads-scans")
    assert result.code == 0, result.err
    lock = json.loads((user_home / ".agents" / "skills" / "reads-scans" / "skill.lock.json").read_text())
    assert lock["version"] == "1.1.0" and lock["deps"] == {"status": "skipped", "checked": False}


_jsonc_piece = st.sampled_from(["// line comment\n", "/* block */", " ", "\n"])


@settings(max_examples=200, deadline=None)
@given(value=_json, junk=st.lists(_jsonc_piece, max_size=3))
def test_jsonc_with_comments_and_trailing_commas_reads_as_the_json(value, junk):
    """strip_jsonc(JSON text with comments and trailing commas added between tokens) parses to the same value;
    a string holding comment or comma characters is left alone."""
    from skillyard.client.agent_mcp import strip_jsonc

    text = json.dumps(value, ensure_ascii=False)
    noise = "".join(junk)
    noisy = text.replace("[", "[" + noise).replace("{", "{" + noise) if '"' not in text else text
    if noisy.endswith(("]", "}")) and noisy not in ("[]", "{}"):
        noisy = noisy[:-1] + "," + noise + noisy[-1]
    assert json.loads(strip_jsonc(noisy)) == value
    assert json.loads(strip_jsonc(json.dumps(["// x", "/* y */", "a,]", value]))) == ["// x", "/* y */", "a,]", value]
