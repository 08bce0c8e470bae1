"""`skill mcp add --target ...` (issue 38 item 6): the server goes into the very files `skill install` reads for MCP
dependencies (client/agent_mcp.py), plus Claude Desktop's; only our entry changes (other servers, keys, order,
comments and formatting stay byte for byte), a second run changes nothing, a malformed file is refused naming it
and left untouched, and the entry written really starts a server the MCP SDK's client can talk to."""

from __future__ import annotations

import difflib
import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.cli_schemas import check_output
from tests.support.fixtures import skill_cli, skill_home  # noqa: F401 - fixtures

from skillyard.client import agent_mcp

SKILL = str(Path(sys.executable).with_name("skill"))
USER_FILES = {"claude-desktop": ".config/Claude/claude_desktop_config.json", "vscode": ".config/Code/User/mcp.json",
              "cursor": ".cursor/mcp.json", "windsurf": ".codeium/windsurf/mcp_config.json",
              "codex": ".codex/config.toml", "gemini": ".gemini/settings.json"}
PROJECT_FILES = {"vscode": ".vscode/mcp.json", "cursor": ".cursor/mcp.json", "codex": ".codex/config.toml",
                 "gemini": ".gemini/settings.json"}
KEY = {"vscode": "servers"}  # the others keep servers under mcpServers (Codex: [mcp_servers.NAME])


