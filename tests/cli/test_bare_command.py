"""A program or command group run without its command shows the help it needs (issue 35 item 3): `skill` alone
lists every command, `skill source` lists its actions; exit status 2 (a usage error) with the help, never a bare
"arguments are required"."""

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


@pytest.mark.parametrize(("argv", "listed"), [
    (["skill"], ["install", "search", "outdated", "uninstall"]),
    (["skillyard"], ["validate", "build", "site", "external"]),
    (["skill", "source"], ["add", "remove"]),
    (["skillyard", "external"], ["add", "verify", "bump"]),
])
def test_a_missing_command_prints_the_help(argv, listed):
    done = subprocess.run([str(BIN / argv[0]), *argv[1:]], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith(f"usage: {' '.join(argv)} ")
    for name in listed:
        assert f"    {name} " in done.stderr or f"    {name}\n" in done.stderr, name
    assert f"`{' '.join(argv)} COMMAND --help`" in done.stderr
    assert "arguments are required" not in done.stderr


def test_other_usage_errors_are_unchanged():
    done = subprocess.run([str(BIN / "skill"), "install", "--no-such-flag"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "unrecognized arguments: --no-such-flag" in done.stderr
    assert "choose a command" not in done.stderr
