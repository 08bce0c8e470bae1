"""What a shell script does, read with tree-sitter's bash grammar (never run).

Each command becomes an `Op` whose words are folded: variables assigned a literal are expanded (`a=cu; ${a}rl`),
quotes and `$'\\x63'` escapes undone, and small command substitutions evaluated where they only transform a literal
(`$(echo … | base64 -d)`, `$(echo … | rev)`, `$(printf '\\x63…')`). A pipeline feeds each command the ones before it
(`curl … | sh`), and the string given to `sh -c`, `bash -c` or `eval` is read again as a script, so a command hidden
in a decoded string is judged like any other.
"""

from __future__ import annotations

import contextlib

from skillyard.format.scan import fold, treesit
from skillyard.format.scan.facts import MAX_TEXT, Facts, Op

MAX_DEPTH = 3  # `eval` of `sh -c` of … read again at most this deep
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "busybox"})
_VARS = ("simple_expansion", "expansion")


def read(source: str, facts: Facts | None = None, line: int = 0, depth: int = 0) -> Facts | None:
    """Facts about one shell script, or None when it is too large to parse."""
    root = treesit.parse("shell", source.encode("utf-8", "surrogatepass"))
    if root is None:
        return None
    facts = facts if facts is not None else Facts("shell")
    with contextlib.suppress(RecursionError):  # pipelines nested hundreds deep: judged on what was read
        _Reader(facts, line, depth).statements(root)
    return facts


