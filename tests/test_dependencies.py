"""The package declares exactly what it imports: every third-party import names a declared distribution (the base
or an extra), and every declared distribution is imported somewhere (or is listed below with how it is used)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tools" / "skillyard"
TOOLING_EXTRAS = {"test", "dev"}  # what runs the tests and the tasks, not the package
USED_WITHOUT_IMPORT = {
    "mkdocs-material": "mkdocs loads the theme by its name (`theme: material`); the package never imports it",
}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> dict[str, str]:
    """Declared distribution -> where ('base' or the extra's name), for the package's own dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = {}
    groups = {"base": project["dependencies"], **project.get("optional-dependencies", {})}
    for group, requirements in groups.items():
        if group in TOOLING_EXTRAS:
            continue
        for requirement in requirements:
            name = canonical(re.match(r"[A-Za-z0-9._-]+", requirement).group(0))
            if name != "skillyard":
                out[name] = group
    return out


def imported_top_names(package: Path) -> dict[str, str]:
    """Third-party top-level module -> one file importing it (lazy imports inside functions included)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "skillyard":
                    out.setdefault(top, str(path.relative_to(ROOT)))
    return out


def test_every_import_is_declared():
    owners = packages_distributions()
    wanted = declared()
    undeclared = {}
    for module, where in imported_top_names(PACKAGE).items():
        distributions = {canonical(d) for d in owners.get(module, [module])}
        if not distributions & set(wanted):
            undeclared[module] = where
    assert undeclared == {}, f"imported but not declared in pyproject.toml: {undeclared}"


def test_every_declared_dependency_is_used():
    owners = packages_distributions()
    used = {canonical(d) for module in imported_top_names(PACKAGE) for d in owners.get(module, [module])}
    unused = sorted(set(declared()) - used - set(USED_WITHOUT_IMPORT))
    assert unused == [], f"declared in pyproject.toml but never imported: {unused}"
