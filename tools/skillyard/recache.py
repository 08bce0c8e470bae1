"""Compiled regular expressions kept between runs, beside the bytecode cache.

The security scanner compiles a few hundred patterns when it is imported, and Python compiles a pattern (parse, then
code generation, both written in Python) in 0.1-3 ms: ~60 ms of every `skillyard validate`, and the larger part of
its fixed cost. The compiled program, a list of integers, depends only on the pattern, its flags and the Python
build; `_sre.compile` makes a pattern object from it in microseconds. So while a command runs (`active()`), the
compiler the `re` module calls is one that looks the pattern up here first, and what it had to compile is saved
when the command ends, for the next run.

The answer never depends on the cache: an entry is the compiler's own output for exactly that pattern and flags on
this exact Python version; anything unexpected (a damaged file, another version, an entry `_sre` refuses: it
checks every program it is given) falls back to the normal compiler. Like bytecode, the file is written only where
Python writes bytecode (not under PYTHONDONTWRITEBYTECODE), and an unwritable cache folder only means no cache.
`SKILLYARD_RECACHE=0` turns it off (to measure or rule it out).
"""

from __future__ import annotations

import _thread
import contextlib
import os
import sys

MAX_ENTRIES = 2048  # patterns built from the text being checked would otherwise grow the file without end
_HEADER = "skillyard-recache-1"


def cache_file() -> str | None:
    """Where this Python's patterns are kept: in this package's bytecode cache folder (honours
    PYTHONPYCACHEPREFIX), named after the Python build."""
    try:
        from importlib.util import cache_from_source

        folder = os.path.dirname(cache_from_source(__file__))
    except (NotImplementedError, ValueError):  # no bytecode cache here (cache_tag None)
        return None
    return os.path.join(folder, f"recache.{sys.implementation.cache_tag}.marshal")


def _version() -> str:
    import _sre

    return f"{sys.version}|{sys.hexversion}|{_sre.MAGIC}|{_sre.CODESIZE}"


class _Cache:
    """The `re` compiler's stand-in for one command: hits from the file, misses compiled and recorded."""

    def __init__(self, path: str | None):
        self.path = path
        self._table: dict | None = None  # read at the first pattern compiled: a command may compile none
        self.used: set = set()
        self.new: dict = {}

    @property
    def table(self) -> dict:
        if self._table is None:
            self._table = self._load(self.path) if self.path else {}
        return self._table

    @staticmethod
    def _load(path: str) -> dict:
        import marshal

        try:
            with open(path, "rb") as handle:
                header, version, table = marshal.load(handle)  # noqa: S302 - our own file, beside the bytecode
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return table if header == _HEADER and version == _version() and isinstance(table, dict) else {}

    def compile(self, original, pattern, flags=0):
        """As `re._compiler.compile(pattern, flags)`: the same pattern object, from the cache when it holds it."""
        if type(pattern) not in (str, bytes) or type(flags) is not int or flags & 128:  # 128: re.DEBUG prints
            return original(pattern, flags)
        key = (pattern, flags)
        entry = self.table.get(key)
        if entry is not None:
            try:
                compiled = _from_entry(pattern, entry)
            except Exception:  # noqa: BLE001 - any damage: compile it afresh (and replace the entry)
                del self.table[key]
            else:
                self.used.add(key)
                return compiled
        try:  # compiled once, as the compiler does, and kept
            entry = _entry(pattern, flags)
            compiled = _from_entry(pattern, entry)
        except Exception:  # noqa: BLE001 - a bad pattern (or an unexpected compiler): the compiler's own answer
            return original(pattern, flags)
        self.new[key] = entry
        return compiled

    def save(self) -> None:
        """Write the table with this run's new entries (atomically), when there are any and Python writes bytecode
        here. Over MAX_ENTRIES, only what this run used is kept."""
        if not self.new or not self.path or sys.dont_write_bytecode:  # (no new entry: the table was read)
            return
        import marshal

        table = {**self.table, **self.new}
        if len(table) > MAX_ENTRIES:
            table = {key: table[key] for key in list(self.used) + list(self.new)}
            if len(table) > MAX_ENTRIES:
                return
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(temporary, "wb") as handle:
                marshal.dump((_HEADER, _version(), table), handle)
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)



def stored(name: str, make, dump, load, check=None):
    """An object kept between runs as bytes (`dump`/`load`) beside the patterns, while a command has the cache on
    (`active`): the scanner's compiled multi-needle matcher costs ~27 ms to build and ~0.1 ms to load. `name` must
    say everything the object depends on; any doubt (no file, damage, `load` or `check` failing) makes it afresh
    with `make()`, and it is written (atomically, only where Python writes bytecode) over older files of the same
    kind (`name` up to its first dot)."""
    path = cache_file() if active._depth and os.environ.get("SKILLYARD_RECACHE") != "0" else None
    if path is None:
        return make()
    folder = os.path.dirname(path)
    target = os.path.join(folder, name)
    try:
        with open(target, "rb") as handle:
            kept = load(handle.read())
        usable = check is None or check(kept)
    except Exception:  # noqa: BLE001 - missing, damaged, refused: made afresh below
        usable = False
    if usable:
        return kept
    made = make()
    if sys.dont_write_bytecode:
        return made
    kind = name.split(".", 1)[0] + "."
    temporary = f"{target}.{os.getpid()}.tmp"
    try:
        os.makedirs(folder, exist_ok=True)
        with open(temporary, "wb") as handle:
            handle.write(dump(made))
        os.replace(temporary, target)
        for other in os.listdir(folder):
            if other.startswith(kind) and other != name and not other.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, other))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return made

def _entry(pattern, flags: int) -> tuple:
    """The compiler's output for `pattern` as plain values: (flags, program bytes, groups, group index)."""
    import array
    from re import _compiler, _parser

    parsed = _parser.parse(pattern, flags)
    code = _compiler._code(parsed, flags)
    return (int(flags | parsed.state.flags), array.array("I", code).tobytes(), parsed.state.groups,
            {str(name): int(index) for name, index in parsed.state.groupdict.items()})


def _from_entry(pattern, entry: tuple):
    """The pattern object `re._compiler.compile` returns, made from a cached entry (as its last line makes it)."""
    import _sre
    import array

    flags, code, groups, groupindex = entry
    indexgroup = [None] * groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return _sre.compile(pattern, flags, array.array("I", code).tolist(), groups - 1, groupindex, tuple(indexgroup))


class active:
    """`with active():` every pattern `re` compiles meanwhile comes from (and goes into) the cache. Nested uses and
    other Pythons (no `_sre.compile`) leave the compiler alone."""

    _depth = 0
    _lock = _thread.allocate_lock()  # commands run in threads (tests, servers) enter and leave in any order

    def __enter__(self):
        from re import _compiler

        self.cache = None
        with active._lock:
            if active._depth == 0 and hasattr(_compiler, "compile") and os.environ.get("SKILLYARD_RECACHE") != "0":
                original = _compiler.compile
                self.cache = cache = _Cache(cache_file())
                self.original = original
                _compiler.compile = lambda pattern, flags=0: cache.compile(original, pattern, flags)
            active._depth += 1
        return self

    def __exit__(self, *exc):
        with active._lock:
            active._depth -= 1
            if self.cache is not None:
                from re import _compiler

                _compiler.compile = self.original
        if self.cache is not None:
            self.cache.save()
        return False