class _Reader:
    def __init__(self, facts: Facts, line: int, depth: int):
        self.facts, self.line, self.depth = facts, line, depth

    def _line(self, node) -> int:
        return self.line or node.start_point[0] + 1

    def statements(self, root) -> None:
        """Every command in document order (an explicit stack: a deeply nested script cannot exhaust recursion)."""
        stack = [(root, ())]
        while stack:
            node, feeding = stack.pop()
            kind = node.type
            if kind == "variable_assignment":
                self.assignment(node)
                continue
            if kind == "command":
                self.command(node, feeding, ())
                continue
            if kind == "redirected_statement":
                body = node.child_by_field_name("body")
                redirects = tuple(self.word(r.child_by_field_name("destination")) or ""
                                  for r in node.children_by_field_name("redirect") if r.type == "file_redirect")
                heredoc = any(r.type == "heredoc_redirect" for r in node.children)
                if body is not None and body.type == "command":
                    self.command(body, feeding, redirects, heredoc)
                    continue
                if body is not None and not redirects:
                    stack.append((body, feeding))
                    continue
                if body is not None and body.type == "pipeline":  # `curl … | tee f > /dev/null`: still a pipeline
                    stack.append((body, feeding))
                elif body is not None:  # `{ …; } > file`: each inner command writes there
                    for child in reversed(body.named_children):
                        stack.append((child, feeding))
                for redirect in redirects:
                    self.facts.add(Op(self._line(node), ">", ">", words=(redirect,), text=_text(node)))
                continue
            if kind == "pipeline":
                names = list(feeding)
                for child in node.named_children:  # left to right: each stage reads what the earlier ones print
                    before = len(self.facts.ops)
                    self.statements_fed(child, tuple(names))
                    names += [op.name for op in self.facts.ops[before:] if op.name not in ("=", ">")]
                continue
            for child in reversed(node.named_children):
                stack.append((child, feeding))

    def statements_fed(self, node, feeding) -> None:
        """A pipeline stage that is not a plain command (a redirected one, a subshell): read with the feed kept."""
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            redirects = tuple(self.word(r.child_by_field_name("destination")) or ""
                              for r in node.children_by_field_name("redirect") if r.type == "file_redirect")
            if body is not None and body.type == "command":
                self.command(body, feeding, redirects)
                return
        if node.type == "command":
            self.command(node, feeding, ())
            return
        before = len(self.facts.ops)
        self.statements(node)
        for index in range(before, len(self.facts.ops)):
            op = self.facts.ops[index]
            self.facts.ops[index] = Op(op.line, op.name, op.full, op.words, op.uses, op.calls | frozenset(feeding),
                                       op.target, op.text, op.redirects)

    def assignment(self, node) -> None:
        name_node, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name_node is None:
            return
        name = name_node.text.decode("utf-8", "replace")
        folded = self.word(value) if value is not None else ""
        if folded is not None:
            self.facts.values[name] = fold.clip(folded)
        elif name in self.facts.values and not node.text.decode("utf-8", "replace").startswith(name + "+="):
            del self.facts.values[name]
        if folded is not None and node.text.decode("utf-8", "replace").startswith(name + "+="):
            self.facts.values[name] = fold.clip(self.facts.values.get(name, "") + folded)
        uses, calls = _inside(value) if value is not None else (set(), set())
        if value is not None:  # from the assignment node: `x=$(curl …)`'s value is the substitution itself
            self.substitutions(node)
        self.facts.add(Op(self._line(node), "=", "=", words=(self.facts.values.get(name, ""),), uses=frozenset(uses),
                          calls=frozenset(calls), target=name, text=_text(node)))

    def command(self, node, feeding, redirects, heredoc: bool = False) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            for child in node.named_children:
                if child.type == "variable_assignment":
                    self.assignment(child)
            return
        words = [self.word(name_node) or ""] + [self.word(a) or "" for a in node.children_by_field_name("argument")]
        if words[0] in ("sudo", "nohup", "exec", "command", "env", "time", "nice", "doas", "busybox") and \
                len(words) > 1:
            rest = words[1:]
            while rest and (rest[0].startswith("-") or ("=" in rest[0] and words[0] == "env")):
                rest = rest[1:]
            if rest:
                words = rest
        self.substitutions(node)
        uses: set[str] = set()
        calls: set[str] = set(feeding)
        for child in node.children_by_field_name("argument"):
            inner_uses, inner_calls = _inside(child)
            uses |= inner_uses
            calls |= inner_calls
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment(child)
        name = words[0].rsplit("/", 1)[-1].lower() if not words[0].startswith(("./", "/", "~")) else words[0]
        if heredoc:
            calls.add("<<")
        self.facts.add(Op(self._line(node), name, words[0].lower(), tuple(words[1:]), frozenset(uses),
                          frozenset(calls), None, _text(node), redirects))
        script = _inline_script(name, words)
        if script is None and words[0] != (name_node.text.decode("utf-8", "replace") if name_node else "") and \
                any(c in words[0].strip() for c in " \t;|&"):
            script = " ".join(words)  # `$(printf '\x63\x75…')`, `$a$b …`: a command line folded from its name
        if script and self.depth < MAX_DEPTH:
            before = len(self.facts.ops)
            read(script, self.facts, self._line(node), self.depth + 1)
            for index in range(before, len(self.facts.ops)):  # what the inner script runs, it runs through `name`
                op = self.facts.ops[index]
                self.facts.ops[index] = Op(op.line, op.name, op.full, op.words, op.uses | frozenset(uses),
                                           op.calls | frozenset(calls), op.target, op.text, op.redirects)

    def substitutions(self, node) -> None:
        """The commands inside `$(…)`, backticks and `<(…)` of a command's words, read before the command itself."""
        stack, seen = [node], 0
        while stack and seen < 2000:
            current = stack.pop()
            seen += 1
            if current.type in ("command_substitution", "process_substitution") and current is not node:
                for child in current.named_children:
                    self.statements(child)
                continue
            stack.extend(reversed(current.named_children))

    def word(self, node) -> str | None:
        """The text a word spells after expansion, or None when part of it is unknown (a variable never assigned a
        literal, a command substitution that is not a plain transform)."""
        if node is None:
            return None
        kind = node.type
        if kind in ("word", "number", "command_name") and not node.named_children:
            return _unquote_word(node.text.decode("utf-8", "replace"))
        if kind == "raw_string":
            return node.text.decode("utf-8", "replace")[1:-1]
        if kind == "ansi_c_string":
            return fold.unescape(node.text.decode("utf-8", "replace")[2:-1])
        if kind in _VARS:
            name = next((c.text.decode("utf-8", "replace") for c in node.named_children
                         if c.type in ("variable_name", "special_variable_name")), "")
            return self.facts.values.get(name, "$" + name)  # unknown: kept as written (`$HOME/.ssh/id_rsa`)
        if kind == "command_substitution":
            return self.substitution(node)
        if kind == "string_content":
            return node.text.decode("utf-8", "replace")
        if kind in ("string", "concatenation", "command_name", "translated_string"):
            parts = []
            children = node.named_children
            if kind == "string" and not children:
                return node.text.decode("utf-8", "replace")[1:-1]
            for child in children:
                part = self.word(child)
                if part is None:
                    return None
                parts.append(part)
            return fold.clip("".join(parts))
        return None

    def substitution(self, node) -> str | None:
        """`$(echo X | base64 -d)`, `$(echo X | rev)`, `$(printf '\\x..')`, `$(echo X | xxd -r -p)`: the literal
        transformed; None for anything that needs running."""
        body = node.named_children[0] if node.named_children else None
        stages = body.named_children if body is not None and body.type == "pipeline" else [body] if body else []
        value: str | None = None
        for stage in stages:
            if stage.type != "command":
                return None
            name_node = stage.child_by_field_name("name")
            words = [self.word(a) for a in stage.children_by_field_name("argument")]
            head = (self.word(name_node) or "") if name_node is not None else ""
            if head in ("echo", "printf") and value is None and all(w is not None for w in words):
                args = [w for w in words if not (head == "echo" and w in ("-n", "-e", "-ne", "-en"))]
                value = " ".join(args)  # type: ignore[arg-type]
                if head == "printf" or "-e" in words:
                    value = fold.unescape(value)
            elif head == "base64" and value is not None and any(w in ("-d", "--decode", "-D") for w in words):
                value = fold.b64(value)
            elif head == "rev" and value is not None:
                value = "\n".join(line[::-1] for line in value.split("\n"))
            elif head == "xxd" and value is not None and "-r" in words:
                value = fold.unhex(value)
            elif head == "tr" and value is not None and len(words) == 2 and words[0] and words[1] and \
                    len(words[0]) == len(words[1]):  # type: ignore[arg-type]
                value = value.translate(str.maketrans(words[0], words[1]))  # type: ignore[arg-type]
            else:
                return None
            if value is None:
                return None
        return value


