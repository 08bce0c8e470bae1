"""validate's process exit: the heap it thawed for its caller is frozen again when the interpreter exits, so the
final collection does not walk every module's objects; an in-process caller still gets it back thawed."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import atexit, gc, sys
from skillyard.cli.main import skillyard_main
# Registered before validate runs, so it runs after validate's own exit hook (atexit is last-in, first-out).
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0, flush=True))
before = atexit._ncallbacks()
for _ in range(2):
    assert skillyard_main(["validate", "--lenient", "--no-cache", "--json", "--root", sys.argv[1], sys.argv[2]]) == 0
print("thawed after the command:", gc.get_freeze_count() == 0)
print("hooks added:", atexit._ncallbacks() - before)
"""


def test_validate_freezes_the_heap_at_exit_once(tmp_path) -> None:
    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Does demo things. Use when asked.\n---\n# Demo\n")
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), str(skill)], capture_output=True, text=True,
                          timeout=120, env={"CI": "1", "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "thawed after the command: True" in lines
    assert "hooks added: 1" in lines  # two commands, one hook
    assert lines[-1] == "frozen at exit: True"
