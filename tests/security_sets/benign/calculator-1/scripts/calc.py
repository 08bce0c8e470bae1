"""Evaluate an arithmetic expression the user typed (numbers, + - * / ** %, parentheses, math functions)."""
import ast
import math
import sys

ALLOWED = {name: getattr(math, name) for name in ("sqrt", "sin", "cos", "tan", "log", "exp", "pi", "e")}


def evaluate(expression: str) -> float:
    tree = ast.parse(expression, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Subscript, ast.Lambda)) or \
                (isinstance(node, ast.Name) and node.id not in ALLOWED):
            raise ValueError(f"not allowed: {ast.dump(node)[:40]}")
    return eval(compile(tree, "<expr>", "eval"), {"__builtins__": {}}, ALLOWED)


print(evaluate(" ".join(sys.argv[1:])))
