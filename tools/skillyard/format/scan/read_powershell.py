"""What a PowerShell script does, read with tree-sitter (never run): cmdlets with their parameters, .NET method
calls (`(New-Object Net.WebClient).DownloadString(…)`, `[Convert]::FromBase64String(…)`), assignments and folded
strings (`+`, `$var` inside double quotes, `-join`, base64 decoded with `GetString`)."""

from __future__ import annotations

import re

from skillyard.format.scan import fold
from skillyard.format.scan.facts import Facts
from skillyard.format.scan.read_tree import Grammar
from skillyard.format.scan.read_tree import read as read_tree

_VAR = re.compile(r"\$\{?([A-Za-z_][\w:]*)\}?")


def _name(node) -> str:
    return node.text.decode("utf-8", "replace").lstrip("$").strip("{}").lower()


def _command(node):
    name = node.child_by_field_name("command_name")
    elements = node.child_by_field_name("command_elements")
    if name is None:
        return None
    args = [c for c in elements.named_children if c.type != "command_argument_sep"] if elements is not None else []
    return name.text.decode("utf-8", "replace"), args


def _invocation(node):
    children = node.named_children
    member = next((c for c in children if c.type == "member_name"), None)
    args = next((c for c in children if c.type == "argument_list"), None)
    if member is None or not children:
        return None
    head = children[0]
    head_text = head.text[:80].decode("utf-8", "replace") if head.type in ("variable", "type_literal") else "…"
    items = []
    if args is not None:
        inner = args.child_by_field_name("argument_expression_list")
        items = list(inner.named_children) if inner is not None else []
    return f"{head_text}.{member.text.decode('utf-8', 'replace')}", items


def _assignment(node):
    left = next((c for c in node.named_children if c.type == "left_assignment_expression"), None)
    value = node.child_by_field_name("value")
    if left is None or value is None:
        return None
    variable = _first(left, "variable")
    if variable is None:
        return None
    operator = next((c for c in node.named_children if c.type == "assignement_operator"), None)
    appends = operator is not None and operator.text == b"+="
    return [_name(variable)], value, appends


def _first(node, kind):
    stack = [node]
    seen = 0
    while stack and seen < 200:
        current = stack.pop()
        seen += 1
        if current.type == kind:
            return current
        stack.extend(reversed(current.named_children))
    return None


def _fold(walker, node, depth):
    kind = node.type
    children = node.named_children
    if kind == "string_literal" and children:
        return walker.fold(children[0], depth + 1)
    if kind in ("expandable_string_literal", "expandable_here_string_literal"):
        raw = node.text.decode("utf-8", "replace")
        raw = raw[2:-2] if raw.startswith("@") else raw[1:-1]
        unknown = [False]

        def one(match):
            value = walker.facts.values.get(match.group(1).lower())
            if value is None:
                unknown[0] = True
                return match.group(0)  # kept as written: `$env:TEMP\\a.exe` still names the file
            return value
        out = _VAR.sub(one, raw).replace("`n", "\n").replace("`t", "\t")
        return out
    if kind in ("verbatim_string_characters", "verbatim_here_string_characters"):
        raw = node.text.decode("utf-8", "replace")
        return raw[2:-2] if raw.startswith("@") else raw[1:-1]
    if kind in ("generic_token", "command_parameter"):
        return node.text.decode("utf-8", "replace")
    if kind in ("additive_expression", "additive_argument_expression") and len(children) == 2:
        operator = next((c.text for c in node.children if not c.is_named), b"+")
        if operator != b"+":
            return None
        a, b = walker.fold(children[0], depth + 1), walker.fold(children[1], depth + 1)
        return fold.clip(a + b) if a is not None and b is not None else None
    if kind == "invokation_expression":
        found = _invocation(node)
        if found is None:
            return None
        callee, args = found
        method = callee.rsplit(".", 1)[-1].lower()
        if method == "frombase64string" and args:
            value = walker.fold(args[0], depth + 1)
            return fold.b64(value) if value is not None else None
        if method == "getstring" and args:
            return walker.fold(args[0], depth + 1)
        return None
    if kind == "unary_expression" and len(children) == 1 and node.text.lstrip().lower().startswith(b"-join"):
        items = _list(walker, children[0], depth)
        return "".join(items) if items is not None else None
    if kind == "cast_expression" and len(children) == 2 and children[0].text.lower() in (b"[char[]]", b"[char]"):
        numbers = [n.text.decode() for n in _leaves(children[1], "integer_literal")]
        return fold.chars(numbers) if numbers else None  # `[char[]](105,101,120)`, `[char]105`
    if len(children) == 1 and kind not in ("command", "variable"):
        return walker.fold(children[0], depth + 1)
    if kind in ("comparison_expression",) and len(children) == 2 and b"-join" in node.text.lower():
        items = _list(walker, children[0], depth)
        sep = walker.fold(children[1], depth + 1)
        return sep.join(items) if items is not None and sep is not None else None
    return None


def _leaves(node, kind: str) -> list:
    """The nodes of `kind` under `node`, in order (bounded)."""
    out, stack, seen = [], [node], 0
    while stack and seen < 20_000 and len(out) < 4096:
        current = stack.pop()
        seen += 1
        if current.type == kind:
            out.append(current)
        else:
            stack.extend(reversed(current.named_children))
    return out


def _list(walker, node, depth):
    """`'a','b'` as the folded items, or None."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "array_literal_expression" and len(current.named_children) > 1:
            items = [walker.fold(c, depth + 1) for c in current.named_children]
            return items if all(i is not None for i in items) else None
        if len(current.named_children) == 1:
            stack.append(current.named_children[0])
    value = walker.fold(node, depth + 1)
    return [value] if value is not None else None


# What builds a command's name at run time: `&('I'+'EX')`, `.($env:ComSpec[4,15,25]-join'')`, `&([char]105+…)`.
_BUILT_NAME = re.compile(rb"-join|\[char|-f\b|-replace|\+|\[[\d, -]+\]", re.I)


def _hidden_callee(walker, node, callee, args):
    """The command a call operator runs when its name is an expression: folded (`IEX`), or `(built at run time)`."""
    if node.type != "command":
        return None
    if callee.startswith("$") and node.text.lstrip()[:1] in (b"&", b"."):  # `& $c`, `$c` folded to a command name
        value = walker.facts.values.get(_name(node.child_by_field_name("command_name")))
        return (value, args) if value and len(value) <= 64 and " " not in value else None
    if not callee.startswith("("):
        return None
    name = node.child_by_field_name("command_name")
    folded = walker.fold(name) if name is not None else None
    if folded and len(folded) <= 64:
        return folded, args
    if name is not None and _BUILT_NAME.search(name.text):
        return "(built at run time)", args
    return None


GRAMMAR = Grammar(
    language="powershell",
    calls={"command": _command, "invokation_expression": _invocation},
    assigns={"assignment_expression": _assignment},
    strings=frozenset(),
    fragments=frozenset(),
    substitutions=frozenset(),
    names=frozenset({"variable"}),
    functions=frozenset({"script_block_expression"}),
    params=lambda node: ["_"],
    binary=frozenset(),
    arrays=frozenset(),
    parens=frozenset({"parenthesized_expression"}),
    name_of=_name,
    exec_refs=frozenset(),
    extra={"fold": _fold, "callee": _hidden_callee},
)


def read(source: str) -> Facts | None:
    return read_tree(GRAMMAR, source)
