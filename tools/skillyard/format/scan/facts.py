"""The common fact model every language reader fills: calls with their (folded) string arguments, and assignments.

A reader turns one script into a list of `Op`s, whatever its language: a shell command, a JavaScript call, a
PowerShell cmdlet, a Go function call and an assignment all become one. The behaviour modules then judge flows
from sources to sinks over these facts, never over spellings, so one rule covers every language a reader exists
for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_OPS = 4000  # per file: a generated script larger than this is judged on its first ops (the rest are counted)
MAX_TEXT = 160  # characters of a call's source kept for messages


@dataclass(frozen=True, slots=True)
class Op:
    """One call (or an assignment, `name == "="`) at `line`.

    `name` is the callee lowered, its last segment (`child_process.exec` -> `exec`); `full` the whole dotted callee
    lowered. `words` are the call's arguments as text: folded where the reader could see the string (literals,
    concatenation, joins, reversals, decoded literals), "" where it could not. `uses` are the variables its
    arguments read, `calls` the names of calls nested in it (its arguments, the object it is called on, a pipeline
    or command substitution feeding it), `target` the variable it is assigned to."""

    line: int
    name: str
    full: str = ""
    words: tuple[str, ...] = ()
    uses: frozenset[str] = frozenset()
    calls: frozenset[str] = frozenset()
    target: str | None = None
    text: str = ""
    redirects: tuple[str, ...] = ()  # shell: where output goes (`> file`, `>& /dev/tcp/…`)


@dataclass(slots=True)
class Facts:
    """What one script was read to do: `ops` in source order, and the language it was read as."""

    language: str
    ops: list[Op] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)  # variables whose value the reader folded
    flow: object = None  # flows.Flow, once computed (flows.flow_of)

    def add(self, op: Op) -> None:
        if len(self.ops) < MAX_OPS:
            self.ops.append(op)
