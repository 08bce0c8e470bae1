"""MCP dependencies checked against Cursor's and Windsurf's own MCP settings, and the variables the agents expand
in those settings (`${env:NAME}`, `${workspaceFolder}`, Claude Code's `${VAR:-default}`) expanded the same way
before a server is started (client/agent_mcp.py, client/agent_vars.py; site/pages/targets.md)."""
# ruff: noqa: F811 (the fixtures imported from test_agent_mcp_deps are parameters here)

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.client_install.test_agent_mcp_deps import (  # noqa: F401 (deps_registry, stdio_server: fixtures)
    _lock,
    _project,
    deps_registry,
    stdio_server,
)

from skillyard.client.agent_vars import Unresolved, expand


def _write(path: Path, servers: dict) -> Path:
    """The editors' files as they write them (a comment, a trailing comma); Claude Code's .mcp.json is plain JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name == ".mcp.json":
        path.write_text(json.dumps({"mcpServers": servers}))
    else:
        path.write_text("{\n  // written by the editor\n  \"mcpServers\": " + json.dumps(servers) + ",\n}\n")
    return path


def test_cursors_project_file_is_read_for_the_cursor_target(deps_registry, stdio_server, skill_cli, tmp_path,
                                                            monkeypatch):
    command, args = stdio_server
    project = _project(tmp_path)
    _write(project / ".cursor" / "mcp.json", {"ocr": {"command": command, "args": args}})
    monkeypatch.chdir(project)
    ok = skill_cli("install", "reads-scans", "--project", "--target", "cursor", "--probe-servers", "--json")
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["skills"][0]["deps"]["against"] == "agents"
    assert _lock(project, "reads-scans")["deps"]["status"] == "checked"
    refused = skill_cli("install", "translates", "--project", "--target", "cursor", "--probe-servers")
    assert refused.code == 1 and "ocr.translate" in refused.err and "Cursor" in refused.err


def test_the_shared_agents_folder_counts_cursors_servers_too(deps_registry, stdio_server, skill_cli, tmp_path,
                                                             monkeypatch, user_home):
    command, args = stdio_server
    _write(user_home / ".cursor" / "mcp.json", {"ocr": {"command": command, "args": args}})
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    refused = skill_cli("install", "translates", "--project", "--target", "agents", "--probe-servers")
    assert refused.code == 1 and "~/.cursor/mcp.json" in refused.err


def test_windsurfs_user_file_is_probed_with_the_config_key(deps_registry, stdio_server, skill_cli, tmp_path,
                                                           monkeypatch, configure, user_home):
    command, args = stdio_server
    _write(user_home / ".codeium" / "windsurf" / "mcp_config.json",
           {"ocr": {"command": command, "args": args}, "off": {"command": "nope", "disabled": True}})
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    configure("mcp.probe_servers", True)  # the user's own file: the key is enough
    ok = skill_cli("install", "reads-scans", "--project", "--target", "windsurf")
    assert ok.code == 0, ok.err
    assert _lock(project, "reads-scans")["deps"]["status"] == "checked"
    refused = skill_cli("install", "translates", "--project", "--target", "windsurf")
    assert refused.code == 1 and "~/.codeium/windsurf/mcp_config.json" in refused.err


@pytest.mark.parametrize(("target", "where", "command", "arg"), [
    ("cursor", ".cursor/mcp.json", "${env:TEST_MCP_PYTHON}", "${workspaceFolder}${/}ocr_server.py"),
    ("windsurf", "~/.codeium/windsurf/mcp_config.json", "${env:TEST_MCP_PYTHON}", "${env:TEST_MCP_DIR}/ocr_server.py"),
    ("claude-code", ".mcp.json", "${TEST_MCP_PYTHON}", "${TEST_MCP_UNSET:-PROJECT}/ocr_server.py"),
])
def test_the_agents_variables_are_expanded_before_a_server_is_started(target, where, command, arg, deps_registry,
                                                                      stdio_server, skill_cli, tmp_path, monkeypatch,
                                                                      user_home):
    _python, (script, *rest) = stdio_server
    project = _project(tmp_path)
    (project / "ocr_server.py").write_text(Path(script).read_text())
    arg = arg.replace("PROJECT", str(project))  # Claude Code's default is plain text (no nested reference)
    path = user_home / where[2:] if where.startswith("~/") else project / where
    _write(path, {"ocr": {"command": command, "args": [arg, *rest]}})
    monkeypatch.chdir(project)
    monkeypatch.setenv("TEST_MCP_DIR", str(project))
    monkeypatch.delenv("TEST_MCP_UNSET", raising=False)
    monkeypatch.delenv("TEST_MCP_PYTHON", raising=False)
    unset = skill_cli("install", "reads-scans", "--project", "--target", target, "--probe-servers")
    assert unset.code == 0, unset.err  # not started: the variable is not set (the agent would not start it either)
    assert "TEST_MCP_PYTHON} is not set" in unset.err
    assert _lock(project, "reads-scans")["deps"]["status"] == "unchecked"
    monkeypatch.setenv("TEST_MCP_PYTHON", sys.executable)
    ok = skill_cli("install", "reads-scans", "--project", "--target", target, "--probe-servers", "--force")
    assert ok.code == 0, ok.err
    assert _lock(project, "reads-scans")["deps"]["status"] == "checked"


def test_a_value_read_from_a_file_leaves_the_server_unstarted(deps_registry, skill_cli, tmp_path, monkeypatch,
                                                              user_home):
    marker = tmp_path / "started"
    _write(user_home / ".codeium" / "windsurf" / "mcp_config.json", {"ocr": {
        "command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w').close()", "${file:/etc/hostname}"]}})
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    result = skill_cli("install", "reads-scans", "--project", "--target", "windsurf", "--probe-servers")
    assert result.code == 0, result.err
    assert not marker.exists() and "${file:/etc/hostname} is a file's contents" in result.err


def test_expand_follows_each_agents_syntax():
    env = {"A": "1", "EMPTY": ""}
    where = {"env": env, "project": Path("/p/proj"), "home": Path("/home/u")}
    assert expand("${A}-${B:-two}-${EMPTY:-x}-$A-${env:A}", "claude", **where) == "1-two--$A-${env:A}"
    assert expand("${env:A}${userHome}|${workspaceFolder}|${workspaceFolderBasename}", "cursor", **where) == \
        "1/home/u|/p/proj|proj"
    assert expand("${env:A}-${A}", "codex-has-none", **where) == "${env:A}-${A}"
    for text, style in [("${B}", "claude"), ("${env:B}", "cursor"), ("${userHome}", "windsurf"),
                        ("${input:token}", "cursor"), ("${file:/x}", "windsurf")]:
        with pytest.raises(Unresolved):
            expand(text, style, **where)


@given(text=st.text(max_size=60), style=st.sampled_from(["claude", "cursor", "windsurf", ""]))
def test_expand_never_fails_otherwise_and_leaves_plain_text_alone(text, style):
    where = {"env": {"A": "x" * 5}, "project": Path("/p"), "home": Path("/h")}
    try:
        out = expand(text, style, **where)
    except Unresolved:
        return
    if "${" not in text:
        assert out == text
    assert len(out) <= len(text) * 5 + 10
