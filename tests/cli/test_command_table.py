"""What keeps start-up cheap, as behaviour rather than time: the static command table the top-level help is printed
from stays equal to the command modules, the top-level help imports no command module, and a command imports only its
own. The timings themselves are `nox -s bench` figures (benchmarks/bench_startup.py); no test asserts a time."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

PACKAGES = ["skillyard.cli.skill_cmds", "skillyard.cli.skillyard_cmds"]


@pytest.mark.parametrize("package", PACKAGES)
def test_command_table_matches_the_modules(package):
    table = importlib.import_module(package).COMMANDS
    found = {}
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        found[module.NAME] = (info.name, module.HELP)
    assert table == found
    assert list(table) == sorted(table, key=lambda name: table[name][0])  # the order --help has always shown


def test_top_level_help_imports_no_command_module():
    code = ("import sys\nfrom skillyard.cli.main import skill_main, skillyard_main\n"
            "for main in (skill_main, skillyard_main):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n"
            "print('loaded:' + ','.join(m for m in sys.modules if m.startswith('skillyard.cli.skill') and m.count('.') == 3))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "usage: skill [-h]" in result.stdout and "usage: skillyard [-h]" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "loaded:"


def test_a_command_imports_only_its_own_module():
    code = ("import sys\nfrom skillyard.cli.main import skill_main\nskill_main(['list', '--json'])\n"
            "print(','.join(sorted(m for m in sys.modules if m.startswith('skillyard.cli.skill_cmds.'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env={"HOME": "/nonexistent-home-for-test", "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.strip().splitlines()[-1].split(","))
    assert "skillyard.cli.skill_cmds.list" in loaded
    assert not loaded & {"skillyard.cli.skill_cmds.install", "skillyard.cli.skill_cmds.search",
                         "skillyard.cli.skill_cmds.publish"}


@pytest.mark.parametrize("kind", ["github", "local", "archive"])
def test_list_skips_the_update_machinery_only_where_it_would_say_unknown(kind):
    from skillyard.cli.skill_cmds.list import add_outdated
    from skillyard.client.update import newest_known

    item = {"name": "x", "version": "1.0.0", "scope": "user", "source": {"type": kind}}
    add_outdated([item])
    state = newest_known(item, {})
    assert item["outdated"] == {"state": state.state, "latest": state.latest} == {"state": "unknown", "latest": None}
