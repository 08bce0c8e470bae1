"""Walking a Python `ast` tree many times over, cheaply: `read_python` walks each (cached) tree whole and in parts,
from several rules, and `ast.walk`/`ast.iter_child_nodes` are two generators deep. Each node's children are listed
once and kept on it; the walks here give `ast.walk`'s nodes in its (breadth-first) order."""

from __future__ import annotations

import ast


def children(node: ast.AST) -> list[ast.AST]:
    """`ast.iter_child_nodes(node)` as a list, worked out once per node and kept on it: `analyse` and `read` walk
    the same (cached) tree several times over, whole and in parts, and `iter_child_nodes` is two generators deep."""
    try:
        return node._skillyard_children  # type: ignore[attr-defined]
    except AttributeError:
        pass
    found: list[ast.AST] = []
    for name in node._fields:
        try:
            value = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(value, ast.AST):
            found.append(value)
        elif isinstance(value, list):
            found += [item for item in value if isinstance(item, ast.AST)]
    node._skillyard_children = found  # type: ignore[attr-defined]
    return found


def walk(node: ast.AST):
    """`ast.walk(node)`: the same nodes in the same (breadth-first) order, from the kept children."""
    todo = [node]
    at = 0
    while at < len(todo):
        current = todo[at]
        at += 1
        todo += children(current)
        yield current


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of the tree in `ast.walk` order, listed once per tree (kept on its root)."""
    try:
        return tree._skillyard_nodes  # type: ignore[attr-defined]
    except AttributeError:
        pass
    todo = [tree]
    at = 0
    while at < len(todo):
        todo += children(todo[at])
        at += 1
    tree._skillyard_nodes = todo  # type: ignore[attr-defined]
    return todo
