"""The common fact model every language reader fills: calls with their (folded) string arguments, and assignments.

A reader turns one script into a list of `Op`s, whatever its language: a shell command, a JavaScript call, a
PowerShell cmdlet, a Go function call and an assignment all become one. The behaviour modules then judge flows
from sources to sinks over these facts, never over spellings, so one rule covers every language a reader exists
for.
"""

from __future__ import annotations

from skillyard.format.record import FrozenRecord, Record

MAX_OPS = 4000  # per file: a generated script larger than this is judged on its first ops (the rest are counted)
MAX_TEXT = 160  # characters of a call's source kept for messages


class Op(FrozenRecord):
    """One call (or an assignment, `name == "="`) at `line`.

    `name` is the callee lowered, its last segment (`child_process.exec` -> `exec`); `full` the whole dotted callee
    lowered. `words` are the call's arguments as text: folded where the reader could see the string (literals,
    concatenation, joins, reversals, decoded literals), "" where it could not. `uses` are the variables its
    arguments read, `calls` the names of calls nested in it (its arguments, the object it is called on, a pipeline
    or command substitution feeding it), `target` the variable it is assigned to. `redirects` (shell): where output
    goes (`> file`, `>& /dev/tcp/…`).

    A frozen record as a frozen dataclass was (equal and hashed by its fields), not one: `dataclasses` (with
    `inspect`, `dis`, `tokenize`) was ~7 ms of every validate's start-up for this module alone."""

    __slots__ = FIELDS = ("line", "name", "full", "words", "uses", "calls", "target", "text", "redirects")

    def __init__(self, line: int, name: str, full: str = "", words: tuple[str, ...] = (),
                 uses: frozenset[str] = frozenset(), calls: frozenset[str] = frozenset(), target: str | None = None,
                 text: str = "", redirects: tuple[str, ...] = ()):
        set_field = object.__setattr__
        set_field(self, "line", line)
        set_field(self, "name", name)
        set_field(self, "full", full)
        set_field(self, "words", words)
        set_field(self, "uses", uses)
        set_field(self, "calls", calls)
        set_field(self, "target", target)
        set_field(self, "text", text)
        set_field(self, "redirects", redirects)

    def _values(self) -> tuple:
        return (self.line, self.name, self.full, self.words, self.uses, self.calls, self.target, self.text,
                self.redirects)

    def replace(self, **changes) -> Op:
        """A copy with `changes` (field: value), as `dataclasses.replace` made one."""
        return Op(**{**dict(zip(self.FIELDS, self._values(), strict=True)), **changes})


class Facts(Record):
    """What one script was read to do: `ops` in source order, and the language it was read as; `values` the
    variables whose value the reader folded; `flow` its flows.Flow, once computed (flows.flow_of)."""

    __slots__ = FIELDS = ("language", "ops", "values", "flow")

    def __init__(self, language: str, ops: list[Op] | None = None, values: dict[str, str] | None = None,
                 flow: object = None):
        self.language = language
        self.ops = [] if ops is None else ops
        self.values = {} if values is None else values
        self.flow = flow

    def add(self, op: Op) -> None:
        if len(self.ops) < MAX_OPS:
            self.ops.append(op)