@pytest.fixture
def home(skill_home, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.delenv("CODEX_HOME", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return Path(os.environ["HOME"])


def add(skill_cli, *argv):  # noqa: F811
    return skill_cli("mcp", "add", *argv)


def servers_of(path: Path, target: str) -> dict:
    if target == "codex":
        return tomllib.loads(path.read_text())["mcp_servers"]
    return json.loads(agent_mcp.strip_jsonc(path.read_text()))[KEY.get(target, "mcpServers")]


def only_added(before: str, after: str) -> list[str]:
    """The lines a diff adds; fails when it removes or changes any line of `before` (but for the comma the line
    before an inserted member gains)."""
    diff = [d for d in difflib.ndiff(before.splitlines(), after.splitlines()) if d[:2] in ("- ", "+ ")]
    comma = {d[2:] for d in diff if d.startswith("- ") and f"+ {d[2:]}," in diff}
    assert not [d for d in diff if d.startswith("- ") and d[2:] not in comma], "\n".join(diff)
    return [d[2:] for d in diff if d.startswith("+ ") and d[2:-1] not in comma]


@pytest.mark.parametrize("target", sorted(USER_FILES))
def test_each_target_gets_the_server_in_its_user_file_once(home, skill_cli, target):  # noqa: F811
    result = add(skill_cli, "--target", target)
    assert result.code == 0, result.err
    path = home / USER_FILES[target]
    assert str(path) in result.out and "added the `skillyard` server" in result.out
    entry = servers_of(path, target)["skillyard"]
    assert entry["command"] == SKILL and entry["args"] == ["mcp"]
    assert entry.get("type") == ("stdio" if target == "vscode" else None)
    before = path.read_bytes()
    again = add(skill_cli, "--target", target)
    assert again.code == 0 and "nothing to change" in again.out and path.read_bytes() == before
    if target != "claude-desktop":  # what `skill install` reads back for MCP dependencies
        found = agent_mcp.read_servers([target], Path.cwd(), home)
        assert [(s.name, s.command, s.args) for s in found.servers] == [("skillyard", SKILL, ["mcp"])]


@pytest.mark.parametrize("target", sorted(PROJECT_FILES))
def test_project_files_and_the_workspace_variable(home, skill_cli, target):  # noqa: F811
    result = add(skill_cli, "--target", target, "--project", "--agent", "reviewer", "--json")
    data = check_output("skill mcp add", result.code, result.out)
    path = Path.cwd() / PROJECT_FILES[target]
    assert data["file"] == str(path) and data["scope"] == "project" and data["status"] == "added"
    args = servers_of(path, target)["skillyard"]["args"]
    workspace = ["--project", "${workspaceFolder}"] if target in ("vscode", "cursor") else []
    assert args == ["mcp", "--agent", "reviewer", *workspace] == data["entry"]["args"]
    assert not (home / USER_FILES[target]).exists()


@pytest.mark.parametrize("target", ["claude-desktop", "windsurf"])
def test_a_scope_the_agent_does_not_have_is_refused(home, skill_cli, target):  # noqa: F811
    result = add(skill_cli, "--target", target, "--project", "--json")
    data = check_output("skill mcp add", result.code, result.out)
    assert result.code == 2 and "no project" in data["error"] and "Drop --project" in data["fix"]
    assert not list(Path.cwd().iterdir())


def test_codex_home_is_honoured(home, skill_cli, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    assert add(skill_cli, "--target", "codex").code == 0
    assert "skillyard" in servers_of(tmp_path / "codex-home" / "config.toml", "codex")
    assert not (home / ".codex").exists()


JSONC = """{
    // servers I use every day
    "servers": {
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/" // remote
        }, // trailing comma next
    },
    /* inputs come last */
    "inputs": [],
}
"""


def test_jsonc_keeps_comments_trailing_commas_order_and_other_servers(home, skill_cli):  # noqa: F811
    path = home / USER_FILES["vscode"]
    path.parent.mkdir(parents=True)
    path.write_text(JSONC)
    assert add(skill_cli, "--target", "vscode").code == 0
    after = path.read_text()
    added = only_added(JSONC, after)
    assert added[0].strip() == '"skillyard": {' and added[-1].strip() == "},"  # inserted whole, comma kept
    assert all(line.startswith("        ") for line in added)  # the indentation found there
    data = json.loads(agent_mcp.strip_jsonc(after))
    assert list(data) == ["servers", "inputs"] and list(data["servers"]) == ["github", "skillyard"]


CLAUDE = '{\n    "globalShortcut": "Ctrl+Space",\n    "mcpServers": {\n        "files": {"command": "npx", ' \
         '"args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},\n        "skillyard": {"command": ' \
         '"/old/skill", "args": ["mcp"]}\n    },\n    "zoom": 1.5\n}\n'


def test_an_old_entry_is_replaced_in_place_and_nothing_else_moves(home, skill_cli):  # noqa: F811
    path = home / USER_FILES["claude-desktop"]
    path.parent.mkdir(parents=True)
    path.write_text(CLAUDE)
    result = add(skill_cli, "--target", "claude-desktop", "--json")
    assert check_output("skill mcp add", result.code, result.out)["status"] == "updated"
    after = path.read_text()
    diff = [d for d in difflib.ndiff(CLAUDE.splitlines(), after.splitlines()) if d[:1] in "+-"]
    assert [d for d in diff if d.startswith("- ")] == ['-         "skillyard": {"command": "/old/skill", "args": '
                                                       '["mcp"]}']
    data = json.loads(after)
    assert list(data) == ["globalShortcut", "mcpServers", "zoom"] and data["zoom"] == 1.5
    assert list(data["mcpServers"]) == ["files", "skillyard"] and data["mcpServers"]["skillyard"]["command"] == SKILL


CODEX = """# my Codex settings
model = "gpt-5"  # the default

[mcp_servers.skillyard]
command = "/old/skill"
args = ["mcp"]

[mcp_servers.skillyard.env]
OLD = "1"

# the docs server
[mcp_servers.docs]
url = "https://example.com/mcp"
"""


def test_codex_toml_replaces_only_our_table_and_keeps_comments(home, skill_cli):  # noqa: F811
    path = home / USER_FILES["codex"]
    path.parent.mkdir(parents=True)
    path.write_text(CODEX)
    assert add(skill_cli, "--target", "codex").code == 0
    after = path.read_text()
    assert after.startswith('# my Codex settings\nmodel = "gpt-5"  # the default\n\n[mcp_servers.skillyard]\n')
    assert after.endswith('\n\n# the docs server\n[mcp_servers.docs]\nurl = "https://example.com/mcp"\n')
    data = tomllib.loads(after)
    assert data["mcp_servers"]["skillyard"] == {"command": SKILL, "args": ["mcp"]}  # its old env table went too
    assert data["mcp_servers"]["docs"] == {"url": "https://example.com/mcp"} and data["model"] == "gpt-5"
    before = path.read_bytes()
    assert add(skill_cli, "--target", "codex").code == 0 and path.read_bytes() == before


def test_codex_toml_appends_after_the_users_tables(home, skill_cli):  # noqa: F811
    path = home / USER_FILES["codex"]
    path.parent.mkdir(parents=True)
    text = '# keep me\n[mcp_servers.docs]\nurl = "https://example.com/mcp"  # remote\n'
    path.write_text(text)
    assert add(skill_cli, "--target", "codex").code == 0
    assert path.read_text() == text + f'\n[mcp_servers.skillyard]\ncommand = "{SKILL}"\nargs = ["mcp"]\n'


@pytest.mark.parametrize(("target", "text", "why"), [
    ("claude-desktop", '{"mcpServers": {"a": {"command": "x"},}}', "not valid JSON (line 1: a trailing comma)"),
    ("gemini", '{"mcpServers": {\n  "a": \n', "not valid JSON with comments (line 3: a value was expected)"),
    ("cursor", '["not", "an", "object"]', "is not a JSON object at the top"),
    ("windsurf", '{"mcpServers": ["x"]}', "has `mcpServers` that is not an object"),
    ("codex", 'model = "x"\n[mcp_servers\n', "is not valid TOML"),
    ("codex", 'mcp_servers = { skillyard = { command = "x" } }\n', "in a form this command does not rewrite"),
])
def test_a_malformed_file_is_refused_naming_it_and_left_alone(home, skill_cli, target, text, why):  # noqa: F811
    path = home / USER_FILES[target]
    path.parent.mkdir(parents=True)
    path.write_text(text)
    result = add(skill_cli, "--target", target, "--json")
    data = check_output("skill mcp add", result.code, result.out)
    assert result.code == 1 and data["error"].startswith(f"{path} ") and why in data["error"]
    assert "left as it is" in data["error"] and "Fix the file by hand" in data["fix"]
    assert path.read_text() == text


def test_dry_run_shows_the_diff_and_writes_nothing(home, skill_cli):  # noqa: F811
    path = home / USER_FILES["gemini"]
    path.parent.mkdir(parents=True)
    path.write_text('{"theme": "dark"}\n')
    result = add(skill_cli, "--target", "gemini", "--dry-run")
    assert result.code == 0 and "nothing was written (--dry-run)" in result.out
    assert f"--- {path}" in result.out and '+{"theme": "dark", "mcpServers": {"skillyard": ' in result.out
    assert path.read_text() == '{"theme": "dark"}\n'
    data = check_output("skill mcp add", *_code_out(add(skill_cli, "--target", "gemini", "--dry-run", "--json")))
    assert data["dry_run"] is True and data["status"] == "added" and path.read_text() == '{"theme": "dark"}\n'


def _code_out(result):
    return result.code, result.out


def test_a_symlinked_settings_file_is_written_through(home, skill_cli, tmp_path):  # noqa: F811
    real = tmp_path / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{"mcpServers": {}}\n')
    link = home / USER_FILES["cursor"]
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert add(skill_cli, "--target", "cursor").code == 0
    assert link.is_symlink() and "skillyard" in json.loads(real.read_text())["mcpServers"]


documents = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                         lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                       max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "mcpServers"), documents, max_size=4),
       servers=st.dictionaries(st.text(max_size=6), documents, max_size=3), indent=st.sampled_from([None, 2, 4, "\t"]))
