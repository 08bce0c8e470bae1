"""Small modules with one job each: no module of the package is over MAX_LINES unless its docstring says why it
must be one piece (the words "one piece" and a reason)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tools" / "skillyard"
MAX_LINES = 500


def oversized(package: Path, limit: int = MAX_LINES) -> dict[str, int]:
    """Module path -> line count, for modules over `limit` whose docstring does not explain it."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n") + (not text.endswith("\n") and bool(text))
        if lines <= limit:
            continue
        if "one piece" in (ast.get_docstring(ast.parse(text)) or ""):
            continue
        out[str(path.relative_to(package.parent))] = lines
    return out


def test_no_module_is_over_the_limit_without_a_reason():
    assert oversized(PACKAGE) == {}


def test_the_check_counts_lines_and_reads_the_reason(tmp_path):
    (tmp_path / "big.py").write_text("x = 1\n" * 501)
    (tmp_path / "small.py").write_text("x = 1\n" * 500)
    (tmp_path / "reasoned.py").write_text('"""Must be one piece: the parser\'s states share one table."""\n' + "x = 1\n" * 600)
    assert oversized(tmp_path) == {f"{tmp_path.name}/big.py": 501}
