"""What a bundled Python script does, read with `ast` (never run, never imported).

Calls are matched by what they call, not by a method's name: `exec(x)` is the builtin, `model.eval()` is not. A
value is followed one step through plain assignments (`cmd = ...; run(cmd)`), which is how decode-then-execute is
written in practice; deeper data flow is not attempted. Split strings (`".ss" "h"`, `"id_" + "rsa"`,
`"".join([...])`) are folded so the paths and names they spell are seen whole.
"""

from __future__ import annotations

import ast
import functools

from skillyard.format.scan.astwalk import children as _children
from skillyard.format.scan.astwalk import nodes as _nodes
from skillyard.format.scan.astwalk import walk as _walk

MAX_SOURCE = 512 * 1024  # larger scripts are left to the text rules: parsing cost grows with size
_EXEC_BUILTINS = frozenset({"exec", "eval", "compile", "execfile"})
_RUNNERS = frozenset({"system", "popen", "Popen", "run", "call", "check_call", "check_output", "getoutput",
                      "getstatusoutput", "spawnl", "spawnlp", "spawnv", "spawnvp", "execv", "execl", "execvp",
                      "startfile"})
_DECODERS = frozenset({"b64decode", "b32decode", "b16decode", "a85decode", "b85decode", "decodebytes",
                       "urlsafe_b64decode", "standard_b64decode", "fromhex", "unhexlify", "a2b_base64", "a2b_hex",
                       "decompress", "loads", "rot13", "decrypt"})
_NETWORK_MODULES = ("urllib", "requests", "httpx", "http.client", "aiohttp", "urllib3", "socket")
_DANGEROUS_ATTRS = frozenset({"system", "popen", "exec", "eval", "spawn", "Popen", "run", "call", "check_output"})


class Facts:
    """What a script was seen to do, each with the line it happens on."""

    __slots__ = ("decode_exec", "fetch_exec", "computed_import", "strings", "network", "env_dump")

    def __init__(self):
        self.decode_exec: list[tuple[int, str]] = []
        self.fetch_exec: list[tuple[int, str]] = []
        self.computed_import: list[tuple[int, str]] = []
        self.strings: list[tuple[int, str]] = []  # folded string constants (split strings joined)
        self.network = False
        self.env_dump: list[int] = []


def _name(func: ast.expr) -> str:
    """`exec` for a bare name, `.system` for an attribute (the dot marks a method or module function)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return "." + func.attr
    return ""


def fold(node: ast.expr) -> str | None:
    """The string a constant expression spells: literals, `+`, implicit concatenation, `"".join([...])`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = fold(node.left), fold(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [fold(v) if not isinstance(v, ast.FormattedValue) else "" for v in node.values]
        return "".join(p or "" for p in parts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "chr" and \
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int) and \
            0 <= node.args[0].value < 0x110000:
        return chr(node.args[0].value)  # `chr(111) + chr(115)`
    if _reversed_slice(node) and node.slice.step.operand.value == 1 and node.slice.lower is None \
            and node.slice.upper is None:
        inner = fold(node.value)
        return inner[::-1] if inner is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
        sep = fold(node.func.value)
        items = [fold(e) for e in node.args[0].elts]
        if sep is not None and all(i is not None for i in items):
            return sep.join(items)  # type: ignore[arg-type]
    return None


def _is_decoding(node: ast.AST, tainted: set[str]) -> bool:
    """Whether an expression decodes, unscrambles or builds text from numbers (XOR, `chr`, `bytes([…])`, a
    reversed slice) — or uses a name that was assigned such a value, or calls a function of the script that
    returns one (named in `tainted` as `name()`)."""
    for sub in _walk(node):
        if isinstance(sub, ast.Call):
            name = _name(sub.func).lstrip(".")
            if name in _DECODERS and not _plain_data(sub):
                return True
            if name == "decode" and sub.args and not any(_text_codec(a) for a in sub.args):  # codecs.decode(x, "rot13")
                return True
            if _builds_text(sub, name):
                return True
            if isinstance(sub.func, ast.Name) and sub.func.id + "()" in tainted:
                return True
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.BitXor) or isinstance(sub, ast.Name) and \
                sub.id in tainted or _reversed_slice(sub):
            return True
    return False


