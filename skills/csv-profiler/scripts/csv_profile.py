#!/usr/bin/env python3
"""Profile a CSV file: per-column types, missing values, distinct counts, ranges and frequent values.

Standard library only, streaming (one pass; memory grows with distinct values per column, capped by
--distinct-cap). Prints a Markdown report, or JSON with --json.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
from collections import Counter
from datetime import date, datetime

MISSING = {"", "na", "n/a", "null", "none", "nan", "-", "?"}
BOOLEANS = {"true", "false", "yes", "no", "y", "n", "t", "f"}
INT_RE = re.compile(r"^[+-]?\d+$")
FLOAT_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
TYPE_ORDER = ("integer", "float", "boolean", "date", "datetime", "string")


def classify(value: str) -> str:
    """The narrowest type a single non-missing cell fits."""
    v = value.strip()
    if INT_RE.match(v):
        return "integer"
    if FLOAT_RE.match(v.replace(",", "")) and ("," not in v or re.match(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$", v)):
        return "float"
    if v.lower() in BOOLEANS:
        return "boolean"
    try:
        date.fromisoformat(v)
        return "date"
    except ValueError:
        pass
    try:
        datetime.fromisoformat(v)
        return "datetime"
    except ValueError:
        return "string"


def column_type(counts: Counter) -> str:
    """Combine cell types: integer+float is float, anything mixed with text is string."""
    kinds = set(counts)
    if not kinds:
        return "empty"
    if kinds <= {"integer"}:
        return "integer"
    if kinds <= {"integer", "float"}:
        return "float"
    if kinds <= {"date", "datetime"}:
        return "datetime" if "datetime" in kinds else "date"
    if kinds <= {"boolean"}:
        return "boolean"
    return "string"


class Column:
    def __init__(self, name: str, distinct_cap: int) -> None:
        self.name = name
        self.missing = 0
        self.types: Counter = Counter()
        self.values: Counter = Counter()
        self.distinct_cap = distinct_cap
        self.distinct_overflow = False
        self.numbers: list[float] = []
        self.min_len: int | None = None
        self.max_len = 0

    def add(self, raw: str) -> None:
        if raw.strip().lower() in MISSING:
            self.missing += 1
            return
        kind = classify(raw)
        self.types[kind] += 1
        if kind in ("integer", "float"):
            number = float(raw.replace(",", ""))
            if math.isfinite(number):
                self.numbers.append(number)
        if raw in self.values or len(self.values) < self.distinct_cap:
            self.values[raw] += 1
        else:
            self.distinct_overflow = True
        length = len(raw)
        self.min_len = length if self.min_len is None else min(self.min_len, length)
        self.max_len = max(self.max_len, length)

    def summary(self, rows: int, top: int) -> dict:
        kind = column_type(self.types)
        present = rows - self.missing
        out: dict = {
            "name": self.name, "type": kind, "present": present, "missing": self.missing,
            "missing_pct": round(100 * self.missing / rows, 2) if rows else 0.0,
            "distinct": len(self.values), "distinct_is_lower_bound": self.distinct_overflow,
            "unique": present > 0 and len(self.values) == present and not self.distinct_overflow,
            "type_counts": dict(sorted(self.types.items())),
        }
        if self.types:
            dominant, count = max(self.types.items(), key=lambda kv: (kv[1], -TYPE_ORDER.index(kv[0])))
            out["dominant_type"], out["dominant_share"] = dominant, round(count / present, 4)
        if kind in ("integer", "float") and self.numbers:
            ordered = sorted(self.numbers)
            mid = len(ordered) // 2
            median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
            mean = sum(ordered) / len(ordered)
            out.update(min=_num(ordered[0]), max=_num(ordered[-1]), mean=round(mean, 6), median=_num(median))
        elif kind in ("date", "datetime"):
            keys = sorted(v.strip() for v in self.values)
            out.update(min=keys[0], max=keys[-1])
        if present:
            out.update(min_length=self.min_len, max_length=self.max_len)
        out["top_values"] = [[value, count] for value, count in
                             sorted(self.values.items(), key=lambda kv: (-kv[1], kv[0]))[:top]]
        return out


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def profile(handle, *, delimiter: str | None, max_rows: int | None, top: int, distinct_cap: int) -> dict:
    sample = handle.read(64 * 1024)
    handle.seek(0)
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
        except csv.Error:
            delimiter = ","
    reader = csv.reader(handle, delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        raise ValueError("the file is empty (no header row)")
    names = _unique_names(header)
    columns = [Column(n, distinct_cap) for n in names]
    rows = ragged = duplicates = 0
    seen_rows: set[int] = set()
    for row in reader:
        if max_rows is not None and rows >= max_rows:
            break
        if not row:
            continue
        rows += 1
        if len(row) != len(columns):
            ragged += 1
        key = hash(tuple(row))
        if key in seen_rows:
            duplicates += 1
        seen_rows.add(key)
        for index, column in enumerate(columns):
            column.add(row[index] if index < len(row) else "")
    return {
        "delimiter": delimiter, "rows": rows, "columns": len(columns), "ragged_rows": ragged,
        "duplicate_rows": duplicates, "truncated": max_rows is not None and rows >= max_rows,
        "duplicate_header_names": sorted({n for n in header if header.count(n) > 1}),
        "column_profiles": [c.summary(rows, top) for c in columns],
    }


def _unique_names(header: list[str]) -> list[str]:
    seen: Counter = Counter()
    out = []
    for index, name in enumerate(header):
        name = name.strip() or f"column_{index + 1}"
        seen[name] += 1
        out.append(name if seen[name] == 1 else f"{name}_{seen[name]}")
    return out


def to_markdown(report: dict, source: str) -> str:
    lines = [f"# Profile of {source}", "",
             f"- rows: {report['rows']}" + (" (stopped at --max-rows)" if report["truncated"] else ""),
             f"- columns: {report['columns']}", f"- delimiter: {report['delimiter']!r}",
             f"- duplicate rows: {report['duplicate_rows']}", f"- ragged rows (wrong cell count): {report['ragged_rows']}"]
    if report["duplicate_header_names"]:
        lines.append(f"- duplicate header names: {', '.join(report['duplicate_header_names'])}")
    lines += ["", "| column | type | missing | distinct | min | max | top values |", "|---|---|---|---|---|---|---|"]
    for col in report["column_profiles"]:
        top = ", ".join(f"{_cell(v)} ({c})" for v, c in col["top_values"][:3])
        distinct = f"{col['distinct']}{'+' if col['distinct_is_lower_bound'] else ''}"
        lines.append(f"| {_cell(col['name'])} | {col['type']} | {col['missing']} ({col['missing_pct']}%) | {distinct} "
                     f"| {_cell(str(col.get('min', '')))} | {_cell(str(col.get('max', '')))} | {top} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= 30 else text[:27] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Profile a CSV file (types, missing values, ranges, top values).",
                                     epilog="example: csv_profile.py data.csv --json --top 5")
    parser.add_argument("file", help="CSV file, or - for standard input")
    parser.add_argument("--delimiter", help="field delimiter (default: detect from , ; tab |)")
    parser.add_argument("--encoding", default="utf-8-sig", help="file encoding (default utf-8-sig)")
    parser.add_argument("--max-rows", type=int, help="profile at most this many data rows")
    parser.add_argument("--top", type=int, default=5, help="how many frequent values to list per column")
    parser.add_argument("--distinct-cap", type=int, default=100_000, help="stop tracking new values after this many")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    if args.delimiter == "\\t":
        args.delimiter = "\t"
    try:
        if args.file == "-":
            import io
            handle = io.StringIO(sys.stdin.read())
        else:
            handle = open(args.file, encoding=args.encoding, newline="")  # noqa: SIM115 - closed by `with` below
        with handle:
            report = profile(handle, delimiter=args.delimiter, max_rows=args.max_rows, top=args.top,
                             distinct_cap=args.distinct_cap)
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"error: {args.file} is not {args.encoding} text (byte {exc.start}); pass --encoding, e.g. latin-1",
              file=sys.stderr)
        return 2
    except (ValueError, csv.Error) as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(to_markdown(report, args.file))
    return 0


if __name__ == "__main__":
    sys.exit(main())
