"""tree-sitter, built once per process: one `Parser` per language, made the first time a file of it is read.

Which reader a file goes to is decided by its suffix or its `#!` line; none is built for a skill without scripts.
"""

from __future__ import annotations

import re

MAX_SOURCE = 512 * 1024  # as read_python.MAX_SOURCE: larger scripts are left to the text rules
SUFFIXES = {
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".ksh": "shell", ".command": "shell",
    ".ps1": "powershell", ".psm1": "powershell", ".psd1": "powershell",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".rb": "ruby", ".go": "go", ".py": "python", ".pyw": "python",
}
_SHEBANG = (("python", "python"), ("node", "javascript"), ("deno", "typescript"), ("bun", "javascript"),
            ("ruby", "ruby"), ("pwsh", "powershell"), ("powershell", "powershell"), ("bash", "shell"),
            ("zsh", "shell"), ("ksh", "shell"), ("dash", "shell"), ("sh", "shell"))
_parsers: dict[str, object] = {}
_queries: dict[tuple[str, tuple[str, ...]], object] = {}


def language_of(file: str, text: str) -> str | None:
    """The language a file is read as: its suffix, else its `#!` line; None for anything else."""
    name = file.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    if dot > 0 and name[dot:] in SUFFIXES:
        return SUFFIXES[name[dot:]]
    if text.startswith("#!"):
        first = text[:200].split("\n", 1)[0].lower()
        for word, language in _SHEBANG:
            if word in first:
                return language
    return None


def parser(language: str):
    """The process's one parser for `language` (tree-sitter grammars are imported only when first needed)."""
    found = _parsers.get(language)
    if found is None:
        import tree_sitter

        grammar = _grammar(language)
        found = _parsers[language] = tree_sitter.Parser(tree_sitter.Language(grammar))
    return found


def _grammar(language: str):
    """The grammar's language object; each grammar package is imported the first time a file of it is read."""
    if language == "shell":
        import tree_sitter_bash

        return tree_sitter_bash.language()
    if language == "powershell":
        import tree_sitter_powershell

        return tree_sitter_powershell.language()
    if language == "javascript":
        import tree_sitter_javascript

        return tree_sitter_javascript.language()
    if language in ("typescript", "tsx"):
        import tree_sitter_typescript

        return tree_sitter_typescript.language_tsx() if language == "tsx" else \
            tree_sitter_typescript.language_typescript()
    if language == "ruby":
        import tree_sitter_ruby

        return tree_sitter_ruby.language()
    if language == "go":
        import tree_sitter_go

        return tree_sitter_go.language()
    raise KeyError(language)


# Characters outside the Basic Multilingual Plane (4-byte UTF-8: emoji, private-use planes). No shell, PowerShell,
# JavaScript, Ruby or Go syntax is spelled with them, and `{` followed by a private-use one (U+105272) crashes the
# process inside tree-sitter-bash 0.25.1's external scanner: hostile input must never reach that code.
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")


def parse(language: str, source: bytes):
    """The syntax tree's root, or None when the source is too large. tree-sitter never raises on bad input: it
    marks errors in the tree and the readers skip what they do not recognise."""
    if len(source) > MAX_SOURCE:
        return None
    if _ASTRAL.search(source):  # a grammar's scanner can read out of bounds on them (tree-sitter-bash 0.25.1 crashes)
        source = _ASTRAL.sub(b"____", source)  # same length, so every byte offset still points at the same place
    return parser(language).parse(source).root_node


def nodes_of(language: str, root, kinds: tuple[str, ...]) -> list:
    """Every node of `kinds` under `root`, in source order, found by a tree-sitter query (C speed: a Python walk
    over every node costs several times more). The query is compiled once per process and language."""
    import tree_sitter

    key = (language, kinds)
    query = _queries.get(key)
    if query is None:
        grammar = parser(language).language
        known = [kind for kind in kinds if grammar.id_for_node_kind(kind, True)]  # a grammar lacking one: skipped
        query = _queries[key] = tree_sitter.Query(grammar, "[" + " ".join(f"({kind})" for kind in known) + "] @n")
    found = tree_sitter.QueryCursor(query).captures(root).get("n", [])
    return sorted(found, key=lambda node: node.start_byte)
