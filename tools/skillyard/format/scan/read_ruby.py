"""What a Ruby script does, read with tree-sitter (never run): calls (`system`, backticks, `Net::HTTP.get`, `eval`),
assignments and folded strings (`+`, interpolation of folded names, `.reverse`, `Base64.decode64`, `.pack`)."""

from __future__ import annotations

import re

from skillyard.format.scan import fold
from skillyard.format.scan.facts import Facts
from skillyard.format.scan.read_tree import Grammar
from skillyard.format.scan.read_tree import read as read_tree


def _call(node):
    method = node.child_by_field_name("method")
    receiver = node.child_by_field_name("receiver")
    args = node.child_by_field_name("arguments")
    if method is None:
        return None
    name = method.text.decode("utf-8", "replace")
    if receiver is not None and receiver.type in ("constant", "scope_resolution", "identifier"):
        name = receiver.text[:80].decode("utf-8", "replace") + "." + name
    items = list(args.named_children) if args is not None else []
    block = node.child_by_field_name("block")
    if block is not None:
        items.append(block)
    return name, items


def _hidden_callee(walker, node, callee, args):
    """`Kernel.send(:system, x)`, `obj.public_send("sys" + "tem", x)`: the method the first argument names."""
    if node.type != "call" or not args or callee.rsplit(".", 1)[-1] not in ("send", "public_send", "__send__"):
        return None
    first = args[0]
    name = first.text[1:].decode("utf-8", "replace") if first.type == "simple_symbol" else walker.fold(first)
    if not name or len(name) > 64:
        return None
    head = callee.rsplit(".", 1)[0] if "." in callee else ""
    return (f"{head}.{name}" if head else name), args[1:]


def _subshell(node):
    return "`", [node]


def _assignment(node):
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None or left.type not in ("identifier", "constant", "instance_variable"):
        return None
    appends = node.type == "operator_assignment" and b"+=" in node.text
    return [left.text.decode("utf-8", "replace")], right, appends


def _params(node) -> list[str]:
    params = next((c for c in node.named_children if c.type == "block_parameters"), None)
    return [c.text.decode("utf-8", "replace") for c in params.named_children if c.type == "identifier"] \
        if params is not None else []


def _fold(walker, node, depth):
    if node.type == "subshell":
        return None
    if node.type != "call":
        return None
    method = node.child_by_field_name("method")
    receiver = node.child_by_field_name("receiver")
    args_node = node.child_by_field_name("arguments")
    args = args_node.named_children if args_node is not None else []
    name = method.text.decode() if method is not None else ""
    if name in ("join", "expand_path") and receiver is not None and receiver.text in (b"File", b"Pathname"):
        return "/".join(walker.fold(a, depth + 1) or "…" for a in args)  # unknown parts kept as `…`
    if name == "reverse" and receiver is not None:
        value = walker.fold(receiver, depth + 1)
        return value[::-1] if value is not None else None
    if name in ("decode64", "strict_decode64", "urlsafe_decode64") and args:
        value = walker.fold(args[0], depth + 1)
        return fold.b64(value) if value is not None else None
    if name == "join" and receiver is not None:
        items = walker.items(receiver, depth)
        sep = walker.fold(args[0], depth + 1) if args else ""
        return fold.clip(sep.join(items)) if items is not None and sep is not None else None
    if name == "pack" and receiver is not None and receiver.type == "array":
        directive = walker.fold(args[0], depth + 1) if args else None
        numbers = [c.text.decode() for c in receiver.named_children]
        if directive in ("c*", "C*", "U*"):
            return fold.chars(numbers)
        items = walker.items(receiver, depth)
        if directive in ("H*",) and items:
            return fold.unhex(items[0])
        if directive in ("m", "m0") and items:
            return fold.b64(items[0])
    if name in ("to_s", "strip", "chomp") and receiver is not None:
        return walker.fold(receiver, depth + 1)
    return None


# `ENV` read whole (`ENV.to_h`, `ENV.to_a`, `ENV.each`, `ENV` passed on), not `ENV['HOME']` or `ENV.fetch(…)`.
_ENV = re.compile(rb"(?<![\w:])ENV\b(?!\s*\[|\.(?:fetch|key\?|include\?|has_key\?)\b)")


GRAMMAR = Grammar(
    language="ruby",
    calls={"call": _call, "subshell": _subshell},
    assigns={"assignment": _assignment, "operator_assignment": _assignment},
    strings=frozenset({"string", "subshell"}),
    fragments=frozenset({"string_content"}),
    substitutions=frozenset({"interpolation"}),
    names=frozenset({"identifier"}),
    functions=frozenset({"block", "do_block"}),
    params=_params,
    binary=frozenset({"binary"}),
    arrays=frozenset({"array"}),
    parens=frozenset({"parenthesized_statements"}),
    exec_refs=frozenset(),
    extra={"fold": _fold, "env_re": _ENV, "callee": _hidden_callee},
)


def read(source: str) -> Facts | None:
    return read_tree(GRAMMAR, source)