def _builds_text(call: ast.Call, name: str) -> bool:
    """Text spelled as numbers: `chr(115)`, `map(chr, […])`, `bytes([99, 117])`, `bytearray((…))`."""
    if name == "chr":
        return True
    if name == "map" and call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == "chr":
        return True
    return name in ("bytes", "bytearray") and isinstance(call.func, ast.Name) and len(call.args) == 1 and \
        isinstance(call.args[0], (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp))


def _reversed_slice(node: ast.AST) -> bool:
    """`text[::-1]`: text stored backwards."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice):
        return False
    step = node.slice.step
    return isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant)


_TEXT_CODECS = frozenset({"utf-8", "utf8", "utf_8", "ascii", "latin-1", "latin1", "utf-16", "cp1252", "iso-8859-1"})


def _text_codec(node: ast.expr) -> bool:
    """`bytes.decode("utf-8")`: reading a program's output as text, not unscrambling anything."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in _TEXT_CODECS


def _plain_data(call: ast.Call) -> bool:
    """`json.loads(...)`: parsing data (a report, a config) yields values, never hidden code."""
    return isinstance(call.func, ast.Attribute) and call.func.attr == "loads" and \
        isinstance(call.func.value, ast.Name) and call.func.value.id in ("json", "tomllib", "yaml")


def _is_fetching(node: ast.AST, fetched: set[str]) -> bool:
    """Whether an expression downloads (`urlopen`, `requests.get`, `httpx.get`, ...) or uses a name that holds a
    download."""
    for sub in _walk(node):
        if isinstance(sub, ast.Call):
            name = _name(sub.func).lstrip(".")
            if name in ("urlopen", "urlretrieve"):
                return True
            if name in ("get", "post", "request") and isinstance(sub.func, ast.Attribute) and \
                    isinstance(sub.func.value, ast.Name) and sub.func.value.id in ("requests", "httpx", "session"):
                return True
        elif isinstance(sub, ast.Name) and sub.id in fetched:
            return True
    return False


def _may_decode_or_fetch(nodes: list[ast.AST]) -> tuple[bool, bool]:
    """(`_is_decoding(tree, set())`, `_is_fetching(tree, set())`) from the tree's nodes in one loop, without walking
    again (a `chr` over an XOR holds the XOR, which counts by itself). tests/format/test_scan_speed.py checks both
    against the walks."""
    decode = fetch = False
    for sub in nodes:
        if isinstance(sub, ast.Call):
            name = _name(sub.func).lstrip(".")
            if name in _DECODERS or (name == "decode" and sub.args) or _builds_text(sub, name):
                decode = True
            elif name in ("urlopen", "urlretrieve") or (
                    name in ("get", "post", "request") and isinstance(sub.func, ast.Attribute) and
                    isinstance(sub.func.value, ast.Name) and sub.func.value.id in ("requests", "httpx", "session")):
                fetch = True
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.BitXor) or _reversed_slice(sub):
            decode = True
    return decode, fetch


def _computed(node: ast.expr) -> bool:
    """A name built at run time rather than written down: not a plain literal, not a loop over literals."""
    return not isinstance(node, (ast.Constant, ast.Name))


