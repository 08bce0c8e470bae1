"""The reader shared by the tree-sitter languages other than shell: calls, assignments and folded strings.

Each language module (read_js, read_ruby, read_go, read_powershell) gives a `Grammar`: which node types are calls,
assignments, strings and names in its grammar. This module walks the tree once and fills the common `Facts`:
a call's callee (dotted, lowered), its arguments folded to text where they are built from literals (`+`, `+=`,
template strings, `join`, `reverse`, base64/hex decoders, char codes), the variables and nested calls it reads, and
the variable it is assigned to. A callback passed to a call (`fetch(u).then(code => eval(code))`) gets its
parameters assigned from that call, so the flow continues into it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field

from skillyard.format.scan import fold, treesit
from skillyard.format.scan.facts import MAX_TEXT, Facts, Op

_METHOD_OF_VARIABLE = re.compile(r"\$[\w:]+\.[a-z_]\w*\Z")  # `$wc.downloadfile`: a method, not a program's path
MAX_NODES = 20_000  # calls and assignments read per file; the rest of a generated file is not read
MAX_INSIDE = 1000  # nodes looked at inside one call for the names and calls it reads


@dataclass(frozen=True)
class Grammar:
    language: str
    calls: dict[str, Callable]  # node type -> node -> (callee text, [argument nodes]) or None
    assigns: dict[str, Callable]  # node type -> node -> ([target names], value node, appends) or None
    strings: frozenset[str]  # literal string node types
    fragments: frozenset[str]  # the literal parts inside them
    substitutions: frozenset[str]  # `${x}` / `#{x}` parts inside them
    names: frozenset[str]  # identifier node types (a variable read)
    functions: frozenset[str] = frozenset()  # callback node types
    params: Callable = lambda node: []  # a callback's parameter names
    binary: frozenset[str] = frozenset({"binary_expression"})
    arrays: frozenset[str] = frozenset({"array"})
    parens: frozenset[str] = frozenset({"parenthesized_expression"})
    name_of: Callable = lambda node: node.text.decode("utf-8", "replace")
    exec_refs: frozenset[str] = frozenset({"eval"})  # bare names passed as callbacks that run their argument
    extra: dict = field(default_factory=dict)


def read(grammar: Grammar, source: str) -> Facts | None:
    root = treesit.parse(grammar.language if grammar.language != "typescript" or not grammar.extra.get("tsx")
                         else "tsx", source.encode("utf-8", "surrogatepass"))
    if root is None:
        return None
    facts = Facts(grammar.language)
    _Walker(grammar, facts).walk(root)
    return facts


class _Walker:
    def __init__(self, grammar: Grammar, facts: Facts):
        self.g, self.facts = grammar, facts

    def walk(self, root) -> None:
        language = "tsx" if self.g.extra.get("tsx") else self.g.language
        kinds = tuple(sorted(set(self.g.assigns) | set(self.g.calls) | self.g.names | self.g.functions))
        nodes = treesit.nodes_of(language, root, kinds)
        # One index of every name, call and callback by position: what a call reads is a slice of it (bisect),
        # not a walk of its subtree (which, for calls nested in calls, would read the same nodes again and again).
        self.starts: list[int] = []
        self.index: list[tuple[int, int, str, object]] = []
        for node in nodes:
            kind = node.type
            if kind in self.g.names:
                entry = ("name", self.g.name_of(node))
            elif kind in self.g.functions:
                entry = ("func", None)
            elif kind in self.g.calls:
                found = self.g.calls[kind](node)
                if not found:
                    continue
                full = found[0].lower()
                entry = ("call", (full.replace("::", ".").rsplit(".", 1)[-1].strip(), full))
            else:
                continue
            self.starts.append(node.start_byte)
            self.index.append((node.start_byte, node.end_byte, *entry))
        env = self.g.extra.get("env_re")
        if env is not None:
            for match in env.finditer(root.text):
                index = bisect_left(self.starts, match.start())
                self.starts.insert(index, match.start())
                self.index.insert(index, (match.start(), match.end(), "env", None))
        seen = 0
        for node in nodes:
            kind = node.type
            assign = self.g.assigns.get(kind)
            call = self.g.calls.get(kind)
            if assign is None and call is None:
                continue
            seen += 1
            if seen > MAX_NODES:
                break
            if assign is not None:
                found = assign(node)
                if found:
                    self.assignment(node, *found)
            if call is not None:
                found = call(node)
                if found:
                    self.call(node, *found)

    def assignment(self, node, targets: list[str], value, appends: bool = False) -> None:
        if value is None or not targets:
            return
        folded = self.fold(value)
        uses, calls = self.inside(value, own=True)
        for target in targets[:8]:
            if folded is not None:
                self.facts.values[target] = fold.clip((self.facts.values.get(target, "") if appends else "") + folded)
            elif not appends:
                self.facts.values.pop(target, None)
            self.facts.add(Op(node.start_point[0] + 1, "=", "=", (self.facts.values.get(target, ""),),
                              frozenset(uses | ({target} if appends else set())), frozenset(calls), target,
                              _text(node)))

    def call(self, node, callee: str, args: list) -> None:
        hidden = self.g.extra.get("callee")
        if hidden is not None:  # a callee whose name is built at run time (`g['ev'+'al']`, `&('I'+'EX')`, `send(:x)`)
            found = hidden(self, node, callee, args)
            if found is not None:
                callee, args = found
        full = callee.lower()
        if full[:1] in ("'", '"') and full[-1:] == full[:1] and len(full) > 2:
            full = full[1:-1]  # `& "$env:APPDATA\\nh.exe"`: the quoted path a call operator runs
        name = full.replace("::", ".").rsplit(".", 1)[-1].strip()
        if full.startswith((".\\", "./", "/", "~", "$")) and not _METHOD_OF_VARIABLE.match(full) or "\\" in full:
            name = full  # a program run by its path (`.\\setup.exe`, `$env:TEMP\\a.exe`): the path is the name
        words = tuple(self.word(a) for a in args[:32])
        uses, calls = self.inside(node)
        calls.discard(full)
        line = node.start_point[0] + 1
        self.facts.add(Op(line, name, full, words, frozenset(uses), frozenset(calls), None, _text(node)))
        feeding = frozenset(calls | {name})
        for arg in args[:32]:
            if arg.type in self.g.functions:  # a callback: its parameters receive what the call produced
                for param in self.g.params(arg)[:8]:
                    self.facts.add(Op(line, "=", "=", ("",), frozenset(uses), feeding, param, _text(node)))
            elif arg.type in self.g.names and self.g.name_of(arg).lower() in self.g.exec_refs:
                self.facts.add(Op(line, self.g.name_of(arg).lower(), self.g.name_of(arg).lower(), (), frozenset(uses),
                                  feeding, None, _text(node)))

    def word(self, node) -> str:
        """An argument as text: folded, else a plain variable as `$name` (so two calls given the same unknown path
        still name the same file), else ""."""
        value = self.fold(node)
        if value is not None:
            return value
        if node.type in self.g.names:
            return "$" + self.g.name_of(node)
        if node.type in self.g.binary and b"+" in node.text[:4096]:
            return self.partial(node)
        return ""

    def partial(self, node, depth: int = 0) -> str:
        """`os.homedir() + '/.ssh/id_rsa'`: the literal parts of a `+` chain, `…` for the parts not known, so the
        path or address it spells still shows; "" when no part is known."""
        parts, stack = [], [node]
        while stack and len(parts) < 64:
            current = stack.pop()
            operator = current.child_by_field_name("operator") if current.type in self.g.binary else None
            if current.type in self.g.binary and operator is not None and operator.text == b"+":
                stack += [current.child_by_field_name("right"), current.child_by_field_name("left")]
                continue
            value = self.fold(current) if current is not None else None
            parts.append(value if value is not None else "…")
        return "".join(parts) if any(p != "…" for p in parts) else ""

    def inside(self, node, own: bool = False) -> tuple[set[str], set[str]]:
        """(names read, callees called) inside `node` (`own`: counting `node` itself when it is a call); a callback's
        body is left out: it is read as its own calls, and its parameters carry the flow into it."""
        uses: set[str] = set()
        calls: set[str] = set()
        start, end = node.start_byte, node.end_byte
        index = bisect_left(self.starts, start)
        items, count, taken = self.index, len(self.index), 0
        while index < count and items[index][0] < end and taken < MAX_INSIDE:
            item_start, item_end, what, value = items[index]
            index += 1
            taken += 1
            if item_end > end:
                continue  # an enclosing node that starts at the same place
            if what == "name":
                uses.add(value)  # type: ignore[arg-type]
            elif what == "env":
                uses.add("$ENV")  # the whole environment, every secret in it
            elif what == "call":
                if own or item_start != start or item_end != end:
                    calls.update(value)  # type: ignore[arg-type]
            elif what == "func" and (item_start, item_end) != (start, end):
                while index < count and items[index][0] < item_end:
                    index += 1
        return uses, calls

    def fold(self, node, depth: int = 0) -> str | None:
        """The text `node` spells when it is built from literals, else None."""
        if node is None or depth > 40:
            return None
        kind = node.type
        if kind in self.g.strings:
            parts = []
            children = node.named_children
            if not children:
                raw = node.text.decode("utf-8", "replace")
                return _strip_quotes(raw)
            for child in children:
                if child.type in self.g.fragments:
                    parts.append(fold.unescape(child.text.decode("utf-8", "replace"))
                                 if child.type != "escape_sequence" else fold.unescape(child.text.decode()))
                elif child.type in self.g.substitutions:
                    inner = next(iter(child.named_children), None)
                    value = self.fold(inner, depth + 1)
                    parts.append(value if value is not None else "")
                elif child.type in ("escape_sequence",):
                    parts.append(fold.unescape(child.text.decode("utf-8", "replace")))
                else:
                    value = self.fold(child, depth + 1)
                    if value is None:
                        return None
                    parts.append(value)
            return fold.clip("".join(parts))
        if kind in self.g.names:
            return self.facts.values.get(self.g.name_of(node))
        if kind in self.g.parens and node.named_children:
            return self.fold(node.named_children[-1], depth + 1)
        if kind in self.g.binary:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            operator = node.child_by_field_name("operator")
            op = operator.text.decode() if operator is not None else \
                next((c.text.decode() for c in node.children if not c.is_named), "+")
            if op != "+" or left is None or right is None:
                return None
            a, b = self.fold(left, depth + 1), self.fold(right, depth + 1)
            return fold.clip(a + b) if a is not None and b is not None else None
        transform = self.g.extra.get("fold")
        if transform is not None:
            return transform(self, node, depth)
        return None

    def items(self, node, depth: int) -> list[str] | None:
        """An array literal's folded items, or None."""
        if node is None or node.type not in self.g.arrays:
            value = self.fold(node, depth + 1) if node is not None else None
            return list(value) if value is not None and node is not None and node.type in self.g.strings else None
        out = []
        for child in node.named_children[:4096]:
            value = self.fold(child, depth + 1)
            if value is None:
                if child.type in ("number", "integer", "int_literal"):
                    value = child.text.decode()
                else:
                    return None
            out.append(value)
        return out


def _strip_quotes(raw: str) -> str:
    for quote in ('"""', "'''", '"', "'", "`"):
        if raw.startswith(quote) and raw.endswith(quote) and len(raw) >= 2 * len(quote):
            return raw[len(quote):-len(quote)]
    return raw


def _text(node) -> str:
    return node.text[:MAX_TEXT].decode("utf-8", "replace").split("\n", 1)[0]