def test_any_json_document_gains_exactly_our_entry(home, doc, servers, indent):
    from skillyard.client import mcp_settings

    settings_ = mcp_settings.settings_for("cursor", project=False, project_root=Path.cwd(), home=home)
    original = dict(doc, mcpServers=servers)
    settings_.path.parent.mkdir(parents=True, exist_ok=True)
    settings_.path.write_text(json.dumps(original, indent=indent, ensure_ascii=False))
    entry = {"command": "/x/skill", "args": ["mcp"]}
    change = mcp_settings.plan_change(settings_, "skillyard", entry)
    assert json.loads(change.after) == dict(original, mcpServers=dict(servers, skillyard=entry))
    if servers and "skillyard" not in servers and indent is not None:
        only_added(change.before, change.after)


def test_the_written_entry_starts_a_server_the_sdk_client_talks_to(home, skill_cli, tmp_path):  # noqa: F811
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    import anyio
    from mcp.client import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    skill = home / ".agents" / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Tidies notes. Use when asked.\n---\n\n# Notes\n")
    assert add(skill_cli, "--target", "claude-desktop").code == 0
    entry = servers_of(home / USER_FILES["claude-desktop"], "claude-desktop")["skillyard"]
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "SKILL_PATH": "",
           "SKILL_DEFAULT_SOURCE": "none", "SKILLCLI_HOME": os.environ["SKILLCLI_HOME"]}

    async def main():
        with anyio.fail_after(60):
            params = StdioServerParameters(command=entry["command"], args=entry["args"], env=env)
            with open(tmp_path / "server.log", "w") as log:
                async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
                    init = await session.initialize()
                    return init, await session.list_tools()

    init, tools = anyio.run(main)
    assert "notes" in init.instructions and "load_skill" in {t.name for t in tools.tools}


