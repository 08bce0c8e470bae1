"""`nox -s build` and `nox -s site` show pip's progress while they install (nox hides it by default, which left
the main job silent for half a minute)."""

from __future__ import annotations

import ast
from pathlib import Path

NOXFILE = Path(__file__).resolve().parents[1] / "noxfile.py"


def _installs(session: str) -> list[ast.Call]:
    tree = ast.parse(NOXFILE.read_text(encoding="utf-8"))
    [func] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == session]
    return [n for n in ast.walk(func) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "install"]


def test_the_build_sessions_install_with_visible_progress():
    for session in ("build", "site"):
        calls = _installs(session)
        assert calls, session
        for call in calls:
            silent = {k.arg: k.value for k in call.keywords}.get("silent")
            assert isinstance(silent, ast.Constant) and silent.value is False, f"{session}: install is silent"