@functools.lru_cache(maxsize=4)
def parse(source: str) -> ast.Module | None:
    """The script's tree, parsed once for both readers of this module (neither changes it); None when it is too
    large or does not parse."""
    if len(source) > MAX_SOURCE:
        return None
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def analyse(source: str) -> Facts | None:
    """Facts about one script, or None when it is too large or does not parse (the text rules still run)."""
    tree = parse(source)
    if tree is None:
        return None
    facts = Facts()
    tainted: set[str] = set()  # names holding decoded text
    fetched: set[str] = set()  # names holding downloaded content
    nodes = _nodes(tree)
    # Nothing in the script decodes (or downloads): then no name is ever tainted (or fetched), and no expression in
    # it can be decoding (or fetching), so the per-expression walks below are skipped. One walk each, same facts.
    may_decode, may_fetch = _may_decode_or_fetch(nodes)
    assigns = [({t.id for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                 for t in _walk(target) if isinstance(t, ast.Name)}, node.value)
               for node in nodes if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None] \
        if may_decode or may_fetch else []
    if may_decode or may_fetch:  # a function of the script returning decoded (or downloaded) text: `name()`
        assigns += [({node.name + "()"}, ret.value) for node in nodes if isinstance(node, (ast.FunctionDef,
                     ast.AsyncFunctionDef)) for ret in _walk(node) if isinstance(ret, ast.Return) and ret.value]
    runners = _runner_aliases(nodes)
    decoded: set[int] = set()  # assignments already found to decode (or download): a larger taint keeps them so
    downloaded: set[int] = set()
    for _ in range(2):  # two passes: a name may be assigned from another assigned later in the walk order
        for at, (names, value) in enumerate(assigns):
            if may_decode and at not in decoded and _is_decoding(value, tainted):
                decoded.add(at)
                tainted |= names
            if may_fetch and at not in downloaded and _is_fetching(value, fetched):
                downloaded.add(at)
                fetched |= names
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            names = [a.name for a in node.names] + ([module] if module else [])
            if any(n and n.startswith(_NETWORK_MODULES) for n in names):
                facts.network = True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            facts.strings.append((node.lineno, node.value))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            folded = fold(node)
            if folded:
                facts.strings.append((node.lineno, folded))
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name in runners or _builtins_item(node.func) is not None:
            name = runners.get(name) or _builtins_item(node.func) or name  # `f = exec; f(x)`, `__builtins__.__dict__['ex'+'ec'](x)`
        bare = name.lstrip(".")
        args = list(node.args) + [k.value for k in node.keywords]
        line = node.lineno
        if bare == "loads" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
                node.func.value.id in ("pickle", "marshal", "dill", "cloudpickle") and args and may_decode and \
                _is_decoding(args[0], tainted):
            facts.decode_exec.append((line, f"{node.func.value.id}.loads() of decoded bytes, which runs code as it loads"))
        if bare == "join" and isinstance(node.func, ast.Attribute):
            folded = fold(node)
            if folded:
                facts.strings.append((line, folded))
        if name in ("dict", ".copy", ".items", ".dumps") and any(_is_os_environ(a) for a in args + [getattr(node.func, "value", None)]):
            facts.env_dump.append(line)
        shell_true = any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True
                         for k in node.keywords)
        runs_code = name in _EXEC_BUILTINS or (name.startswith(".") and bare in _RUNNERS) or \
            (name in ("system", "popen", "Popen", "run", "call", "check_output")) or shell_true
        if runs_code and args:
            if may_decode and any(_is_decoding(a, tainted) for a in args):
                facts.decode_exec.append((line, f"{bare}() of decoded or unscrambled text"))
            elif may_fetch and name in _EXEC_BUILTINS and any(_is_fetching(a, fetched) for a in args):
                facts.fetch_exec.append((line, f"{bare}() of code downloaded at run time"))
            elif name in _EXEC_BUILTINS and any(isinstance(a, ast.Call) and _name(a.func).lstrip(".") == "compile"
                                                for a in args):
                facts.decode_exec.append((line, f"{bare}() of compiled text"))
        if name in ("__import__", ".import_module") and args and _computed(args[0]) and \
                ((may_decode and _is_decoding(args[0], tainted)) or fold(args[0]) is not None):
                facts.computed_import.append((line, f"imports a module whose name is built at run time "
                                                    f"({fold(args[0]) or 'decoded'})"))
        if name == "getattr" and len(args) >= 2 and _computed(args[1]):
            spelled = fold(args[1])
            if (spelled in _DANGEROUS_ATTRS) or (may_decode and _is_decoding(args[1], tainted)):
                facts.computed_import.append((line, f"reaches `{spelled or 'a decoded name'}` through getattr "
                                                    "with a name built at run time"))
    return facts


def _runner_aliases(nodes: list[ast.AST]) -> dict[str, str]:
    """Names bound to a builtin that runs text (`run = exec`, `e = __builtins__.__dict__["ev" + "al"]`)."""
    out: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            found = value.id if isinstance(value, ast.Name) and value.id in _EXEC_BUILTINS else _builtins_item(value)
            if found:
                out[node.targets[0].id] = found
    return out


def _builtins_item(node: ast.AST) -> str | None:
    """`__builtins__.__dict__['ex' + 'ec']`, `vars(builtins)["eval"]`, `globals()['__builtins__']…`: the builtin
    that runs text, reached by a subscript, or None."""
    if not isinstance(node, ast.Subscript):
        return None
    key = fold(node.slice)
    if key not in _EXEC_BUILTINS:
        return None
    return key if "builtins" in ast.dump(node.value) or isinstance(node.value, ast.Call) else None


