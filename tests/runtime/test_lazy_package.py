"""`skillyard.runtime` loads its submodules on first use: every public name still resolves, and importing one
submodule does not load the others (what `skill prompt`'s start-up depends on)."""

import subprocess
import sys


def test_every_public_name_resolves_from_its_table():
    import skillyard.runtime as runtime

    assert sorted(runtime.__all__) == sorted(runtime._WHERE)
    for name in runtime.__all__:
        assert getattr(runtime, name).__module__.startswith("skillyard.runtime.")


def test_importing_one_submodule_leaves_the_others_unloaded():
    code = ("import sys, skillyard.runtime.approvals; "
            "print(sorted(m for m in sys.modules if m.startswith('skillyard.runtime.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "skillyard.runtime.service" not in out and "skillyard.runtime.discovery" not in out, out
