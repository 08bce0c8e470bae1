"""Python code that looks hidden to the text rules but is in view: a plugin imported from the skill's own package by
a name read at run time, and `exec`/`eval` of `compile()` over a `.py` file's text or over a user's expression
checked as an eval-mode syntax tree without builtins (issue 34, fourth precision pass)."""

from __future__ import annotations

import ast
import re
import sys

# `importlib.import_module(f"plugins.{name}")`: the name built at run time is a module inside a named package.
_PACKAGE_PREFIX = re.compile(r"imports a module whose name is built at run time \(([A-Za-z_]\w*)(?:\.\w+)*\.\)\Z")


def plugin_import(what: str) -> bool:
    """A module imported by a name that is a literal package prefix and a run-time part (a plugin, a command, a
    handler looked up by name): it loads one of that package's modules, which are the skill's own files, scanned
    as such. A standard-library package (`os.`, `urllib.`) could reach anything, so it stays a finding, and so does
    a name with no package before the run-time part (`"o" + "s"`, `f"{x}"`)."""
    match = _PACKAGE_PREFIX.match(what)
    return bool(match) and match.group(1) not in sys.stdlib_module_names


def compiles_in_view(text: str, line: int) -> bool:
    """`exec(compile(SOURCE, …))` / `eval(compile(…))` at `line` where every compile there takes code the reader can
    see: the text of a `.py` file (`Path("solution.py").read_text()`, a path named `….py`), or a syntax tree parsed
    from a function's parameter or the command line (a calculator that checks the user's expression node by node).
    Decoded or fetched text is judged before this (as decoded or downloaded code); a data file's or a literal's
    text stays a finding."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    assigned: dict[str, ast.expr] = {}
    params: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params.update(a.arg for a in node.args.args + node.args.kwonlyargs)
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node, "lineno", 0) == line]
    compiles = [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "compile" and c.args]
    # `eval(…, {"__builtins__": {}}, names)`: an expression evaluator with the builtins taken away
    restricted = any(isinstance(c.func, ast.Name) and c.func.id == "eval" and len(c.args) >= 2 and
                     isinstance(c.args[1], ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "__builtins__"
                                                              for k in c.args[1].keys) for c in calls)
    return bool(compiles) and all(_visible_source(c.args[0], assigned, params, restricted, 0) for c in compiles)


def _visible_source(node: ast.expr, assigned: dict[str, ast.expr], params: set[str], restricted: bool,
                    depth: int) -> bool:
    if depth > 4:
        return False
    if isinstance(node, ast.Name):
        return node.id in assigned and _visible_source(assigned[node.id], assigned, params, restricted, depth + 1)
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func)
        if func in ("ast.parse", "parse") and node.args:  # the user's expression, evaluated without builtins
            arg = node.args[0]
            argv = isinstance(arg, ast.Call) and ast.unparse(arg.func) in ("' '.join", '" ".join') and \
                "sys.argv" in ast.unparse(arg)
            given = argv or (isinstance(arg, ast.Name) and arg.id in params and arg.id not in assigned)
            return given and restricted and any(k.arg == "mode" and isinstance(k.value, ast.Constant) and
                                                k.value.value == "eval" for k in node.keywords)
        if func.endswith((".read_text", ".read")):
            path = func.rsplit(".", 1)[0]
            return _py_path(ast.parse(path, mode="eval").body if path.isidentifier() else node.func.value,
                            assigned, depth)
    return False


def _py_path(node: ast.expr, assigned: dict[str, ast.expr], depth: int) -> bool:
    """Whether the expression names a `.py` file: a literal, a `/`-joined path or `open(…)` ending in one."""
    if depth > 6:
        return False
    if isinstance(node, ast.Name):
        return node.id in assigned and _py_path(assigned[node.id], assigned, depth + 1)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.endswith(".py")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _py_path(node.right, assigned, depth + 1)
    if isinstance(node, ast.Call) and node.args and ast.unparse(node.func) in ("open", "io.open", "Path",
                                                                              "pathlib.Path"):
        return _py_path(node.args[-1] if ast.unparse(node.func).endswith("Path") else node.args[0], assigned,
                        depth + 1)
    return False
