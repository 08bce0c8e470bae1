"""What a Go program does, read with tree-sitter (never run): calls (`exec.Command`, `http.Get`, `net.Dial`,
`os.WriteFile`), assignments (`:=`, `=`, `var`) and folded strings (`+`, `strings.Join`, `base64 … DecodeString`,
`hex.DecodeString`)."""

from __future__ import annotations

from skillyard.format.scan import fold
from skillyard.format.scan.facts import Facts
from skillyard.format.scan.read_tree import Grammar
from skillyard.format.scan.read_tree import read as read_tree


def _call(node):
    function = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if function is None:
        return None
    callee = function.text[:200].decode("utf-8", "replace")
    if function.type == "selector_expression":
        operand, field = function.child_by_field_name("operand"), function.child_by_field_name("field")
        head = operand.text[:80].decode("utf-8", "replace") if operand is not None and operand.type in (
            "identifier", "selector_expression") else "…"
        callee = f"{head}.{field.text.decode('utf-8', 'replace')}" if field is not None else callee
    return callee, (args.named_children if args is not None else [])


def _assignment(node):
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return None
    targets = [c.text.decode("utf-8", "replace") for c in left.named_children if c.type == "identifier"
               and c.text != b"_"]
    values = right.named_children
    if not targets or not values:
        return None
    appends = node.type == "assignment_statement" and b"+=" in node.text
    return targets, values[0], appends


def _var_spec(node):
    names = [c.text.decode("utf-8", "replace") for c in node.children_by_field_name("name")]
    value = node.child_by_field_name("value")
    if not names or value is None or not value.named_children:
        return None
    return names, value.named_children[0], False


def _params(node) -> list[str]:
    return []


def _fold(walker, node, depth):
    if node.type == "raw_string_literal":
        return node.text.decode("utf-8", "replace")[1:-1]
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    args_node = node.child_by_field_name("arguments")
    args = args_node.named_children if args_node is not None else []
    callee = function.text.decode("utf-8", "replace") if function is not None else ""
    if callee.endswith("DecodeString") and args:
        value = walker.fold(args[0], depth + 1)
        if value is None:
            return None
        return fold.unhex(value) if callee.startswith("hex.") else fold.b64(value)
    if callee == "strings.Join" and len(args) == 2 and args[0].type == "composite_literal":
        body = args[0].child_by_field_name("body")
        items = [walker.fold(c.named_children[0] if c.named_children else c, depth + 1)
                 for c in (body.named_children if body is not None else [])]
        sep = walker.fold(args[1], depth + 1)
        return sep.join(items) if sep is not None and all(i is not None for i in items) else None  # type: ignore
    if callee in ("filepath.Join", "path.Join") and args:  # unknown parts kept as `…`: the path still shows
        return "/".join(walker.fold(a, depth + 1) or "…" for a in args)
    if callee == "string" and args and args[0].type == "composite_literal":  # `string([]byte{99, 117, …})`
        body = args[0].child_by_field_name("body")
        numbers = [c.named_children[0].text.decode() if c.named_children else "x"
                   for c in (body.named_children[:4096] if body is not None else [])]
        return fold.chars(numbers) if numbers else None
    if callee == "string" and args:
        return walker.fold(args[0], depth + 1)
    return None


GRAMMAR = Grammar(
    language="go",
    calls={"call_expression": _call},
    assigns={"short_var_declaration": _assignment, "assignment_statement": _assignment, "var_spec": _var_spec},
    strings=frozenset({"interpreted_string_literal"}),
    fragments=frozenset({"interpreted_string_literal_content", "escape_sequence"}),
    substitutions=frozenset(),
    names=frozenset({"identifier"}),
    functions=frozenset({"func_literal"}),
    params=_params,
    exec_refs=frozenset(),
    extra={"fold": _fold},
)


def read(source: str) -> Facts | None:
    return read_tree(GRAMMAR, source)
