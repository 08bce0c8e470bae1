#!/usr/bin/env python3
"""Outline the public API of Python source files without importing them: modules, classes, functions,
signatures, first docstring lines, and which public names lack docstrings.

Uses `ast` only, so it never runs the code it documents. Public means: not starting with `_`, and listed in
`__all__` when the module defines it. Prints Markdown, or JSON with --json.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    text = ast.unparse(node.args)
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    prefix = "async " if isinstance(node, ast.AsyncFunctionDef) else ""
    return f"{prefix}{node.name}({text}){returns}"


def _summary(node) -> str:
    doc = ast.get_docstring(node)
    return doc.strip().split("\n\n")[0].replace("\n", " ") if doc else ""


def _public(name: str, exported: set[str] | None) -> bool:
    return name in exported if exported is not None else not name.startswith("_")


def _exported(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                return set(ast.literal_eval(node.value))
            except ValueError:
                return None
    return None


def outline(path: Path, module: str) -> dict:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    exported = _exported(tree)
    items = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _public(node.name, exported):
            items.append({"kind": "function", "name": node.name, "signature": _signature(node),
                          "summary": _summary(node), "line": node.lineno})
        elif isinstance(node, ast.ClassDef) and _public(node.name, exported):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            methods = []
            for child in node.body:
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and (
                        not child.name.startswith("_") or child.name == "__init__"):
                    decorators = {ast.unparse(d) for d in child.decorator_list}
                    kind = "property" if "property" in decorators else (
                        "classmethod" if "classmethod" in decorators else (
                            "staticmethod" if "staticmethod" in decorators else "method"))
                    methods.append({"kind": kind, "name": child.name, "signature": _signature(child),
                                    "summary": _summary(child), "line": child.lineno})
            items.append({"kind": "class", "name": node.name, "signature": f"class {node.name}({bases})" if bases
                          else f"class {node.name}", "summary": _summary(node), "line": node.lineno,
                          "members": methods})
        elif isinstance(node, ast.Assign | ast.AnnAssign) and exported is None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id.isupper() and not target.id.startswith("_"):
                    items.append({"kind": "constant", "name": target.id, "signature": target.id, "summary": "",
                                  "line": node.lineno})
    missing = [i["name"] for i in items if i["kind"] != "constant" and not i["summary"]]
    for item in items:
        missing += [f"{item['name']}.{m['name']}" for m in item.get("members", [])
                    if not m["summary"] and m["name"] != "__init__"]
    return {"module": module, "file": str(path), "summary": _summary(tree), "items": items,
            "missing_docstrings": missing}


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) or path.stem


def to_markdown(modules: list[dict]) -> str:
    out = []
    for mod in modules:
        out += [f"## `{mod['module']}`", ""]
        if mod["summary"]:
            out += [mod["summary"], ""]
        for item in mod["items"]:
            out += [f"### `{item['signature']}`", ""]
            if item["summary"]:
                out += [item["summary"], ""]
            for member in item.get("members", []):
                label = f" ({member['kind']})" if member["kind"] != "method" else ""
                out.append(f"- `{member['signature']}`{label}" + (f": {member['summary']}" if member["summary"] else ""))
            if item.get("members"):
                out.append("")
        if mod["missing_docstrings"]:
            out += ["Missing docstrings: " + ", ".join(f"`{n}`" for n in mod["missing_docstrings"]), ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Outline the public API of Python files (static, never imports them).",
                                     epilog="example: py_api_outline.py src/mypkg --json")
    parser.add_argument("paths", nargs="+", help="Python files or package folders")
    parser.add_argument("--include-private-modules", action="store_true", help="also outline modules named _*.py")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    modules, status = [], 0
    for raw in args.paths:
        root = Path(raw)
        if not root.exists():
            print(f"error: {raw} does not exist", file=sys.stderr)
            return 2
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        base = root.parent if root.is_dir() else root.parent
        for path in files:
            if any(p.startswith(".") or p in ("tests", "test") for p in path.relative_to(base).parts[:-1]):
                continue
            if path.name.startswith("_") and path.name != "__init__.py" and not args.include_private_modules:
                continue
            try:
                modules.append(outline(path, module_name(path, base)))
            except SyntaxError as exc:
                print(f"error: {path}:{exc.lineno}: cannot parse: {exc.msg}", file=sys.stderr)
                status = 1
            except (OSError, UnicodeDecodeError) as exc:
                print(f"error: cannot read {path}: {exc}", file=sys.stderr)
                status = 1
    if args.json:
        json.dump(modules, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(to_markdown(modules))
    return status


if __name__ == "__main__":
    sys.exit(main())
