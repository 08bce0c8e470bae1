#!/usr/bin/env python3
"""Flag risky patterns in SQL before it runs: unbounded writes, NULL comparisons, non-sargable filters, and more.

Pattern-based, dialect-agnostic and standard library only: it masks comments and string literals, splits
statements on `;`, then applies the rules listed by `--rules`. It does not connect to a database. Exit code 1
when an error-level finding exists.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

RULES = {
    "write-without-where": ("error", "UPDATE/DELETE without WHERE changes every row"),
    "destructive-ddl": ("error", "DROP/TRUNCATE destroys data; needs explicit approval and a backup"),
    "null-comparison": ("error", "`= NULL` / `<> NULL` is never true; use IS NULL / IS NOT NULL"),
    "string-interpolation": ("error", "a value is interpolated into SQL text; use bound parameters"),
    "select-star": ("warning", "SELECT * returns columns you may not need and breaks when columns change"),
    "not-in-subquery": ("warning", "NOT IN (subquery) returns no rows if the subquery yields a NULL; use NOT EXISTS"),
    "leading-wildcard": ("warning", "LIKE '%...' cannot use a normal index"),
    "function-on-column": ("warning", "a function applied to a column in WHERE/JOIN prevents index use"),
    "implicit-cross-join": ("warning", "comma join without a join condition produces a cross product"),
    "limit-without-order": ("warning", "LIMIT/TOP without ORDER BY returns an arbitrary subset"),
    "order-by-random": ("warning", "ORDER BY RAND()/RANDOM() sorts the whole table"),
    "insert-without-columns": ("warning", "INSERT without a column list breaks when the table changes"),
    "large-offset": ("info", "large OFFSET scans and discards rows; consider keyset pagination"),
}

TOKENS = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'", re.S)  # comments and string literals
INTERPOLATION = re.compile(r"'[^'\n]*(?:\{[A-Za-z_][\w.]*\}|%\(?\w*\)?s|\$\{[^}]+\})[^'\n]*'|\"\s*\+\s*\w+\s*\+\s*\"|'\s*\|\|\s*:?[A-Za-z_]\w*\s*\|\|\s*'")


def mask(sql: str) -> str:
    """Blank out comments and string contents (keeping length and newlines) so rules never match inside them."""
    def blank(match: re.Match) -> str:
        return re.sub(r"[^\n]", " ", match.group())

    def blank_string(match: re.Match) -> str:
        inner = re.sub(r"[^\n%]", "x", match.group()[1:-1])
        return "'" + inner + "'"

    out, pos = [], 0
    for match in TOKENS.finditer(sql):
        out.append(sql[pos:match.start()])
        out.append(blank_string(match) if match.group().startswith("'") else blank(match))
        pos = match.end()
    out.append(sql[pos:])
    return "".join(out)


def strip_comments(sql: str) -> str:
    """The statement without comments (string literals kept), for display."""
    return TOKENS.sub(lambda m: m.group() if m.group().startswith("'") else " ", sql)


def statements(sql: str) -> list[tuple[int, str, str]]:
    """(first line, original text, masked text) per statement."""
    masked = mask(sql)
    out, start = [], 0
    for index, ch in enumerate(masked + ";"):
        if ch == ";":
            original, hidden = sql[start:index], masked[start:index]
            if hidden.strip():
                lead = len(hidden) - len(hidden.lstrip())
                out.append((sql.count("\n", 0, start + lead) + 1, original.strip(), hidden.strip()))
            start = index + 1
    return out


def check(original: str, masked: str) -> list[str]:
    s = " ".join(masked.split())
    up = s.upper()
    found = []
    first = up.split(" ", 1)[0] if up else ""
    if first in ("UPDATE", "DELETE") and not re.search(r"\bWHERE\b", up):
        found.append("write-without-where")
    if re.match(r"^(DROP|TRUNCATE)\b", up):
        found.append("destructive-ddl")
    if re.search(r"(?:=|<>|!=)\s*NULL\b", up) or re.search(r"\bNULL\s*(?:=|<>|!=)", up):
        found.append("null-comparison")
    if INTERPOLATION.search(original):
        found.append("string-interpolation")
    if re.search(r"\bSELECT\s+(?:DISTINCT\s+)?(?:TOP\s+\d+\s+)?(?:\w+\.)?\*", up) and not re.search(r"\bEXISTS\s*\(\s*SELECT\s+\*", up):
        found.append("select-star")
    if re.search(r"\bNOT\s+IN\s*\(\s*SELECT\b", up):
        found.append("not-in-subquery")
    if re.search(r"\bLIKE\s+'%", up):
        found.append("leading-wildcard")
    for clause in re.findall(r"\b(?:WHERE|ON)\b(.*?)(?=\bGROUP\b|\bORDER\b|\bLIMIT\b|\bJOIN\b|$)", up):
        if re.search(r"\b(?:LOWER|UPPER|DATE|YEAR|MONTH|TRIM|CAST|COALESCE|SUBSTR|SUBSTRING|TO_CHAR)\s*\(\s*[A-Z_][\w.]*\s*[),]", clause):
            found.append("function-on-column")
            break
    from_clause = re.search(r"\bFROM\b(.*?)(?=\bWHERE\b|\bGROUP\b|\bORDER\b|\bLIMIT\b|\bJOIN\b|$)", up)
    if from_clause and "," in from_clause.group(1) and "(" not in from_clause.group(1) and not re.search(r"\bWHERE\b", up):
        found.append("implicit-cross-join")
    if (re.search(r"\bLIMIT\s+\d+", up) or re.search(r"\bSELECT\s+TOP\s+\d+", up) or re.search(r"\bFETCH\s+FIRST\b", up)) \
            and not re.search(r"\bORDER\s+BY\b", up):
        found.append("limit-without-order")
    if re.search(r"\bORDER\s+BY\s+(?:RAND|RANDOM|NEWID)\s*\(\s*\)", up):
        found.append("order-by-random")
    if re.match(r"^INSERT\s+INTO\s+[\w.\"`\[\]]+\s+(?:VALUES|SELECT)\b", up):
        found.append("insert-without-columns")
    offset = re.search(r"\bOFFSET\s+(\d+)", up)
    if offset and int(offset.group(1)) >= 10_000:
        found.append("large-offset")
    return found


def lint(sql: str, disabled: set[str]) -> list[dict]:
    findings = []
    for line, original, masked in statements(sql):
        for rule in check(original, masked):
            if rule in disabled:
                continue
            severity, message = RULES[rule]
            snippet = " ".join(strip_comments(original).split())
            findings.append({"line": line, "rule": rule, "severity": severity, "message": message,
                             "statement": snippet if len(snippet) <= 80 else snippet[:77] + "..."})
    return findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Flag risky SQL patterns (offline, dialect-agnostic heuristics).",
                                     epilog="example: sql_lint.py migrations/0042.sql --disable select-star")
    parser.add_argument("files", nargs="*", help="SQL files (- for standard input)")
    parser.add_argument("--sql", help="SQL text to check instead of files")
    parser.add_argument("--disable", action="append", default=[], help="rule id to skip (repeatable)")
    parser.add_argument("--rules", action="store_true", help="list the rules and exit")
    parser.add_argument("--json", action="store_true", help="print findings as JSON")
    args = parser.parse_args(argv)
    if args.rules:
        for rule, (severity, message) in RULES.items():
            print(f"{rule:24} {severity:8} {message}")
        return 0
    unknown = set(args.disable) - set(RULES)
    if unknown:
        parser.error(f"unknown rule(s): {', '.join(sorted(unknown))} (see --rules)")
    sources: list[tuple[str, str]] = []
    if args.sql is not None:
        sources.append(("sql", args.sql))
    for name in args.files:
        try:
            sources.append((name, sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")))
        except OSError as exc:
            print(f"error: cannot read {name}: {exc.strerror}", file=sys.stderr)
            return 2
    if not sources:
        parser.error("give SQL files or --sql")
    results = [{"source": name, **f} for name, text in sources for f in lint(text, set(args.disable))]
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in results:
            print(f"{r['source']}:{r['line']}: {r['severity']}: {r['rule']}: {r['message']}\n    {r['statement']}")
        print(f"{len(results)} finding(s)", file=sys.stderr)
    return 1 if any(r["severity"] == "error" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