def _inline_script(name: str, words: list[str]) -> str | None:
    """The script text a command runs from its arguments: `sh -c TEXT`, `bash -c TEXT`, `eval TEXT…`."""
    if name == "eval":
        return " ".join(words[1:]) or None
    if name in _SHELLS:
        for index, word in enumerate(words[1:-1], 1):
            if word.startswith("-") and "c" in word[1:] and not word.startswith("--"):
                return words[index + 1] or None
    return None


def _unquote_word(value: str) -> str:
    """A bare word with its backslash escapes removed (`c\\url` is `curl`)."""
    if "\\" not in value:
        return value
    out, index = [], 0
    while index < len(value):
        if value[index] == "\\" and index + 1 < len(value):
            index += 1
        out.append(value[index])
        index += 1
    return "".join(out)


def _inside(node) -> tuple[set[str], set[str]]:
    """(variables read, commands run) anywhere inside `node`: `$x`, `${x}`, and the commands of `$(…)` and `<(…)`."""
    uses: set[str] = set()
    calls: set[str] = set()
    stack = [node]
    seen = 0
    while stack and seen < 5000:
        current = stack.pop()
        seen += 1
        if current.type in ("variable_name",):
            uses.add(current.text.decode("utf-8", "replace"))
        elif current.type == "command":
            name = current.child_by_field_name("name")
            if name is not None:
                calls.add(name.text.decode("utf-8", "replace").strip("\"'").rsplit("/", 1)[-1].lower())
        stack.extend(current.named_children)
    return uses, calls


def _text(node) -> str:
    return node.text[:MAX_TEXT].decode("utf-8", "replace").split("\n", 1)[0]
