"""What a JavaScript or TypeScript file does, read with tree-sitter (never run): calls, assignments, folded strings.

Folded: `'a' + 'b'`, template strings, `[…].join('')`, `'…'.split('').reverse().join('')`, `atob('…')`,
`Buffer.from('…', 'base64'|'hex').toString()`, `String.fromCharCode(99, …)`, `.concat(…)`.
"""

from __future__ import annotations

import re

from skillyard.format.scan import fold
from skillyard.format.scan.facts import Facts
from skillyard.format.scan.read_tree import Grammar
from skillyard.format.scan.read_tree import read as read_tree


def _callee(node):
    function = node.child_by_field_name("function") or node.child_by_field_name("constructor")
    args = node.child_by_field_name("arguments")
    if function is None:
        return None
    callee = function.text[:200].decode("utf-8", "replace")
    if function.type == "member_expression":
        prop = function.child_by_field_name("property")
        obj = function.child_by_field_name("object")
        head = obj.text[:80].decode("utf-8", "replace") if obj is not None and obj.type in (
            "identifier", "member_expression", "this") else "…"
        callee = f"{head}.{prop.text.decode('utf-8', 'replace')}" if prop is not None else callee
    if node.type == "new_expression":
        callee = "new " + callee
    return callee, (args.named_children if args is not None else [])


def _declarator(node):
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is None or value is None:
        return None
    targets = [name.text.decode("utf-8", "replace")] if name.type == "identifier" else \
        [c.text.decode("utf-8", "replace") for c in name.named_children if c.type in (
            "identifier", "shorthand_property_identifier_pattern")]
    return targets, value, False


def _assignment(node):
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier":
        return None
    appends = node.type == "augmented_assignment_expression" and b"+=" in node.text[:len(left.text) + 8]
    return [left.text.decode("utf-8", "replace")], right, appends


def _params(node) -> list[str]:
    params = node.child_by_field_name("parameters") or node.child_by_field_name("parameter")
    if params is None:
        return []
    if params.type == "identifier":
        return [params.text.decode("utf-8", "replace")]
    out = []
    for child in params.named_children:
        if child.type == "identifier":
            out.append(child.text.decode("utf-8", "replace"))
        elif child.type in ("required_parameter", "optional_parameter"):
            pattern = child.child_by_field_name("pattern")
            if pattern is not None and pattern.type == "identifier":
                out.append(pattern.text.decode("utf-8", "replace"))
    return out


def _fold(walker, node, depth):
    """Method-call transforms on literals."""
    if node.type not in ("call_expression", "new_expression"):
        return None
    function = node.child_by_field_name("function")
    args_node = node.child_by_field_name("arguments")
    args = args_node.named_children if args_node is not None else []
    if function is None:
        return None
    if function.type == "identifier":
        name = function.text.decode()
        if name == "atob" and args:
            value = walker.fold(args[0], depth + 1)
            return fold.b64(value) if value is not None else None
        if name in ("unescape", "decodeURIComponent", "decodeURI") and args:
            value = walker.fold(args[0], depth + 1)
            if value is None:
                return None
            import urllib.parse

            return urllib.parse.unquote(value)
        return None
    if function.type != "member_expression":
        return None
    obj, prop = function.child_by_field_name("object"), function.child_by_field_name("property")
    method = prop.text.decode() if prop is not None else ""
    if method == "fromCharCode" and obj is not None and obj.text == b"String":
        return fold.chars([a.text.decode() if a.type == "number" else "x" for a in args])
    if method == "join":
        items = _items(walker, obj, depth)
        sep = walker.fold(args[0], depth + 1) if args else ","
        return fold.clip(sep.join(items)) if items is not None and sep is not None else None
    if method == "reverse":
        items = _items(walker, obj, depth)
        return None if items is None else "\0".join(reversed(items)) if len(items) > 1 or not items else items[0][::-1]
    if method == "split":
        value = walker.fold(obj, depth + 1)
        sep = walker.fold(args[0], depth + 1) if args else None
        if value is None or sep is None:
            return None
        return "\0".join(list(value) if sep == "" else value.split(sep))
    if method == "concat":
        parts = [walker.fold(obj, depth + 1)] + [walker.fold(a, depth + 1) for a in args]
        return fold.clip("".join(parts)) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
    if method == "toString" and obj is not None and obj.type == "call_expression":
        inner_fn = obj.child_by_field_name("function")
        inner_args = obj.child_by_field_name("arguments")
        if inner_fn is not None and inner_fn.text in (b"Buffer.from", b"new Buffer") and inner_args is not None:
            parts = inner_args.named_children
            value = walker.fold(parts[0], depth + 1) if parts else None
            encoding = walker.fold(parts[1], depth + 1) if len(parts) > 1 else "utf8"
            if value is None:
                return None
            return fold.b64(value) if encoding in ("base64", "base64url") else fold.unhex(value) if encoding == "hex" \
                else value
    return None


def _items(walker, node, depth):
    """The items a join or reverse works on: an array literal, or a folded `split` (items joined by NUL)."""
    if node is None:
        return None
    if node.type == "array":
        return walker.items(node, depth)
    value = walker.fold(node, depth + 1)
    if value is None:
        return None
    return value.split("\0") if "\0" in value else [value]


# `process.env` read whole (`JSON.stringify(process.env)`, `{...process.env}`), not `process.env.HOME`.
# `process.env` whole; not a member of it, nor destructured into named variables (`const { API_KEY } = process.env`).
_ENV = re.compile(rb"(?<!\}\s=\s)(?<!\}=\s)(?<!\}\s=)(?<!\}=)\bprocess\.env\b(?!\s*(?:\.|\?\.|\[))")


def _hidden_callee(walker, node, callee, args):
    """`globalThis['ev' + 'al'](…)`, `cp['\\x65xec'](…)`: the method a subscript names, folded; else None."""
    function = node.child_by_field_name("function")
    if function is None or function.type != "subscript_expression":
        return None
    name = walker.fold(function.child_by_field_name("index"))
    if not name or len(name) > 64:
        return None
    obj = function.child_by_field_name("object")
    head = obj.text[:80].decode("utf-8", "replace") if obj is not None and obj.type in ("identifier", "this") else "…"
    return f"{head}.{name}", args


_STRINGS = frozenset({"string", "template_string"})
GRAMMAR = Grammar(
    language="javascript",
    calls={"call_expression": _callee, "new_expression": _callee},
    assigns={"variable_declarator": _declarator, "assignment_expression": _assignment,
             "augmented_assignment_expression": _assignment},
    strings=_STRINGS,
    fragments=frozenset({"string_fragment"}),
    substitutions=frozenset({"template_substitution"}),
    names=frozenset({"identifier"}),
    functions=frozenset({"arrow_function", "function_expression", "function"}),
    params=_params,
    exec_refs=frozenset({"eval", "function", "exec", "execsync"}),
    extra={"fold": _fold, "env_re": _ENV, "callee": _hidden_callee},
)
TS_GRAMMAR = Grammar(**{**GRAMMAR.__dict__, "language": "typescript"})
TSX_GRAMMAR = Grammar(**{**GRAMMAR.__dict__, "language": "typescript", "extra": {**GRAMMAR.extra, "tsx": True}})


def read(source: str, language: str = "javascript") -> Facts | None:
    grammar = {"typescript": TS_GRAMMAR, "tsx": TSX_GRAMMAR}.get(language, GRAMMAR)
    return read_tree(grammar, source)
