"""Every flag an error suggests exists (issue 35 item 1): the network errors' advice names the commands that take
--offline, and each of them does."""

import pytest

from skillyard.cli.main import build_parser
from skillyard.client import http


@pytest.mark.parametrize("command", http.OFFLINE_COMMANDS)
def test_each_command_the_offline_advice_names_takes_offline(command):
    parser = build_parser("skill", "skillyard.cli.skill_cmds", "", command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    assert "--offline" in sub._option_string_actions, command


def test_the_advice_names_every_such_command():
    for command in http.OFFLINE_COMMANDS:
        assert f"`skill {command}`" in http.OFFLINE_HINT


def test_a_network_error_advises_only_commands_that_have_the_flag():
    error = http._network_error("http://127.0.0.1:9/x", ConnectionRefusedError(111, "Connection refused"), 5.0)
    assert "--offline" in error.fix and "`skill install`" in error.fix and "skill update" not in error.fix