keys = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
values = st.one_of(st.integers(-5, 5), st.booleans(), st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
                                                               max_size=6))
tables = st.lists(st.tuples(st.sampled_from(["", "profiles.", "mcp_servers."]), keys,
                            st.dictionaries(keys, values, max_size=3), st.booleans()), max_size=4,
                  unique_by=lambda t: t[0] + t[1])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=st.dictionaries(keys.filter(lambda k: k != "mcp_servers"), values, max_size=3), tables=tables,
       ours_at=st.none() | st.integers(0, 4))
def test_any_codex_file_gains_exactly_our_table_and_keeps_its_comments(home, top, tables, ours_at):
    from hypothesis import assume

    from skillyard.client import mcp_settings

    assume(not {name for prefix, name, _, _ in tables if not prefix} & set(top))  # a key and a table of one name

    def toml(value):
        return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value).lower()

    lines = ["# top comment"] + [f"{k} = {toml(v)}" for k, v in top.items()]
    blocks = [(f"[{prefix}{name}]", body, comment) for prefix, name, body, comment in tables
              if f"{prefix}{name}" != "mcp_servers.skillyard"]
    if ours_at is not None:
        blocks.insert(min(ours_at, len(blocks)), ("[mcp_servers.skillyard]", {"command": "/old"}, True))
    for header, body, comment in blocks:
        lines += [""] + ([f"# about {header}"] if comment else []) + [header]
        lines += [f"{k} = {toml(v)}" for k, v in body.items()]
    text = "\n".join(lines) + "\n"
    settings_ = mcp_settings.settings_for("codex", project=False, project_root=Path.cwd(), home=home)
    settings_.path.parent.mkdir(parents=True, exist_ok=True)
    settings_.path.write_text(text)
    entry = {"command": "/x/skill", "args": ["mcp"]}
    change = mcp_settings.plan_change(settings_, "skillyard", entry)
    before = tomllib.loads(text)
    expected = dict(before, mcp_servers=dict(before.get("mcp_servers", {}), skillyard=entry))
    assert tomllib.loads(change.after) == expected
    comments = [line for line in text.splitlines() if line.startswith("#")]  # none inside a table's body here
    assert [line for line in change.after.splitlines() if line.startswith("#")] == comments