def _is_os_environ(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"


# ---------------------------------------------------------------- the common fact model (format/scan/facts.py)
_SUBPROCESS = frozenset({"run", "call", "check_call", "check_output", "popen", "getoutput", "getstatusoutput"})
_SHELL_LIKE = frozenset({"sh", "bash", "zsh", "dash", "ksh", "pwsh", "powershell", "cmd", "python", "python3",
                         "node", "perl", "ruby", "php", "osascript"})
_KEEP_ENV = frozenset({"get", "setdefault", "pop", "__getitem__", "__contains__"})


def read(source: str):
    """The script as `facts.Op`s, like the tree-sitter readers give, so every behaviour module judges Python too.
    `subprocess.run(["sh", "-c", cmd])` becomes the command it runs (`sh` with its words), a string run with
    `shell=True` or `os.system` is read again as shell, `exec`/`eval` are the evaluator, and a file opened for
    writing names its path on each `write`."""
    from skillyard.format.scan import read_shell
    from skillyard.format.scan.facts import MAX_TEXT, Facts, Op

    tree = parse(source)
    if tree is None:
        return None
    facts = Facts("python")
    handles: dict[str, str] = {}  # file-handle variable -> the path it was opened for writing
    lines = source.split("\n")

    def text_of(node) -> str:
        return lines[node.lineno - 1].strip()[:MAX_TEXT] if 0 < node.lineno <= len(lines) else ""

    def word(node) -> str:
        value = fold(node)
        if value is not None:
            return value
        value = _path_fold(node, facts.values)
        if value is not None:
            return value
        if isinstance(node, ast.Name):
            return facts.values.get(node.id, "$" + node.id)
        return ""

    parents = {child: parent for parent in _nodes(tree) for child in _children(parent)} \
        if "environ" in source else {}

    def env_item(attr) -> bool:
        """`os.environ["HOME"]`, `os.environ.get(…)`: one variable, not the whole environment."""
        parent = parents.get(attr)
        return isinstance(parent, ast.Subscript) or (isinstance(parent, ast.Attribute) and parent.attr in _KEEP_ENV)

    def inside(node) -> tuple[set[str], set[str]]:
        uses, calls = set(), set()
        stack, seen = [node], 0
        while stack and seen < 600:  # bounded: a call nesting a whole program is read for its first names
            sub = stack.pop()
            seen += 1
            stack.extend(_children(sub))
            if isinstance(sub, ast.Name):
                uses.add(sub.id)
            elif isinstance(sub, ast.Call):
                full = _dotted(sub.func).lower()
                calls.add(full)
                calls.add(_op_name(sub, full))
            elif isinstance(sub, ast.Attribute) and _is_os_environ(sub) and not env_item(sub):
                uses.add("$ENV")
        return uses, calls

    for node in _nodes(tree):
        if len(facts.ops) > 4000:
            break
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for target in targets for t in _walk(target) if isinstance(t, ast.Name)]
            uses, calls = inside(node.value)
            folded = word(node.value)
            for name in names[:8]:
                if isinstance(node, ast.AugAssign):
                    folded = facts.values.get(name, "") + folded if folded else ""
                    uses.add(name)
                if folded and not folded.startswith("$"):
                    facts.values[name] = folded[:65536]
                if isinstance(node.value, ast.Call) and _dotted(node.value.func) == "open":
                    mode = _mode(node.value)
                    if mode[:1] in ("w", "a") and node.value.args:
                        handles[name] = word(node.value.args[0])
                facts.add(Op(node.lineno, "=", "=", (folded,), frozenset(uses), frozenset(calls), name, text_of(node)))
        elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name) and \
                isinstance(node.context_expr, ast.Call):
            call = node.context_expr
            uses, calls = inside(call)
            if _dotted(call.func) == "open" and _mode(call)[:1] in ("w", "a") and call.args:
                handles[node.optional_vars.id] = word(call.args[0])
            facts.add(Op(call.lineno, "=", "=", ("",), frozenset(uses), frozenset(calls), node.optional_vars.id,
                         text_of(call)))
        elif isinstance(node, ast.Call):
            full = _dotted(node.func).lower()
            name = _op_name(node, full)
            args = list(node.args) + [k.value for k in node.keywords if k.arg not in ("shell", "check", "text")]
            uses, calls = inside(node)
            calls.discard(full)
            words = tuple(word(a) for a in args[:32])
            if node.args and isinstance(node.args[0], (ast.List, ast.Tuple)) and name == "system":
                items = [word(e) for e in node.args[0].elts[:32]]  # subprocess.run(["sh", "-c", cmd])
                program = items[0].rsplit("/", 1)[-1].lower() if items else ""
                if program in _SHELL_LIKE:  # the shell or interpreter it starts, with its words (`-c`, a file)
                    name, words = program, tuple(items[1:])
                elif items:
                    words = tuple(items)  # a program: `system` with the program first, as run_target reads it
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("read_text", "read_bytes", "open",
                                                                            "write_text", "write_bytes"):
                words = (word(node.func.value), *words)  # `(home / ".aws" / "credentials").read_text()`
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
                    node.func.value.id in handles and node.func.attr in ("write", "writelines"):
                name, words = "writefile", (handles[node.func.value.id], *words)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "dump" and len(node.args) >= 2 and \
                    (isinstance(node.args[1], ast.Name) and node.args[1].id in handles or
                     isinstance(node.args[1], ast.Call) and _dotted(node.args[1].func) == "open" and
                     _mode(node.args[1])[:1] in ("w", "a") and node.args[1].args):  # json.dump(x, open(p, "w"))
                target = node.args[1]
                name, words = "writefile", (handles[target.id] if isinstance(target, ast.Name) else
                                            word(target.args[0]), words[0] if words else "")
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "write" and \
                    isinstance(node.func.value, ast.Call) and _dotted(node.func.value.func) == "open" and \
                    _mode(node.func.value)[:1] in ("w", "a") and node.func.value.args:
                name, words = "writefile", (word(node.func.value.args[0]), *words)  # `open(p, "wb").write(x)`
            op = Op(node.lineno, name, full, words, frozenset(uses), frozenset(calls), None, text_of(node))
            facts.add(op)
            shell = any(k.arg == "shell" and isinstance(k.value, ast.Constant) and k.value.value is True
                        for k in node.keywords) or full in ("os.system", "os.popen")
            if shell and words and words[0] and not words[0].startswith("$"):
                before = len(facts.ops)
                read_shell.read(words[0], facts, node.lineno, 1)
                for index in range(before, len(facts.ops)):
                    inner = facts.ops[index]
                    facts.ops[index] = Op(inner.line, inner.name, inner.full, inner.words, inner.uses | uses,
                                          inner.calls | calls, inner.target, inner.text, inner.redirects)
    facts.ops.sort(key=lambda op: op.line)  # ast.walk goes breadth first; flows read in source order
    return facts


