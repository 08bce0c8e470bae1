"""The package's import graph: no circles, and the layers hold (format/ -> registry/, runtime/, bot/ -> site/,
client/ -> cli/). Imports inside functions count as much as those at the top: a lazy import that runs back up
is still a circle, only one that fails later.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tools" / "skillyard"
LAYERS = {"format": 0, "registry": 1, "runtime": 1, "bot": 1, "site": 2, "client": 2, "cli": 3}


def module_files(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (a package is its __init__)."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's own modules that `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    root = next(iter(modules)).split(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            # `from pkg import mod` imports the module pkg.mod; `from mod import name` imports mod
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] != root:
                continue
            while target not in modules:
                target = target.rpartition(".")[0]
            if target != name:
                found.add(target)
    return found


def import_graph(package: Path) -> dict[str, set[str]]:
    modules = module_files(package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), each as one circle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(start: str) -> None:
        # iterative, so a deep package cannot hit the recursion limit
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return groups


def layer_breaks(graph: dict[str, set[str]]) -> list[str]:
    """Imports from a layer into the same or a higher one (other than within one sub-package)."""
    out = []
    for name, targets in sorted(graph.items()):
        here = name.split(".")[1] if name.count(".") else None
        for target in sorted(targets):
            there = target.split(".")[1] if target.count(".") else None
            if here in LAYERS and there in LAYERS and here != there and LAYERS[there] >= LAYERS[here]:
                out.append(f"{name} imports {target}")
            elif here not in LAYERS and name.count(".") == 1 and there in LAYERS:
                out.append(f"{name} (a shared module under every layer) imports {target}")
    return out


def test_the_package_has_no_import_circles():
    found = cycles(import_graph(PACKAGE))
    assert found == [], "import circles: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_layers_hold():
    assert layer_breaks(import_graph(PACKAGE)) == []


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "skillyard"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("import_line", [
    "from skillyard.client import a",  # a module through its package
    "from skillyard.client.a import thing",  # a name from the module
    "import skillyard.client.a",
    "from . import a",  # relative
    "from .a import thing",
])
def test_a_circle_through_a_lazy_import_is_found(tmp_path, import_line):
    root = _package(tmp_path, {
        "__init__.py": "", "client/__init__.py": "",
        "client/a.py": "from skillyard.client.b import helper\n",
        "client/b.py": f"def helper():\n    {import_line}\n",
        "client/c.py": "from skillyard.client import a\n",  # imports into the circle without being part of it
    })
    assert cycles(import_graph(root)) == [["skillyard.client.a", "skillyard.client.b"]]


def test_a_layer_running_back_up_is_found(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "", "errors.py": "", "format/__init__.py": "", "client/__init__.py": "",
        "format/x.py": "def f():\n    from skillyard.client.y import g\n", "client/y.py": "import skillyard.errors\n",
    })
    assert layer_breaks(import_graph(root)) == ["skillyard.format.x imports skillyard.client.y"]
