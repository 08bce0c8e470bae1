"""What a bundled Python script does, read with `ast` (never run, never imported).

Calls are matched by what they call, not by a method's name: `exec(x)` is the builtin, `model.eval()` is not. A
value is followed one step through plain assignments (`cmd = ...; run(cmd)`), which is how decode-then-execute is
written in practice; deeper data flow is not attempted. Split strings (`".ss" "h"`, `"id_" + "rsa"`,
`"".join([...])`) are folded so the paths and names they spell are seen whole.
"""

from __future__ import annotations

import ast

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
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" \
            and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
        sep = fold(node.func.value)
        items = [fold(e) for e in node.args[0].elts]
        if sep is not None and all(i is not None for i in items):
            return sep.join(items)  # type: ignore[arg-type]
    return None


def _is_decoding(node: ast.AST, tainted: set[str]) -> bool:
    """Whether an expression decodes, unscrambles or builds text from numbers (XOR, `chr`) — or uses a name that
    was assigned such a value."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            name = _name(sub.func).lstrip(".")
            if name in _DECODERS and not _plain_data(sub):
                return True
            if name == "decode" and sub.args and not any(_text_codec(a) for a in sub.args):  # codecs.decode(x, "rot13")
                return True
            if name == "chr" and any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitXor) for n in ast.walk(sub)):
                return True
        elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.BitXor) or isinstance(sub, ast.Name) and sub.id in tainted:
            return True
    return False


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
    for sub in ast.walk(node):
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


def _computed(node: ast.expr) -> bool:
    """A name built at run time rather than written down: not a plain literal, not a loop over literals."""
    return not isinstance(node, (ast.Constant, ast.Name))


def analyse(source: str) -> Facts | None:
    """Facts about one script, or None when it is too large or does not parse (the text rules still run)."""
    if len(source) > MAX_SOURCE:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    facts = Facts()
    tainted: set[str] = set()  # names holding decoded text
    fetched: set[str] = set()  # names holding downloaded content
    nodes = list(ast.walk(tree))
    for _ in range(2):  # two passes: a name may be assigned from another assigned later in the walk order
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {t.id for target in targets for t in ast.walk(target) if isinstance(t, ast.Name)}
                if _is_decoding(node.value, tainted):
                    tainted |= names
                if _is_fetching(node.value, fetched):
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
        bare = name.lstrip(".")
        args = list(node.args) + [k.value for k in node.keywords]
        line = node.lineno
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
            if any(_is_decoding(a, tainted) for a in args):
                facts.decode_exec.append((line, f"{bare}() of decoded or unscrambled text"))
            elif name in _EXEC_BUILTINS and any(_is_fetching(a, fetched) for a in args):
                facts.fetch_exec.append((line, f"{bare}() of code downloaded at run time"))
            elif name in _EXEC_BUILTINS and any(isinstance(a, ast.Call) and _name(a.func).lstrip(".") == "compile"
                                                for a in args):
                facts.decode_exec.append((line, f"{bare}() of compiled text"))
        if name in ("__import__", ".import_module") and args and _computed(args[0]) and \
                (_is_decoding(args[0], tainted) or fold(args[0]) is not None):
                facts.computed_import.append((line, f"imports a module whose name is built at run time "
                                                    f"({fold(args[0]) or 'decoded'})"))
        if name == "getattr" and len(args) >= 2 and _computed(args[1]):
            spelled = fold(args[1])
            if (spelled in _DANGEROUS_ATTRS) or _is_decoding(args[1], tainted):
                facts.computed_import.append((line, f"reaches `{spelled or 'a decoded name'}` through getattr "
                                                    "with a name built at run time"))
    return facts


def _is_os_environ(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"