def _dotted(func: ast.expr) -> str:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    elif isinstance(func, ast.Call):
        parts.append("…")
    return ".".join(reversed(parts))


def _op_name(node: ast.Call, full: str) -> str:
    """The callee as the flow tables name it: the builtins that run text are the evaluator, the process runners
    `system`, everything else its last segment."""
    last = full.rsplit(".", 1)[-1]
    if full in ("exec", "eval", "execfile", "compile"):
        return "eval"
    if full in ("os.system", "os.popen", "os.startfile") or full.startswith("os.exec") or full.startswith("os.spawn") \
            or (full.startswith("subprocess.") and last in _SUBPROCESS) or full in ("pty.spawn",):
        return "system"
    return last


def _mode(call: ast.Call) -> str:
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "r"


def _path_fold(node: ast.expr, values: dict[str, str]) -> str | None:
    """`home / ".aws" / "credentials"`, `os.path.join(home, ".ssh", "id_rsa")`, `Path.home() / ".kube"`: a path
    whose unknown parts show as `…`."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left = _path_fold(node.left, values) or fold(node.left) or values.get(getattr(node.left, "id", ""), "…")
        right = _path_fold(node.right, values) or fold(node.right) or "…"
        return f"{left}/{right}"
    if isinstance(node, ast.Call) and _dotted(node.func) in ("Path.home", "pathlib.Path.home"):
        return "~"
    if isinstance(node, ast.Call) and _dotted(node.func) in ("os.path.join", "posixpath.join", "Path", "pathlib.Path",
                                                            "os.path.expanduser"):
        return "/".join(fold(a) or values.get(getattr(a, "id", ""), "…") for a in node.args)
    return None
