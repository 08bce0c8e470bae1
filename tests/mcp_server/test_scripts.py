"""run_script: absent unless allowed, asks the user with the exact command, refused where the client cannot ask, and
runs with the skill folder as cwd, a scrubbed environment, a time limit and capped output (issue 38, step 3)."""

from __future__ import annotations

import os
import time

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from tests.mcp_server.support import Client, run_stdio, text_of  # noqa: E402
from tests.mcp_server.test_stdio import make_skill, world  # noqa: E402,F401 (a fixture)

from skillyard.runtime import mcp_scripts  # noqa: E402


@pytest.fixture
def scripted(world):  # noqa: F811
    folder = make_skill(world["user"], "probe-tools", "Probes its environment. Use in tests of run_script.",
                        "# Probe\n\nRun scripts/probe.py.")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "probe.py").write_text(
        "import os, sys\nprint('cwd=' + os.getcwd())\nprint('args=' + ','.join(sys.argv[1:]))\n"
        "print('secret=' + os.environ.get('SECRET_TOKEN', 'absent'))\nprint('home=' + os.environ.get('HOME', ''))\n")
    (folder / "scripts" / "slow.sh").write_text("echo started\nsleep 30\necho never\n")
    (folder / "scripts" / "loud.py").write_text("import sys\nsys.stdout.write('x' * 500000)\n")
    (folder / "scripts" / "data.txt").write_text("not a script\n")
    world["probe"] = folder
    return world


def call(world, *flags, arguments, answer=True, can_elicit=True, env=None):  # noqa: F811
    async def body(s, init):
        tools = {t.name for t in (await s.list_tools()).tools}
        if "run_script" not in tools:
            return tools, None
        started = time.monotonic()
        result = await s.call_tool("run_script", arguments)
        return tools, (result, time.monotonic() - started)

    (tools, outcome), client = run_stdio(world, body, *flags, client=Client(answer, can_elicit),
                                         env={"SECRET_TOKEN": "s3cret", **(env or {})})
    return tools, outcome, client


def test_no_run_script_unless_allowed(scripted):
    tools, outcome, _ = call(scripted, arguments={})
    assert "run_script" not in tools and outcome is None


def test_allowed_by_config_key(scripted):
    config = scripted["home"] / ".skillcli"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.yaml").write_text("mcp:\n  allow_scripts: true\n")
    tools, _, _ = call(scripted, arguments={"skill_name": "probe-tools", "script_path": "scripts/probe.py"})
    assert "run_script" in tools


def test_a_yes_runs_it_in_the_skill_folder_with_a_scrubbed_environment(scripted):
    tools, (result, _), client = call(scripted, "--allow-scripts", arguments={
        "skill_name": "probe-tools", "script_path": "scripts/probe.py", "args": ["a b", "--x"]})
    text = text_of(result)
    assert not result.is_error and "exit code 0" in text
    assert f"cwd={os.path.realpath(scripted['probe'])}" in text and "args=a b,--x" in text
    assert "secret=absent" in text and f"home={scripted['home']}" in text  # the token stayed in the server's env
    assert len(client.asked) == 1
    assert "scripts/probe.py" in client.asked[0] and "'a b' --x" in client.asked[0]  # the exact command was shown


def test_a_no_does_not_run_it(scripted):
    marker = scripted["probe"] / "ran"
    (scripted["probe"] / "scripts" / "touch.sh").write_text(f"touch {marker}\n")
    _, (result, _), client = call(scripted, "--allow-scripts", answer=False,
                                  arguments={"skill_name": "probe-tools", "script_path": "scripts/touch.sh"})
    assert result.is_error and "did not approve running" in text_of(result) and client.asked
    assert not marker.exists()


def test_refused_where_the_client_cannot_ask(scripted):
    _, (result, _), client = call(scripted, "--allow-scripts", can_elicit=False,
                                  arguments={"skill_name": "probe-tools", "script_path": "scripts/probe.py"})
    assert result.is_error and "cannot ask the user" in text_of(result) and not client.asked


def test_the_time_limit_kills_it(scripted):
    _, (result, took), _ = call(scripted, "--allow-scripts", "--script-timeout", "1",
                                arguments={"skill_name": "probe-tools", "script_path": "scripts/slow.sh"})
    assert "ran longer than 1 seconds" in text_of(result) and "never" not in text_of(result)
    assert took < 20


def test_output_is_capped(scripted):
    _, (result, _), _ = call(scripted, "--allow-scripts",
                             arguments={"skill_name": "probe-tools", "script_path": "scripts/loud.py"})
    text = text_of(result)
    assert "output cut at" in text and text.count("x") <= mcp_scripts.MAX_OUTPUT + 10


@pytest.mark.parametrize(("path", "why"), [
    ("../pdf-tools/SKILL.md", ".."), ("/bin/sh", "path"), ("scripts/data.txt", "not a script this server runs"),
    ("scripts/nope.py", "not a file"), ("scripts/\x00.py", "NUL"),
])
def test_only_scripts_inside_the_skill(scripted, path, why):
    _, (result, _), client = call(scripted, "--allow-scripts",
                                  arguments={"skill_name": "probe-tools", "script_path": path})
    assert result.is_error and why in text_of(result)
    assert client.asked == []  # refused before the user is bothered


def test_a_link_out_is_not_run(scripted):
    os.symlink("/bin/true", scripted["probe"] / "scripts" / "out.sh")
    _, (result, _), client = call(scripted, "--allow-scripts",
                                  arguments={"skill_name": "probe-tools", "script_path": "scripts/out.sh"})
    assert result.is_error and "outside the skill folder" in text_of(result) and not client.asked


def test_scrubbed_env_keeps_only_the_basics():
    env = mcp_scripts.scrubbed_env({"PATH": "/bin", "HOME": "/h", "AWS_SECRET_ACCESS_KEY": "k", "GITHUB_TOKEN": "t",
                                    "LANG": "C.UTF-8"})
    assert env == {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
