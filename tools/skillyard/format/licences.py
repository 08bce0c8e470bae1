"""Which upstream licences let this site redistribute a pointer skill's files (serve them, render its SKILL.md).

A pointer skill's content belongs to its authors; the site copies it only when its licence plainly allows anyone
to redistribute it unmodified with the licence named beside it. The rule (documented in site/pages/security.md):
the `license` value is read as an SPDX licence expression (the subset `ID`, `ID+`, `ID WITH EXCEPTION`,
`A AND B`, `A OR B`, parentheses; operators in upper case), and
- an ID is allowed when it is on `ALLOWED` (compared without case, as SPDX does);
- `A OR B` is allowed when either side is (the recipient may choose);
- `A AND B` is allowed when both sides are;
- `ID WITH EXC` is allowed when the ID is and the exception is on `ALLOWED_EXCEPTIONS` (they only add permissions);
- anything else — an unknown ID, `LicenseRef-…`, a file name such as `LICENSE`, prose such as `MIT License`, a
  syntax error — is not allowed. Unknown means no. `NOASSERTION` (what `external add` records when it could not
  determine a licence) and `NONE` are never on the list: such a skill's content is not copied.
Pure and bounded: the expression is at most MAX_CHARS characters and MAX_DEPTH parentheses deep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARS = 200
MAX_DEPTH = 8

# Permissive and file-level weak-copyleft licences whose terms allow verbatim redistribution of unmodified files
# by anyone, with the licence named. Copyleft on the whole work (GPL, AGPL, LGPL, EUPL), share-alike, no-derivatives
# and non-commercial Creative Commons licences are left out: rendering a page from the text is more than a copy.
ALLOWED = frozenset(s.lower() for s in (
    "0BSD", "Apache-2.0", "BlueOak-1.0.0", "BSD-2-Clause", "BSD-3-Clause", "BSL-1.0", "CC-BY-3.0", "CC-BY-4.0",
    "CC0-1.0", "ISC", "MIT", "MIT-0", "MPL-2.0", "PostgreSQL", "Unlicense", "UPL-1.0", "X11", "Zlib",
))
NOT_STATED = frozenset({"NOASSERTION", "NONE"})  # SPDX's "no licence determined" and "no licence": never allowed
ALLOWED_EXCEPTIONS = frozenset(s.lower() for s in ("LLVM-exception",))

_TOKEN = re.compile(r"\s*(?:(\()|(\))|([A-Za-z0-9][A-Za-z0-9.\-]*\+?))")


class LicenceSyntaxError(ValueError):
    """The value is not an expression of the supported SPDX subset."""


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str  # one sentence for the page: why the site may or may not copy the content


def tokens(text: str) -> list[str]:
    """The expression's tokens: `(`, `)`, and words (IDs, `ID+`, operators). Raises LicenceSyntaxError."""
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise LicenceSyntaxError(f"unexpected character {text[pos:].lstrip()[:1]!r}")
        out.append(match.group(1) or match.group(2) or match.group(3))
        pos = match.end()
    return out


def parse(text: str):
    """The expression as a tree: ("id", name, plus) | ("with", id_node, exception) | ("and"|"or", left, right).
    AND binds tighter than OR, as in SPDX. Raises LicenceSyntaxError."""
    if not isinstance(text, str) or not text.strip():
        raise LicenceSyntaxError("empty")
    if len(text) > MAX_CHARS:
        raise LicenceSyntaxError(f"longer than {MAX_CHARS} characters")
    items = tokens(text)
    pos = 0

    def peek() -> str | None:
        return items[pos] if pos < len(items) else None

    def take() -> str:
        nonlocal pos
        if pos >= len(items):
            raise LicenceSyntaxError("ends too early")
        pos += 1
        return items[pos - 1]

    def expression(depth: int):
        node = conjunction(depth)
        while peek() == "OR":
            take()
            node = ("or", node, conjunction(depth))
        return node

    def conjunction(depth: int):
        node = simple(depth)
        while peek() == "AND":
            take()
            node = ("and", node, simple(depth))
        return node

    def simple(depth: int):
        word = take()
        if word == "(":
            if depth >= MAX_DEPTH:
                raise LicenceSyntaxError(f"nested deeper than {MAX_DEPTH}")
            node = expression(depth + 1)
            if take() != ")":
                raise LicenceSyntaxError("a parenthesis is not closed")
            return node
        if word in (")", "AND", "OR", "WITH"):
            raise LicenceSyntaxError(f"{word!r} where a licence ID belongs")
        node = ("id", word.removesuffix("+"), word.endswith("+"))
        if peek() == "WITH":
            take()
            exception = take()
            if exception in ("(", ")", "AND", "OR", "WITH") or exception.endswith("+"):
                raise LicenceSyntaxError(f"{exception!r} where an exception ID belongs")
            node = ("with", node, exception)
        return node

    tree = expression(0)
    if pos != len(items):
        raise LicenceSyntaxError(f"unexpected {items[pos]!r}")
    return tree


def allowed_tree(node) -> bool:
    kind = node[0]
    if kind == "id":
        return node[1].lower() in ALLOWED
    if kind == "with":
        return allowed_tree(node[1]) and node[2].lower() in ALLOWED_EXCEPTIONS
    if kind == "and":
        return allowed_tree(node[1]) and allowed_tree(node[2])
    return allowed_tree(node[1]) or allowed_tree(node[2])


def decide(value: object) -> Decision:
    """Whether the site may redistribute content under `value` (a pointer's `license`), and why."""
    if not isinstance(value, str) or not value.strip():
        return Decision(False, "no licence is stated, so this site does not copy the content")
    if value.strip().upper() in NOT_STATED:
        return Decision(False, "no licence could be determined upstream (NOASSERTION), so this site does not copy "
                               "the content")
    try:
        tree = parse(value)
    except LicenceSyntaxError:
        return Decision(False, "the licence is not an SPDX licence expression this site knows, so it does not "
                               "copy the content")
    if allowed_tree(tree):
        return Decision(True, "the licence allows redistribution, so this site may serve a copy checked against "
                              "the pinned hashes")
    return Decision(False, "the licence is not on this site's list of licences that allow redistribution, so "
                           "this site does not copy the content")
